// Connection-fair request dispatch for the Node listener. Go runs every connection's reader and
// every request handler on goroutines that its scheduler interleaves, so one connection that pipes
// hundreds of HTTP/2 streams cannot hold up another connection's request for long. Node has one
// event loop, and one socket read can carry hundreds of streams (HPACK makes a repeated request
// ~20 bytes), each run through the chain before the loop reads the next socket or fires a timer.
// Under a flood far above capacity (what API Priority and Fairness is for) a request of another
// flow would wait behind all of them before APF could even classify it, and its response would
// wait as long for each event-loop turn it needs.
//
// So an event-loop turn starts a bounded number of requests. Requests start at once while the
// turn's budget lasts; the rest wait in per-connection FIFO queues, served round robin (one
// request per connection per round) with the next turns' budgets before anything new. The budget
// is a time, turnTarget, converted to a count with the measured cost of a request in busy turns
// (everything included: parsing, the chain, writing, GC), because a 429 costs less than a list.

/** A request of one connection (an HTTP/1 socket or an HTTP/2 session), not yet started. */
export interface PendingRequest {
  /** Requests of one connection start in arrival order. */
  readonly connection: object;
  /** False once the client went away (reset stream, closed socket): the request is dropped. */
  alive(): boolean;
  start(): void;
}

/** Target length of an event-loop turn while requests wait (ms); measured in bench/apf.ts. */
export const defaultTurnTarget = 3;
/** Bounds of the per-turn start budget. */
const minBudget = 8;
const maxBudget = 256;

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
  /** Connections with waiting requests, in round-robin order. */
  private ready: PendingRequest[][] = [];
  private readonly drain = () => this.runTurn();

  constructor(turnTarget = defaultTurnTarget, now: () => number = () => performance.now()) {
    this.turnTarget = turnTarget;
    this.now = now;
  }

  /** Requests that may start per turn. */
  get budget(): number {
    return this.perTurn;
  }

  /** Requests waiting for their turn. */
  get waiting(): number {
    let n = 0;
    for (const q of this.ready) n += q.length;
    return n;
  }

  dispatch(req: PendingRequest): void {
    this.schedule();
    if (!this.ready.length && this.started < this.perTurn) {
      this.started++;
      return req.start();
    }
    let queue = this.queues.get(req.connection);
    if (!queue) this.queues.set(req.connection, (queue = []));
    if (!queue.length) this.ready.push(queue);
    queue.push(req);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.drain);
  }

  /** The end of a turn: what is left of its budget goes to waiting requests, one per connection per round. */
  private runTurn(): void {
    this.scheduled = false;
    const now = this.now();
    // A busy turn (requests were waiting all along) measures what a start costs, everything included.
    if (this.busySince >= 0 && this.drained > 0) {
      const cost = (now - this.busySince) / this.drained;
      this.costPerStart = this.costPerStart ? 0.8 * this.costPerStart + 0.2 * cost : cost;
      this.perTurn = Math.max(minBudget, Math.min(maxBudget, Math.round(this.turnTarget / this.costPerStart)));
    }
    let ready = this.ready;
    let n = this.started;
    while (ready.length && n < this.perTurn) {
      const next: PendingRequest[][] = [];
      let i = 0;
      for (; i < ready.length && n < this.perTurn; i++) {
        const queue = ready[i]!;
        const req = queue.shift()!;
        if (req.alive()) {
          n++;
          req.start();
        }
        if (queue.length) next.push(queue);
      }
      // Connections not reached this round go first next time.
      ready = i < ready.length ? ready.slice(i).concat(next) : next;
    }
    this.ready = ready;
    this.drained = n - this.started;
    this.started = 0;
    this.busySince = ready.length ? now : -1;
    if (ready.length) this.schedule();
  }
}
