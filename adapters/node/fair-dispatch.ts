// Connection-fair request dispatch for the Node listener. Go runs every connection's reader and
// every request handler on goroutines that its scheduler interleaves, so one connection that pipes
// hundreds of HTTP/2 streams cannot hold up another connection's request for long. Node has one
// event loop, and one socket read can carry hundreds of streams (HPACK makes a repeated request
// ~20 bytes), each run through the chain before the loop reads the next socket or fires a timer.
// Under a flood far above capacity (what API Priority and Fairness is for) a request of another
// flow would wait behind all of them before APF could even classify it, and its response would
// wait as long for each event-loop turn it needs.
//
// So an event-loop turn starts a bounded number of requests: `turnTarget` ms of work, converted to
// a count with the measured cost of a request in busy turns (everything included: parsing, the
// chain, writing, GC), because a 429 costs less than a list. Requests start at once while the
// turn's budget lasts; the rest wait in per-connection FIFO queues. At the end of each turn,
// connections that just started waiting get one request each (a client sending one request at a
// time never waits behind a backlog), then backlogged connections are served round robin,
// `quantum` requests each, so that a turn writes to fewer connections, more responses each.

/** A request of one connection (an HTTP/1 socket or an HTTP/2 session), not yet started. */
export interface PendingRequest {
  /** Requests of one connection start in arrival order. */
  readonly connection: object;
  /** False once the client went away (reset stream, closed socket): the request is dropped. */
  alive(): boolean;
  start(): void;
}

/** Target length of an event-loop turn while requests wait (ms); measured in bench/apf.ts. */
export const defaultTurnTarget = 2;
/** Bounds of the per-turn start budget. */
const minBudget = 8;
const maxBudget = 256;
/** Requests a backlogged connection starts per round-robin round (measured in bench/: 4 beat 1, 6 and 8). */
export const quantum = 4;

export class FairDispatcher {
  private readonly turnTarget: number;
  private readonly now: () => number;
  /** Requests that may start per turn: turnTarget over the measured cost of one start. */
  private perTurn = 32;
  /** Moving average of a started request's share of a busy turn (ms). */
  private costPerStart = 0;
  /** Requests started in the current turn. */
  private started = 0;
  /** Requests the last drain started. */
  private drained = 0;
  /** When the last drain ran, if it left requests waiting (the turn since was busy). */
  private busySince = -1;
  private scheduled = false;
  private readonly queues = new WeakMap<object, PendingRequest[]>();
  /** Connections whose requests just started waiting: served first, one request each. */
  private fresh: PendingRequest[][] = [];
  /** Connections with a backlog, in round-robin order. */
  private ready: PendingRequest[][] = [];
  private readonly drain = () => this.runTurn();

  private readonly reportError: (err: unknown) => void;

  constructor(turnTarget = defaultTurnTarget, now: () => number = () => performance.now(), reportError = rethrowLater) {
    this.turnTarget = turnTarget;
    this.now = now;
    this.reportError = reportError;
  }

  /** Requests that may start per turn. */
  get budget(): number {
    return this.perTurn;
  }

  /** Requests waiting for their turn. */
  get waiting(): number {
    let n = 0;
    for (const q of this.fresh) n += q.length;
    for (const q of this.ready) n += q.length;
    return n;
  }

  dispatch(req: PendingRequest): void {
    if (this.tryStart()) return req.start();
    let queue = this.queues.get(req.connection);
    if (!queue) this.queues.set(req.connection, (queue = []));
    if (!queue.length) this.fresh.push(queue);
    queue.push(req);
  }

  /**
   * Whether a request may start now, without waiting (nothing waits and the turn's budget
   * lasts); it then counts as started. The uncontended case, with no PendingRequest to build.
   * False: pass the request to `dispatch`.
   */
  tryStart(): boolean {
    this.schedule();
    if (this.fresh.length || this.ready.length || this.started >= this.perTurn) return false;
    this.started++;
    return true;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.drain);
  }

  /** The end of a turn: what is left of its budget goes to waiting requests. */
  private runTurn(): void {
    this.scheduled = false;
    const now = this.now();
    // A busy turn (requests were waiting all along) measures what a start costs, everything included.
    if (this.busySince >= 0 && this.drained > 0) {
      const cost = (now - this.busySince) / this.drained;
      this.costPerStart = this.costPerStart ? 0.8 * this.costPerStart + 0.2 * cost : cost;
      this.perTurn = Math.max(minBudget, Math.min(maxBudget, Math.round(this.turnTarget / this.costPerStart)));
    }
    let n = this.started;
    // New waiters first, one request each: a connection that sends a request at a time never
    // waits behind a bulk sender's backlog (FQ-CoDel's new flows).
    let i = 0;
    for (; i < this.fresh.length && n < this.perTurn; i++) {
      const queue = this.fresh[i]!;
      n += startNext(queue, this.reportError);
      if (queue.length) this.ready.push(queue);
    }
    this.fresh = i < this.fresh.length ? this.fresh.slice(i) : [];
    // Then the backlogs, round robin, `quantum` each per round: fewer connections per turn
    // write more responses each (one TLS write per connection and turn).
    let ready = this.ready;
    while (ready.length && n < this.perTurn) {
      const next: PendingRequest[][] = [];
      let i = 0;
      for (; i < ready.length && n < this.perTurn; i++) {
        const queue = ready[i]!;
        for (let q = 0; q < quantum && queue.length && n < this.perTurn; q++) n += startNext(queue, this.reportError);
        if (queue.length) next.push(queue);
      }
      // Connections not reached this round go first next time.
      ready = i < ready.length ? ready.slice(i).concat(next) : next;
    }
    this.ready = ready;
    this.drained = n - this.started;
    this.started = 0;
    const waiting = ready.length > 0 || this.fresh.length > 0;
    this.busySince = waiting ? now : -1;
    if (waiting) this.schedule();
  }
}

/**
 * Starts a connection's next request unless its client went away; returns how many started. A
 * start that throws is reported (by default rethrown outside the turn, as it would have been
 * thrown to the emitter) so that the other waiting requests still start.
 */
function startNext(queue: PendingRequest[], reportError: (err: unknown) => void): number {
  const req = queue.shift()!;
  if (!req.alive()) return 0;
  try {
    req.start();
  } catch (err) {
    reportError(err);
  }
  return 1;
}

function rethrowLater(err: unknown): void {
  queueMicrotask(() => {
    throw err;
  });
}
