// A priority level's queues (k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing/queueset):
// shuffle-sharded enqueue, fair dispatch by virtual finish time, seats, the queue-length
// limit, the wait deadline and cancellation.
//
// Single-threaded by construction (the event loop is the lock). Virtual time R is in
// seat-seconds and advances at min(seats requested, limit) / active queues per real second.

import type { RequestDigest } from './match.ts';

/** Why a request was not admitted (the `reason` label of rejected_requests_total). */
export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

export interface QueueSetConfig {
  name: string;
  /** 0 for LimitResponse Reject (no queues); -1 marks an exempt level. */
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

/** What the queueset tells the flow-control layer (metrics). */
export interface QueueSetObserver {
  onEnqueue?(fsName: string, queueLength: number, seats: number): void;
  onDequeue?(fsName: string, seats: number): void;
  onNoAccommodation?(fsName: string): void;
}

/** Estimated service time of one seat (fairqueuing: 3ms), in seconds. */
export const estimatedServiceDuration = 0.003;

export type Admission =
  | { admitted: true; waitedMs: number; finish: () => void }
  | { admitted: false; reason: RejectReason; waitedMs: number };

/**
 * A request's AbortSignal made only when a request has to wait (the timeout filter's child
 * signal costs an AbortController and a listener): `aborted` is answered without it.
 */
export interface LazySignal {
  readonly aborted: boolean;
  readonly signal: AbortSignal;
}

interface Queue {
  index: number;
  waiting: WaitingRequest[];
  head: number;
  nextDispatchR: number;
  seatsInUse: number;
  executing: number;
  /** Seat-seconds of waiting requests (queueSum.TotalWorkSum). */
  waitingWork: number;
  waitingSeats: number;
}

/** Who a queued request is, for the debug dumps. */
export interface QueuedFlow {
  distinguisher: string;
  digest: RequestDigest;
}

/** One queue as /debug/api_priority_and_fairness/dump_queues and dump_requests show it. */
export interface QueueDump {
  waiting: { fsName: string; flow?: QueuedFlow; arrivedAt: number; seats: number }[];
  executing: number;
  seatsInUse: number;
  /** Seat-seconds. */
  nextDispatchR: number;
  initialSeatsSum: number;
  /** Seat-seconds. */
  totalWorkSum: number;
}

interface WaitingRequest {
  seats: number;
  fsName: string;
  flow?: QueuedFlow;
  queue: Queue;
  arrivalR: number;
  enqueuedAt: number;
  decided: boolean;
  resolve: (a: Admission) => void;
  cleanup?: () => void;
}

export class QueueSet {
  readonly config: QueueSetConfig;
  concurrencyLimit: number;
  private readonly now: () => number;
  private readonly observer: QueueSetObserver;
  private readonly queues: Queue[] = [];
  seatsInUse = 0;
  requestsExecuting = 0;
  requestsWaiting = 0;
  seatsWaiting = 0;
  currentR = 0;
  /** Totals for the debug dump (queueSetDigest). */
  dispatched = 0;
  rejected = 0;
  timedOut = 0;
  cancelled = 0;
  private lastRealTime: number;
  private robinIndex = -1;
  private enqueues = 0;
  private activeQueues = 0;
  // Seat demand statistics for borrowing (seatDemandIntegrator): ∫demand, ∫demand², high watermark.
  private demandLast: number;
  private demandIntegral = 0;
  private demandSqIntegral = 0;
  private demandHigh = 0;
  private demandStart: number;

  constructor(config: QueueSetConfig, concurrencyLimit: number, now: () => number, observer: QueueSetObserver = {}) {
    this.config = config;
    this.concurrencyLimit = concurrencyLimit;
    this.now = now;
    this.observer = observer;
    this.lastRealTime = now();
    this.demandLast = this.lastRealTime;
    this.demandStart = this.lastRealTime;
    for (let i = 0; i < Math.max(0, config.queues); i++) {
      this.queues.push({
        index: i,
        waiting: [],
        head: 0,
        nextDispatchR: 0,
        seatsInUse: 0,
        executing: 0,
        waitingWork: 0,
        waitingSeats: 0,
      });
    }
  }

  get isExempt(): boolean {
    return this.config.queues < 0;
  }

  /** Queues with requests waiting. */
  get activeQueueCount(): number {
    let n = 0;
    for (const q of this.queues) if (q.waiting.length > q.head) n++;
    return n;
  }

  /** Dump: every queue with its waiting requests (none for exempt or queue-less levels). */
  dump(): QueueDump[] {
    return this.queues.map((q) => ({
      waiting: q.waiting
        .slice(q.head)
        .map((r) => ({ fsName: r.fsName, flow: r.flow, arrivedAt: r.enqueuedAt, seats: r.seats })),
      executing: q.executing,
      seatsInUse: q.seatsInUse,
      nextDispatchR: q.nextDispatchR,
      initialSeatsSum: q.waitingSeats,
      totalWorkSum: q.waitingWork,
    }));
  }

  /** Number of requests waiting in queue `i` (tests, debugging). */
  queueLength(i: number): number {
    const q = this.queues[i]!;
    return q.waiting.length - q.head;
  }

  /**
   * StartRequest: admits now, queues until dispatched, or rejects. `hand` is the flow's
   * shuffle-sharded queue indices (ignored without queues). `deadline` is the epoch-ms wait limit.
   */
  startRequest(
    hand: readonly number[],
    seats: number,
    fsName: string,
    deadline: number,
    lazySignal?: AbortSignal | LazySignal,
    flow?: QueuedFlow,
  ): Admission | Promise<Admission> {
    this.syncTime();
    if (this.isExempt) return this.admitNow(null, seats, 0);
    if (this.config.queues === 0) {
      if (!this.canAccommodate(seats)) {
        this.rejected++;
        return { admitted: false, reason: 'concurrency-limit', waitedMs: 0 };
      }
      return this.admitNow(null, seats, 0);
    }
    // Shuffle sharding: the queue in the hand with the least waiting work, visiting the hand
    // from a rotating offset.
    const handSize = hand.length;
    const offset = this.enqueues % handSize;
    this.enqueues++;
    let best = this.queues[hand[offset]!]!;
    for (let i = 1; i < handSize; i++) {
      const q = this.queues[hand[(offset + i) % handSize]!]!;
      if (q.waitingWork < best.waitingWork) best = q;
    }
    const queue = best;
    // Reject only when seats are exhausted AND the chosen queue is full.
    if (this.seatsInUse >= this.concurrencyLimit && queue.waiting.length - queue.head >= this.config.queueLengthLimit) {
      this.rejected++;
      return { admitted: false, reason: 'queue-full', waitedMs: 0 };
    }
    if (lazySignal?.aborted) {
      this.cancelled++;
      return { admitted: false, reason: 'cancelled', waitedMs: 0 };
    }
    if (this.requestsWaiting === 0 && this.canAccommodate(seats)) {
      // Nothing waits anywhere: this request is the fair choice. Same bookkeeping as enqueue +
      // dispatch, without scanning every queue.
      if (queue.waiting.length === queue.head && queue.executing === 0) queue.nextDispatchR = this.currentR;
      queue.nextDispatchR += seats * estimatedServiceDuration;
      this.robinIndex = queue.index;
      this.observer.onEnqueue?.(fsName, 1, seats);
      this.observer.onDequeue?.(fsName, seats);
      return this.admitNow(queue, seats, 0);
    }
    const now = this.now();
    let immediate: Admission | undefined;
    const req: WaitingRequest = {
      seats,
      fsName,
      flow,
      queue,
      arrivalR: this.currentR,
      enqueuedAt: now,
      decided: false,
      resolve: (a) => (immediate = a),
    };
    this.enqueue(req);
    this.boundNextDispatch(queue);
    this.dispatchAsMuchAsPossible();
    // Dispatched at once (seats were free): no promise, no timer.
    if (immediate) return immediate;
    const promise = new Promise<Admission>((r) => (req.resolve = r));
    const signal = lazySignal && 'signal' in lazySignal ? lazySignal.signal : lazySignal;
    {
      const timer = setTimeout(() => this.cancelWait(req, 'time-out'), Math.max(0, deadline - now));
      const onAbort = () => this.cancelWait(req, 'cancelled');
      signal?.addEventListener('abort', onAbort, { once: true });
      req.cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
    }
    return promise;
  }

  /** setConcurrencyLimit (borrowing adjustments, reconfiguration): may dispatch waiting requests. */
  setConcurrencyLimit(limit: number): void {
    this.syncTime();
    this.concurrencyLimit = limit;
    this.dispatchAsMuchAsPossible();
  }

  /** Seat demand over the period since the last call: average, standard deviation, high watermark. */
  takeDemandStats(): { avg: number; stdDev: number; highWatermark: number } {
    const now = this.now();
    this.integrateDemand(now);
    const dt = now - this.demandStart;
    const cur = this.seatsInUse + this.seatsWaiting;
    const avg = dt > 0 ? this.demandIntegral / dt : cur;
    const variance = dt > 0 ? Math.max(0, this.demandSqIntegral / dt - avg * avg) : 0;
    const res = { avg, stdDev: Math.sqrt(variance), highWatermark: Math.max(this.demandHigh, cur) };
    this.demandIntegral = 0;
    this.demandSqIntegral = 0;
    this.demandHigh = cur;
    this.demandStart = now;
    return res;
  }

  private integrateDemand(now: number): void {
    const dt = now - this.demandLast;
    if (dt > 0) {
      const d = this.seatsInUse + this.seatsWaiting;
      this.demandIntegral += d * dt;
      this.demandSqIntegral += d * d * dt;
    }
    this.demandLast = now;
  }

  /** Call around every change of seatsInUse/seatsWaiting. */
  private demandChanging(): void {
    this.integrateDemand(this.now());
  }

  private demandChanged(): void {
    const d = this.seatsInUse + this.seatsWaiting;
    if (d > this.demandHigh) this.demandHigh = d;
  }

  private admitNow(queue: Queue | null, seats: number, waitedMs: number): Admission {
    this.dispatched++;
    this.demandChanging();
    this.seatsInUse += seats;
    this.requestsExecuting++;
    if (queue) {
      if (queue.executing === 0 && queue.waiting.length === queue.head) this.activeQueues++;
      queue.seatsInUse += seats;
      queue.executing++;
    }
    this.demandChanged();
    const started = this.now();
    let finished = false;
    return {
      admitted: true,
      waitedMs,
      finish: () => {
        if (finished) return;
        finished = true;
        this.finishRequest(queue, seats, started);
      },
    };
  }

  private finishRequest(queue: Queue | null, seats: number, started: number): void {
    this.syncTime();
    this.demandChanging();
    this.seatsInUse -= seats;
    this.requestsExecuting--;
    if (queue) {
      queue.seatsInUse -= seats;
      queue.executing--;
      if (queue.executing === 0 && queue.waiting.length === queue.head) this.activeQueues--;
      // The queue's start R moves by (G - S) × width: longer-than-estimated service costs the flow.
      const actual = (this.now() - started) / 1000;
      queue.nextDispatchR -= seats * (estimatedServiceDuration - actual);
      this.boundNextDispatch(queue);
    }
    this.demandChanged();
    this.dispatchAsMuchAsPossible();
  }

  private enqueue(req: WaitingRequest): void {
    const q = req.queue;
    const empty = q.waiting.length === q.head;
    if (empty && q.executing === 0) {
      q.nextDispatchR = this.currentR;
      this.activeQueues++;
    }
    q.waiting.push(req);
    q.waitingWork += req.seats * estimatedServiceDuration;
    q.waitingSeats += req.seats;
    this.demandChanging();
    this.requestsWaiting++;
    this.seatsWaiting += req.seats;
    this.demandChanged();
    this.observer.onEnqueue?.(req.fsName, q.waiting.length - q.head, req.seats);
  }

  /** Removes a waiting request from its queue (head or middle). */
  private removeWaiting(req: WaitingRequest): void {
    const q = req.queue;
    if (q.waiting[q.head] === req) {
      q.waiting[q.head] = undefined as unknown as WaitingRequest;
      q.head++;
      if (q.head > 64 && q.head * 2 > q.waiting.length) {
        q.waiting = q.waiting.slice(q.head);
        q.head = 0;
      }
    } else {
      const i = q.waiting.indexOf(req, q.head);
      if (i >= 0) q.waiting.splice(i, 1);
    }
    q.waitingWork -= req.seats * estimatedServiceDuration;
    q.waitingSeats -= req.seats;
    this.demandChanging();
    this.requestsWaiting--;
    this.seatsWaiting -= req.seats;
    this.demandChanged();
    if (q.waiting.length === q.head) {
      q.waiting = [];
      q.head = 0;
      if (q.executing === 0) this.activeQueues--;
    }
    this.observer.onDequeue?.(req.fsName, req.seats);
  }

  private cancelWait(req: WaitingRequest, reason: RejectReason): void {
    if (req.decided) return;
    this.syncTime();
    req.decided = true;
    if (reason === 'time-out') this.timedOut++;
    else this.cancelled++;
    req.cleanup?.();
    this.removeWaiting(req);
    this.boundNextDispatch(req.queue);
    req.resolve({ admitted: false, reason, waitedMs: this.now() - req.enqueuedAt });
    // Removing work may let the fair choice move on.
    this.dispatchAsMuchAsPossible();
  }

  private syncTime(): void {
    const now = this.now();
    const dt = (now - this.lastRealTime) / 1000;
    this.lastRealTime = now;
    if (dt <= 0 || this.activeQueues === 0) return;
    const seatsRequested = this.seatsInUse + this.seatsWaiting;
    this.currentR += (dt * Math.min(seatsRequested, this.concurrencyLimit)) / this.activeQueues;
  }

  private canAccommodate(seats: number): boolean {
    if (this.isExempt) return true;
    if (seats > this.concurrencyLimit) return this.requestsExecuting === 0;
    return this.seatsInUse + seats <= this.concurrencyLimit;
  }

  private boundNextDispatch(q: Queue): void {
    const oldest = q.waiting[q.head];
    if (oldest && q.nextDispatchR < oldest.arrivalR) q.nextDispatchR = oldest.arrivalR;
  }

  private dispatchAsMuchAsPossible(): void {
    while (this.requestsWaiting > 0 && this.seatsInUse < this.concurrencyLimit && this.dispatchOne()) {
      /* keep dispatching */
    }
  }

  /** Dispatches the head with the smallest virtual finish time, if its seats fit. */
  private dispatchOne(): boolean {
    const n = this.queues.length;
    let min: Queue | undefined;
    let minFinish = Infinity;
    let minIndex = -1;
    for (let k = 0; k < n; k++) {
      this.robinIndex = (this.robinIndex + 1) % n;
      const q = this.queues[this.robinIndex]!;
      const head = q.waiting[q.head];
      if (!head) continue;
      const finish = q.nextDispatchR + head.seats * estimatedServiceDuration;
      if (finish < minFinish) {
        minFinish = finish;
        min = q;
        minIndex = this.robinIndex;
      }
    }
    if (!min) return false;
    const req = min.waiting[min.head]!;
    if (!this.canAccommodate(req.seats)) {
      this.observer.onNoAccommodation?.(req.fsName);
      return false;
    }
    this.robinIndex = minIndex;
    req.decided = true;
    req.cleanup?.();
    this.removeWaiting(req);
    min.nextDispatchR += req.seats * estimatedServiceDuration;
    // admitNow re-counts the queue as active when it was emptied by this dispatch.
    const admission = this.admitNow(min, req.seats, this.now() - req.enqueuedAt);
    this.boundNextDispatch(min);
    req.resolve(admission);
    return true;
  }
}
