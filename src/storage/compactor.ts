// The compactor of k8s.io/apiserver/pkg/storage/etcd3/compact.go: every interval, compact to the
// revision seen at the previous tick, so history of at least one interval is always kept. Several
// servers on one etcd coordinate inside the etcd engine's compact() (the compact_rev_key txn).

import { CompactedError, type KV } from './kv.ts';

/** storagebackend.DefaultCompactInterval: 5 minutes (`--etcd-compaction-interval`). */
export const DefaultCompactIntervalMs = 5 * 60 * 1000;

export interface CompactorOptions {
  intervalMs?: number;
  /** Told about failures (the loop keeps going). */
  onError?: (err: unknown) => void;
  /** Told about each compaction. */
  onCompact?: (revision: number) => void;
}

export class Compactor {
  private readonly kv: KV;
  private readonly intervalMs: number;
  private readonly onError?: (err: unknown) => void;
  private readonly onCompact?: (revision: number) => void;
  private timer?: ReturnType<typeof setInterval>;
  /** The revision seen at the previous tick: the next tick compacts to it. */
  private lastRev = 0;
  private running?: Promise<void>;

  constructor(kv: KV, opts: CompactorOptions = {}) {
    this.kv = kv;
    this.intervalMs = opts.intervalMs ?? DefaultCompactIntervalMs;
    this.onError = opts.onError;
    this.onCompact = opts.onCompact;
  }

  /** Starts the loop; an interval of 0 disables compaction (as upstream's flag does). */
  start(): void {
    if (this.timer || this.intervalMs <= 0) return;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One round of compact.go's loop (exposed for tests and for platforms that schedule it themselves). */
  tick(): Promise<void> {
    if (this.running) return this.running;
    this.running = (async () => {
      try {
        const current = await this.kv.currentRevision();
        const target = this.lastRev;
        this.lastRev = current;
        if (target > 0 && target > this.kv.compactRevision()) {
          await this.kv.compact(target);
          this.onCompact?.(target);
        }
      } catch (err) {
        // Another server compacted further already: nothing to do.
        if (!(err instanceof CompactedError || (err as Error)?.name === 'CompactedError')) this.onError?.(err);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }
}
