// The buffered (batch) backend (plugin/pkg/audit/buffered): a bounded queue in front of a
// delegate, drained in batches of up to maxBatchSize events or every maxBatchWait, optionally
// throttled, delegate calls optionally concurrent. A full queue drops the event — counted under
// apiserver_audit_error_total{plugin="buffered"} and logged, the request still succeeds.
// Nothing waits on a goroutine here: one async loop per backend, started by run() (or lazily
// on the first event where nothing calls run(), as on edge runtimes; flush() then drains).

import type { Logger } from '../util/logger.ts';
import { handlePluginError, type AuditMetrics } from './metrics.ts';
import type { AuditBackend, AuditEvent } from './types.ts';

export const bufferedPluginName = 'buffered';

export interface BatchConfig {
  /** Queue capacity in events. */
  bufferSize: number;
  maxBatchSize: number;
  /** Milliseconds; used only when maxBatchSize > 1. */
  maxBatchWait: number;
  throttleEnable: boolean;
  /** Batches per second. */
  throttleQPS: number;
  throttleBurst: number;
  /** Send batches concurrently instead of one after another. */
  asyncDelegate: boolean;
}

/** client-go's token bucket rate limiter (Accept waits for a token). */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly qps: number;
  private readonly burst: number;
  constructor(qps: number, burst: number) {
    this.qps = qps;
    this.burst = burst;
    this.tokens = burst;
    this.last = performance.now();
  }
  async accept(): Promise<void> {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    if (this.tokens >= 0) return;
    await new Promise((r) => setTimeout(r, (-this.tokens / this.qps) * 1000));
  }
}

const never = new Promise<void>(() => {});

export class BufferedBackend implements AuditBackend {
  readonly neverFails = true;
  private readonly delegate: AuditBackend;
  private readonly config: BatchConfig;
  private readonly logger: Logger;
  private readonly metrics: AuditMetrics;
  private readonly throttle?: TokenBucket;
  private queue: AuditEvent[] = [];
  private head = 0;
  private wake?: () => void;
  private stopRequested = false;
  /** No new events once the stop signal fired (Go closes the channel). */
  private closed = false;
  private waitingForFirst = false;
  private loopDone?: Promise<void>;
  private readonly inflight = new Set<Promise<void>>();

  constructor(delegate: AuditBackend, config: BatchConfig, logger: Logger, metrics: AuditMetrics) {
    this.delegate = delegate;
    this.config = config;
    this.logger = logger;
    this.metrics = metrics;
    if (config.throttleEnable) this.throttle = new TokenBucket(config.throttleQPS, config.throttleBurst);
  }

  /** Events waiting in the queue. */
  get size(): number {
    return this.queue.length - this.head;
  }

  run(stop: Promise<void>): void | Promise<void> {
    this.start(stop);
    return this.delegate.run(stop);
  }

  private start(stop: Promise<void>): void {
    if (this.loopDone) return;
    void stop.then(() => this.stop());
    this.loopDone = this.loop();
  }

  private stop(): void {
    this.stopRequested = true;
    this.closed = true;
    this.wake?.();
  }

  processEvents(events: AuditEvent[]): boolean {
    if (!this.loopDone) this.start(never);
    for (let i = 0; i < events.length; i++) {
      if (this.closed) {
        handlePluginError(
          bufferedPluginName,
          new Error('audit backend shut down'),
          events.slice(i),
          this.logger,
          this.metrics,
        );
        return true;
      }
      if (this.size >= this.config.bufferSize) {
        handlePluginError(
          bufferedPluginName,
          new Error('audit buffer queue blocked'),
          events.slice(i),
          this.logger,
          this.metrics,
        );
        return true;
      }
      this.queue.push(events[i]!);
    }
    if (this.wake && (this.waitingForFirst || this.size >= this.config.maxBatchSize)) this.wake();
    return true;
  }

  private take(n: number): AuditEvent[] {
    const batch = this.queue.slice(this.head, this.head + n);
    this.head += batch.length;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return batch;
  }

  /** Waits until processEvents or stop wakes the loop, or `ms` passes. */
  private async sleep(ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      if (ms !== Infinity) timer = setTimeout(resolve, ms);
    });
    this.wake = undefined;
    if (timer !== undefined) clearTimeout(timer);
  }

  /**
   * Collects a batch: waits for a first event, then (batching on) until the batch is full or
   * maxBatchWait has passed since that event, or a stop. Never spins when idle.
   */
  private async collect(): Promise<AuditEvent[]> {
    const { maxBatchSize, maxBatchWait } = this.config;
    while (this.size === 0 && !this.stopRequested) {
      this.waitingForFirst = true;
      await this.sleep(Infinity);
      this.waitingForFirst = false;
    }
    if (maxBatchSize > 1) {
      const deadline = performance.now() + maxBatchWait;
      while (this.size < maxBatchSize && !this.stopRequested) {
        const left = deadline - performance.now();
        if (left <= 0) break;
        await this.sleep(left);
      }
    }
    return this.take(Math.min(this.size, maxBatchSize));
  }

  private async loop(): Promise<void> {
    for (;;) {
      const batch = await this.collect();
      if (batch.length) await this.dispatch(batch);
      if (this.stopRequested && this.size === 0) break;
    }
  }

  private async dispatch(batch: AuditEvent[]): Promise<void> {
    if (this.throttle) await this.throttle.accept();
    const send = this.send(batch);
    if (this.config.asyncDelegate) return;
    // A synchronous delegate (the log file) gets every batch queued right now, in order, before
    // the loop waits: its writes coalesce instead of taking one round trip per event.
    const sends = [send];
    while (this.size) {
      if (this.throttle) await this.throttle.accept();
      sends.push(this.send(this.take(this.config.maxBatchSize)));
    }
    await Promise.all(sends);
  }

  /** Hands a batch to the delegate; tracked until done, so shutdown and flush can wait for it. */
  private send(batch: AuditEvent[]): Promise<void> {
    const p = (async () => {
      try {
        await this.delegate.processEvents(batch);
      } catch (err) {
        handlePluginError(bufferedPluginName, err, batch, this.logger, this.metrics);
      }
    })();
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p));
    return p;
  }

  /**
   * Sends what is queued now, without waiting for a batch to fill, and resolves once it and
   * every batch in flight were delivered (or counted as failed). The sends start from the
   * caller: edge runtimes tie I/O to the request that starts it, so each request's waitUntil
   * sends the events waiting at its end.
   */
  async flush(): Promise<void> {
    const sends: Promise<void>[] = [];
    while (this.size) sends.push(this.send(this.take(this.config.maxBatchSize)));
    while (sends.length || this.inflight.size) {
      await Promise.all([...sends.splice(0), ...this.inflight]);
    }
    await this.delegate.flush?.();
  }

  /** Drains the queue (the stop signal must have fired, or this fires it), then the delegate. */
  async shutdown(): Promise<void> {
    if (this.loopDone) {
      if (!this.stopRequested) this.stop();
      await this.loopDone;
      while (this.inflight.size) await Promise.all([...this.inflight]);
    } else this.closed = true;
    await this.delegate.shutdown();
  }

  toString(): string {
    return `${bufferedPluginName}<${this.delegate}>`;
  }
}
