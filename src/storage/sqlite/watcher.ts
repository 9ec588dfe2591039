// One watch over the revision log. A watcher first catches up from the table (in batches, each read
// synchronously), and once a read comes back short it is live: from then on every committed write is
// pushed to it by the log in the same synchronous turn that appended it, so no event is missed or
// repeated and events arrive strictly in revision order (no polling within one process, unlike
// kine's pkg/logstructured/sqllog poll loop, which needs gap filling because its writers are concurrent).
// A watcher that falls too far behind drops its queue and catches up from the table again.
import type { WatchEvent, WatchResponse } from '../kv.ts';

export interface WatchSource {
  /** Rows [fromRevision, …) under the watcher's range, at most `limit`, as events. Throws CompactedError. */
  readHistory(prefix: string, fromRevision: number, limit: number): WatchEvent[];
  headRevision(): number;
  unregister(w: Watcher): void;
}

export interface WatcherOptions {
  prefix: string;
  startRevision: number;
  progressIntervalMs?: number;
  signal: AbortSignal;
  /** Events in one response at most. */
  batch: number;
  /** Queued events beyond which a slow watcher goes back to reading the table. */
  queueLimit: number;
}

export class Watcher implements AsyncIterator<WatchResponse> {
  readonly prefix: string;
  /** Next revision this watcher has to deliver. */
  private nextRev: number;
  private live = false;
  private queue: WatchEvent[] = [];
  private wake: (() => void) | undefined;
  private failure: Error | undefined;
  private done = false;
  private readonly src: WatchSource;
  private readonly opts: WatcherOptions;
  private readonly onAbort = () => this.finish();

  constructor(src: WatchSource, opts: WatcherOptions) {
    this.src = src;
    this.opts = opts;
    this.prefix = opts.prefix;
    this.nextRev = opts.startRevision;
    if (opts.signal.aborted) this.done = true;
    else opts.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Called by the log, synchronously after each committed write whose key is under `prefix`. */
  push(ev: WatchEvent): void {
    if (!this.live || this.done || ev.kv.modRevision < this.nextRev) return;
    if (this.queue.length >= this.opts.queueLimit) {
      // Too slow: forget the queue, re-read the missed revisions from the table.
      this.nextRev = this.queue[0]!.kv.modRevision;
      this.queue = [];
      this.live = false;
      return;
    }
    this.queue.push(ev);
    this.signal();
  }

  /** The engine closed or can no longer serve this watch: next() throws. */
  fail(err: Error): void {
    if (this.done) return;
    this.failure = err;
    this.signal();
  }

  private signal(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.queue = [];
    this.opts.signal.removeEventListener('abort', this.onAbort);
    this.src.unregister(this);
    this.signal();
  }

  async next(): Promise<IteratorResult<WatchResponse>> {
    for (;;) {
      if (this.done) return { done: true, value: undefined };
      if (this.failure) {
        const err = this.failure;
        this.finish();
        throw err;
      }
      if (!this.live) {
        let events: WatchEvent[];
        try {
          events = this.src.readHistory(this.prefix, this.nextRev, this.opts.batch);
        } catch (err) {
          this.finish();
          throw err;
        }
        // Read and switch to live in one synchronous turn: no write can fall between the two.
        if (events.length < this.opts.batch) this.live = true;
        if (events.length) {
          const last = events[events.length - 1]!.kv.modRevision;
          this.nextRev = last + 1;
          return { done: false, value: { revision: last, events } };
        }
        continue;
      }
      if (this.queue.length) {
        const events = this.queue.length <= this.opts.batch ? this.queue : this.queue.slice(0, this.opts.batch);
        this.queue = events === this.queue ? [] : this.queue.slice(events.length);
        const last = events[events.length - 1]!.kv.modRevision;
        this.nextRev = last + 1;
        return { done: false, value: { revision: last, events } };
      }
      const progress = await this.idle();
      if (progress && !this.done && !this.failure && !this.queue.length && this.live) {
        // Everything up to the current revision under this prefix has been delivered.
        return { done: false, value: { revision: this.src.headRevision(), events: [] } };
      }
    }
  }

  /** Waits for an event, a failure or the end; resolves true when the progress interval passed first. */
  private idle(): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      this.wake = () => {
        if (timer !== undefined) clearTimeout(timer);
        resolve(false);
      };
      const ms = this.opts.progressIntervalMs;
      if (ms && ms > 0) {
        timer = setTimeout(() => {
          this.wake = undefined;
          resolve(true);
        }, ms);
      }
    });
  }

  async return(): Promise<IteratorResult<WatchResponse>> {
    this.finish();
    return { done: true, value: undefined };
  }
}
