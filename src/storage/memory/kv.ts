// The memory engine: the reference implementation of the KV seam's semantics (src/storage/kv.ts),
// modelled on etcd's mvcc store (go.etcd.io/etcd/server/storage/mvcc): one global revision, every
// key's versions kept until compaction, watches replayed from the event log then fed live, progress
// notifications, leases as per-key TTLs. For tests and for embedders who want no persistence.
//
// Compaction follows etcd: after compact(r) the state at r stays readable; reads below r fail with
// CompactedError; a watch must start above r (events at and below r are gone).

import type { MaybePromise } from '../../util/maybe-promise.ts';
import {
  CompactedError,
  FutureRevisionError,
  prefixRangeEnd,
  type GetResult,
  type KV,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type TxnResult,
  type WatchEvent,
  type WatchOptions,
  type WatchResponse,
} from '../kv.ts';
import { SortedKeys } from '../sorted-keys.ts';

interface Version {
  modRevision: number;
  createRevision: number;
  /** Absent for a tombstone (the key was deleted at modRevision). */
  value?: Uint8Array;
  ttlSeconds?: number;
}

export interface MemoryKVOptions {
  /**
   * Idle watchers that asked for progress notifications get one at least this often (etcd's
   * --experimental-watch-progress-notify-interval, 10 minutes there). They also get one soon after
   * any write outside their prefix, so a watcher learns the current revision without polling.
   */
  progressNotifyIntervalMs?: number;
  /** Events per watch response when replaying history. */
  replayBatch?: number;
  /**
   * Answer KV.unchangedSince from the event log (the server's memory engine does). Without it the
   * watch cache's consistent read waits for the progress notification of a foreign write, which a
   * timer delivers; on workerd a timer set by a request that has ended never fires, so such a read
   * by background work (the RBAC bootstrap hook, started by the isolate's first request) never resolved.
   */
  unchangedSince?: boolean;
}

type Timer = ReturnType<typeof setTimeout>;

function unref(t: Timer): Timer {
  (t as { unref?: () => void }).unref?.();
  return t;
}

/** The version of a key visible at revision `rev` (latest with modRevision ≤ rev), tombstones included. */
function versionAt(versions: Version[], rev: number): Version | undefined {
  for (let i = versions.length - 1; i >= 0; i--) {
    if (versions[i]!.modRevision <= rev) return versions[i];
  }
  return undefined;
}

function toKeyValue(key: string, v: Version): KeyValue {
  const kv: KeyValue = { key, value: v.value!, createRevision: v.createRevision, modRevision: v.modRevision };
  if (v.ttlSeconds) kv.ttlSeconds = v.ttlSeconds;
  return kv;
}

interface LoggedEvent {
  revision: number;
  event: WatchEvent;
}

class MemoryWatcher {
  readonly prefix: string;
  readonly startRevision: number;
  readonly progressNotify: boolean;
  private queue: WatchResponse[] = [];
  private wake?: () => void;
  private error?: Error;
  private done = false;
  /** Revision of the last response queued (event or progress). */
  sentRevision = 0;
  lastSendAt = Date.now();
  progressPending = false;

  constructor(prefix: string, startRevision: number, progressNotify: boolean) {
    this.prefix = prefix;
    this.startRevision = startRevision;
    this.progressNotify = progressNotify;
  }

  push(resp: WatchResponse): void {
    if (this.done || this.error) return;
    this.queue.push(resp);
    this.sentRevision = resp.revision;
    this.lastSendAt = Date.now();
    this.signal();
  }

  fail(err: Error): void {
    if (this.done || this.error) return;
    this.error = err;
    this.signal();
  }

  finish(): void {
    this.done = true;
    this.signal();
  }

  private signal(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  async *iterate(onEnd: () => void): AsyncGenerator<WatchResponse> {
    try {
      for (;;) {
        if (this.queue.length) {
          yield this.queue.shift()!;
          continue;
        }
        if (this.error) throw this.error;
        if (this.done) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      this.done = true;
      onEnd();
    }
  }
}

export class MemoryKV implements KV {
  private rev = 1;
  private compacted = 0;
  private readonly versions = new Map<string, Version[]>();
  /** Every key with versions, sorted (UTF-16 order, which is byte order for the ASCII keys the store writes). */
  private readonly sortedKeys = new SortedKeys();
  /** Events with revision > logStart, in order; log[i].revision === logStart + 1 + i. */
  private log: LoggedEvent[] = [];
  private logStart = 1;
  private readonly watchers = new Set<MemoryWatcher>();
  private readonly leases = new Map<string, Timer>();
  private closed = false;
  private progressFlush?: Timer;
  private progressTicker?: Timer;
  private readonly progressIntervalMs: number;
  private readonly replayBatch: number;

  /** KV.unchangedSince when MemoryKVOptions.unchangedSince is set. */
  readonly unchangedSince?: (prefix: string, sinceRevision: number, count: number) => Promise<number | undefined>;

  constructor(opts: MemoryKVOptions = {}) {
    this.progressIntervalMs = opts.progressNotifyIntervalMs ?? 10 * 60 * 1000;
    this.replayBatch = opts.replayBatch ?? 1000;
    if (opts.unchangedSince) this.unchangedSince = async (prefix, since) => this.unchangedRevision(prefix, since);
  }

  get(key: string, opts: { revision?: number } = {}): MaybePromise<GetResult> {
    try {
      this.checkOpen();
      const at = this.readRevision(opts.revision);
      const versions = this.versions.get(key);
      const v = versions && versionAt(versions, at);
      if (!v || !v.value) return { revision: this.rev };
      return { revision: this.rev, kv: toKeyValue(key, v) };
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    const at = this.readRevision(opts.revision);
    const end = prefixRangeEnd(prefix);
    const start = opts.startKey && opts.startKey > prefix ? opts.startKey : prefix;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const kvs: KeyValue[] = [];
    let count = 0;
    for (const key of this.sortedKeys.from(start)) {
      if (key >= end) break;
      const v = versionAt(this.versions.get(key)!, at);
      if (!v || !v.value) continue;
      count++;
      if (kvs.length < limit) kvs.push(toKeyValue(key, v));
    }
    return { revision: at, kvs, count };
  }

  async count(prefix: string): Promise<{ revision: number; count: number }> {
    const { revision, count } = await this.list(prefix, { limit: 1 });
    return { revision, count };
  }

  async create(key: string, value: Uint8Array, opts: { ttlSeconds?: number } = {}): Promise<TxnResult> {
    this.checkOpen();
    const cur = this.live(key);
    if (cur) return { succeeded: false, revision: this.rev, kv: toKeyValue(key, cur) };
    return this.put(key, value, undefined, opts.ttlSeconds);
  }

  async update(
    key: string,
    value: Uint8Array,
    expectedRevision: number,
    opts: { ttlSeconds?: number } = {},
  ): Promise<TxnResult> {
    this.checkOpen();
    const cur = this.live(key);
    if ((cur?.modRevision ?? 0) !== expectedRevision) {
      return { succeeded: false, revision: this.rev, kv: cur && toKeyValue(key, cur) };
    }
    return this.put(key, value, cur, opts.ttlSeconds);
  }

  async delete(key: string, expectedRevision: number): Promise<TxnResult> {
    this.checkOpen();
    const cur = this.live(key);
    if ((cur?.modRevision ?? 0) !== expectedRevision) {
      return { succeeded: false, revision: this.rev, kv: cur && toKeyValue(key, cur) };
    }
    // etcd: a delete of an absent key under a true compare changes nothing and keeps the revision.
    if (!cur) return { succeeded: true, revision: this.rev };
    const prevKv = this.remove(key, cur);
    return { succeeded: true, revision: this.rev, prevKv };
  }

  watch(prefix: string, opts: WatchOptions): AsyncIterable<WatchResponse> {
    const w = new MemoryWatcher(prefix, Math.max(1, opts.startRevision), !!opts.progressNotify);
    if (this.closed) {
      w.fail(new Error('memory engine closed'));
    } else if (w.startRevision <= this.compacted) {
      w.fail(new CompactedError(this.compacted, this.rev));
    } else {
      // Replay what the log holds from startRevision on, then register for live events; both happen
      // synchronously here, so nothing written in between is lost.
      const first = Math.max(0, w.startRevision - this.logStart - 1);
      let batch: WatchEvent[] = [];
      let batchRev = 0;
      for (let i = first; i < this.log.length; i++) {
        const { revision, event } = this.log[i]!;
        if (!event.kv.key.startsWith(prefix)) continue;
        batch.push(event);
        batchRev = revision;
        if (batch.length >= this.replayBatch) {
          w.push({ revision: batchRev, events: batch });
          batch = [];
        }
      }
      if (batch.length) w.push({ revision: batchRev, events: batch });
      if (opts.signal.aborted) w.finish();
      else {
        this.watchers.add(w);
        opts.signal.addEventListener('abort', () => w.finish(), { once: true });
        if (w.progressNotify) this.ensureProgressTicker();
      }
    }
    const iterable = { [Symbol.asyncIterator]: () => w.iterate(() => this.watchers.delete(w)) };
    return iterable;
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    return this.rev;
  }

  /** The current revision when nothing under `prefix` was written after sinceRevision. */
  private unchangedRevision(prefix: string, sinceRevision: number): number | undefined {
    this.checkOpen();
    // The log holds every write after logStart; before it (compacted) there is no answer.
    if (sinceRevision < this.logStart) return undefined;
    for (let i = sinceRevision - this.logStart; i < this.log.length; i++) {
      if (this.log[i]!.event.kv.key.startsWith(prefix)) return undefined;
    }
    return this.rev;
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    if (revision <= this.compacted) throw new CompactedError(this.compacted, this.rev);
    if (revision > this.rev) throw new FutureRevisionError(this.rev);
    this.compacted = revision;
    const drop = Math.min(this.log.length, revision - this.logStart);
    if (drop > 0) {
      this.log = this.log.slice(drop);
      this.logStart = revision;
    }
    const gone: string[] = [];
    for (const [key, versions] of this.versions) {
      let keep = -1;
      for (let i = versions.length - 1; i >= 0; i--) {
        if (versions[i]!.modRevision <= revision) {
          keep = i;
          break;
        }
      }
      if (keep < 0) continue;
      // The version visible at `revision` stays unless it is a tombstone.
      const from = versions[keep]!.value ? keep : keep + 1;
      if (from > 0) versions.splice(0, from);
      if (!versions.length) gone.push(key);
    }
    if (gone.length) {
      for (const key of gone) {
        this.versions.delete(key);
        this.sortedKeys.delete(key);
      }
    }
  }

  compactRevision(): number {
    return this.compacted;
  }

  async readinessCheck(): Promise<void> {
    this.checkOpen();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.leases.values()) clearTimeout(t);
    this.leases.clear();
    if (this.progressFlush) clearTimeout(this.progressFlush);
    if (this.progressTicker) clearInterval(this.progressTicker);
    for (const w of this.watchers) w.fail(new Error('memory engine closed'));
    this.watchers.clear();
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('memory engine closed');
  }

  /** Validates a read revision (etcd's ErrCompacted / ErrFutureRev) and resolves 0 to the latest. */
  private readRevision(revision: number | undefined): number {
    if (!revision || revision <= 0) return this.rev;
    if (revision > this.rev) throw new FutureRevisionError(this.rev);
    if (revision < this.compacted) throw new CompactedError(this.compacted, this.rev);
    return revision;
  }

  private live(key: string): Version | undefined {
    const versions = this.versions.get(key);
    const last = versions?.[versions.length - 1];
    return last?.value ? last : undefined;
  }

  private addVersion(key: string, v: Version): void {
    let versions = this.versions.get(key);
    if (!versions) {
      versions = [];
      this.versions.set(key, versions);
      this.sortedKeys.insert(key);
    }
    versions.push(v);
  }

  private put(key: string, value: Uint8Array, cur: Version | undefined, ttlSeconds?: number): TxnResult {
    const revision = ++this.rev;
    const v: Version = {
      modRevision: revision,
      createRevision: cur ? cur.createRevision : revision,
      value: value.slice(),
    };
    if (ttlSeconds && ttlSeconds > 0) v.ttlSeconds = ttlSeconds;
    this.addVersion(key, v);
    this.setLease(key, v);
    const prevKv = cur && toKeyValue(key, cur);
    const event: WatchEvent = { type: 'PUT', kv: toKeyValue(key, v) };
    if (prevKv) event.prevKv = prevKv;
    this.emit(revision, event);
    return prevKv ? { succeeded: true, revision, prevKv } : { succeeded: true, revision };
  }

  private remove(key: string, cur: Version): KeyValue {
    const revision = ++this.rev;
    this.addVersion(key, { modRevision: revision, createRevision: 0 });
    this.setLease(key, undefined);
    const prevKv = toKeyValue(key, cur);
    this.emit(revision, {
      type: 'DELETE',
      kv: { key, value: new Uint8Array(0), createRevision: 0, modRevision: revision },
      prevKv,
    });
    return prevKv;
  }

  /** A TTL acts as a lease bound to this version: it expires unless the key is written again first. */
  private setLease(key: string, v: Version | undefined): void {
    const old = this.leases.get(key);
    if (old) {
      clearTimeout(old);
      this.leases.delete(key);
    }
    if (!v?.ttlSeconds) return;
    const modRevision = v.modRevision;
    const timer = setTimeout(() => {
      this.leases.delete(key);
      const cur = this.live(key);
      if (!this.closed && cur && cur.modRevision === modRevision) this.remove(key, cur);
    }, v.ttlSeconds * 1000);
    this.leases.set(key, unref(timer));
  }

  private emit(revision: number, event: WatchEvent): void {
    this.log.push({ revision, event });
    let foreign = false;
    for (const w of this.watchers) {
      if (event.kv.key.startsWith(w.prefix)) {
        if (revision >= w.startRevision) w.push({ revision, events: [event] });
      } else if (w.progressNotify) {
        w.progressPending = true;
        foreign = true;
      }
    }
    if (foreign && !this.progressFlush) {
      this.progressFlush = setTimeout(() => this.flushProgress(false), 0);
      unref(this.progressFlush);
    }
  }

  private flushProgress(idleOnly: boolean): void {
    this.progressFlush = undefined;
    const now = Date.now();
    for (const w of this.watchers) {
      if (!w.progressNotify) continue;
      const due = idleOnly ? now - w.lastSendAt >= this.progressIntervalMs : w.progressPending;
      if (!due) continue;
      w.progressPending = false;
      // Only once the watcher has been sent everything up to here (a future start waits).
      if (this.rev >= w.startRevision - 1) w.push({ revision: this.rev, events: [] });
    }
  }

  private ensureProgressTicker(): void {
    if (this.progressTicker) return;
    const every = Math.max(10, Math.min(this.progressIntervalMs, 1000));
    this.progressTicker = setInterval(() => {
      if (!this.watchers.size) return;
      this.flushProgress(true);
    }, every);
    unref(this.progressTicker);
  }
}
