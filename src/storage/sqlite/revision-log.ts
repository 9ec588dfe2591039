// The revision log over SQL: etcd's KV semantics (src/storage/kv.ts) on one append-only table whose
// row id is the revision — kine's design (k3s-io/kine pkg/drivers/generic, pkg/logstructured/sqllog),
// written anew for one process that is the only writer of its database:
// - a write is one INSERT (the key's latest row read just before it in the same synchronous turn);
//   UNIQUE (name, prev_revision) still refuses a second writer that read the same row;
// - watchers are fed in-process, in the same turn as the write (./watcher.ts), no polling;
// - compaction deletes superseded rows in small transactions, keeping the last `compactMinRetain`
//   revisions, when the storage compactor calls compact() (its --etcd-compaction-interval);
// - keys written with a TTL are deleted (a DELETE event) when it runs out, as kine's TTL loop does.
import type { MaybePromise } from '../../util/maybe-promise.ts';
import {
  CompactedError,
  FutureRevisionError,
  ValueTooLargeError,
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
import { bytesOf, numberOf, type SQLDriver, type SQLRow } from './driver.ts';
import {
  AFTER_SQL,
  BOOTSTRAP_KEY,
  COMPACT_SQL,
  COUNT_SQL,
  INSERT_SQL,
  LATEST_AT_SQL,
  LATEST_SQL,
  LIST_SQL,
  SCHEMA,
  TTL_KEYS_SQL,
} from './schema.ts';
import { Watcher, type WatchSource } from './watcher.ts';

export interface RevisionLogOptions {
  /** Revisions compaction never removes, counted back from the current one (kine's --compact-min-retain). */
  compactMinRetain?: number;
  /** Revisions compacted per transaction (kine's --compact-batch-size). */
  compactBatchSize?: number;
  /** Idle time after which a watch that asked for progress gets a progress notification (kine: 5 s). */
  progressIntervalMs?: number;
  /** Largest key + value in bytes; defaults to the driver's row limit, else 64 MiB. */
  maxRowBytes?: number;
  /** How often keys with a TTL are checked for expiry. */
  ttlSweepMs?: number;
  /** Events a slow watcher may have queued before it goes back to reading the table. */
  watchQueueLimit?: number;
  /**
   * WAL checkpoint (TRUNCATE) interval where the driver has a WAL, besides the one after each
   * compaction, so the WAL file shrinks back even when compaction is off; 0 disables. Default 5 min.
   */
  checkpointIntervalMs?: number;
}

export const DEFAULT_COMPACT_MIN_RETAIN = 1000;
const DEFAULT_MAX_ROW_BYTES = 64 * 1024 * 1024;
const WATCH_BATCH = 500;
const CHANGED_SINCE_SQL = 'SELECT id FROM kv_log WHERE id > ? AND id <= ? AND +name >= ? AND +name < ? LIMIT 1';

/** A value too large for one row (a Durable Object stores at most 2 MB per row): the seam's error. */
export { ValueTooLargeError };

interface Row {
  id: number;
  name: string;
  created: boolean;
  deleted: boolean;
  createRevision: number;
  lease: number;
  value: Uint8Array;
}

function toRow(r: SQLRow): Row {
  const id = numberOf(r.id);
  const created = numberOf(r.created) === 1;
  return {
    id,
    name: String(r.name),
    created,
    deleted: numberOf(r.deleted) === 1,
    createRevision: created ? id : numberOf(r.create_revision),
    lease: numberOf(r.lease),
    value: bytesOf(r.value),
  };
}

function toKV(r: Row): KeyValue {
  const kv: KeyValue = { key: r.name, value: r.value, createRevision: r.createRevision, modRevision: r.id };
  if (r.lease > 0) kv.ttlSeconds = r.lease;
  return kv;
}

const EMPTY = new Uint8Array(0);
const MAX_TTL_SECONDS = 10 * 365 * 24 * 3600;

function validTTL(ttl: number | undefined): number {
  if (ttl === undefined || ttl === 0) return 0;
  if (!Number.isSafeInteger(ttl) || ttl < 0 || ttl > MAX_TTL_SECONDS)
    throw new RangeError(`invalid ttlSeconds: ${ttl}`);
  return ttl;
}

function isUniqueViolation(err: unknown): boolean {
  return err instanceof Error && /UNIQUE constraint failed/i.test(err.message);
}

export class RevisionLog implements KV, WatchSource {
  private readonly db: SQLDriver;
  private readonly retain: number;
  private readonly batchSize: number;
  private readonly progressMs: number;
  private readonly maxRow: number;
  private readonly ttlSweepMs: number;
  private readonly queueLimit: number;
  private rev = 0;
  private compacted = 0;
  private closed = false;
  private compacting: Promise<void> | undefined;
  private readonly watchers = new Set<Watcher>();
  /** Keys with a TTL: key → [modRevision, expiry (ms since epoch)]. */
  private readonly ttl = new Map<string, [number, number]>();
  private ttlTimer: ReturnType<typeof setTimeout> | undefined;
  private checkpointTimer: ReturnType<typeof setInterval> | undefined;

  constructor(db: SQLDriver, opts: RevisionLogOptions = {}) {
    this.db = db;
    this.retain = Math.max(0, opts.compactMinRetain ?? DEFAULT_COMPACT_MIN_RETAIN);
    this.batchSize = Math.max(1, opts.compactBatchSize ?? 1000);
    this.progressMs = opts.progressIntervalMs ?? 5000;
    this.maxRow = opts.maxRowBytes ?? db.maxRowBytes ?? DEFAULT_MAX_ROW_BYTES;
    this.ttlSweepMs = opts.ttlSweepMs ?? 1000;
    this.queueLimit = opts.watchQueueLimit ?? 10_000;
    db.transaction(() => {
      for (const stmt of SCHEMA) db.run(stmt);
      const meta = db.exec("SELECT value FROM kv_meta WHERE name = 'compact_revision'");
      if (!meta.length) db.run("INSERT INTO kv_meta (name, value) VALUES ('compact_revision', 0)");
      this.compacted = meta.length ? numberOf(meta[0]!.value) : 0;
      const max = numberOf(db.exec('SELECT MAX(id) AS id FROM kv_log')[0]?.id);
      if (max === 0 && this.compacted === 0) {
        // The bootstrap row: revision 1, so the first resourceVersion is ≥ 1 and never "0" (unset).
        db.run(INSERT_SQL, [1, BOOTSTRAP_KEY, 0, 1, 0, 0, 0, null]);
        this.rev = 1;
      } else {
        // Compaction may have removed the newest row (a tombstone); it never removes rows above the
        // compacted revision, so the current revision is the larger of the two.
        this.rev = Math.max(max, this.compacted);
      }
    });
    // As kine after a restart: each key with a TTL gets its full TTL again from now.
    const now = Date.now();
    for (const r of db.exec(TTL_KEYS_SQL)) {
      this.ttl.set(String(r.name), [numberOf(r.id), now + numberOf(r.lease) * 1000]);
    }
    this.armTTL();
    const every = opts.checkpointIntervalMs ?? 300_000;
    if (db.checkpoint && every > 0) {
      const t = setInterval(() => this.checkpoint(), every);
      (t as { unref?: () => void }).unref?.();
      this.checkpointTimer = t;
    }
  }

  // --- reads ---

  private checkRevision(revision: number | undefined): void {
    if (!revision) return;
    if (revision > this.rev) throw new FutureRevisionError(this.rev);
    if (revision <= this.compacted) throw new CompactedError(this.compacted, this.rev);
  }

  private latest(key: string, revision?: number): Row | undefined {
    const rows = revision ? this.db.exec(LATEST_AT_SQL, [key, revision]) : this.db.exec(LATEST_SQL, [key]);
    return rows.length ? toRow(rows[0]!) : undefined;
  }

  private ensureOpen(): void {
    if (this.closed) throw new Error('storage engine is closed');
  }

  get(key: string, opts: { revision?: number } = {}): MaybePromise<GetResult> {
    try {
      this.ensureOpen();
      this.checkRevision(opts.revision);
      const row = this.latest(key, opts.revision);
      return row && !row.deleted ? { revision: this.rev, kv: toKV(row) } : { revision: this.rev };
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.ensureOpen();
    this.checkRevision(opts.revision);
    const at = opts.revision || this.rev;
    const end = prefixRangeEnd(prefix);
    const start = opts.startKey && opts.startKey > prefix ? opts.startKey : prefix;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : -1;
    const kvs = this.db.exec(LIST_SQL, [start, end, at, at, limit]).map((r) => toKV(toRow(r)));
    // Without a limit, or when the page is not full, the page is the count.
    const count =
      limit < 0 || kvs.length < limit ? kvs.length : numberOf(this.db.exec(COUNT_SQL, [start, end, at, at])[0]?.n);
    return { revision: at, kvs, count };
  }

  async count(prefix: string): Promise<{ revision: number; count: number }> {
    this.ensureOpen();
    const n = this.db.exec(COUNT_SQL, [prefix, prefixRangeEnd(prefix), this.rev, this.rev])[0]?.n;
    return { revision: this.rev, count: numberOf(n) };
  }

  async currentRevision(): Promise<number> {
    this.ensureOpen();
    return this.rev;
  }

  compactRevision(): number {
    return this.compacted;
  }

  async unchangedSince(prefix: string, sinceRevision: number, _count: number): Promise<number | undefined> {
    this.ensureOpen();
    // Every write (a delete too) is a row: none under the prefix after sinceRevision means no change.
    // The scan walks ids from sinceRevision (unary + keeps the planner off the name index). Below
    // the compacted revision rows may be gone: no answer.
    if (sinceRevision < this.compacted) return undefined;
    const at = this.rev;
    const rows = this.db.exec(CHANGED_SINCE_SQL, [sinceRevision, at, prefix, prefixRangeEnd(prefix)]);
    return rows.length ? undefined : at;
  }

  /** WatchSource: the current revision, synchronously. */
  headRevision(): number {
    return this.rev;
  }

  async readinessCheck(): Promise<void> {
    this.ensureOpen();
    this.db.exec('SELECT 1 AS ok');
  }

  // --- writes ---

  private checkValue(key: string, value: Uint8Array): void {
    if (!(value instanceof Uint8Array)) throw new TypeError('value must be a Uint8Array');
    if (typeof key !== 'string' || key === BOOTSTRAP_KEY) throw new TypeError('key must be a non-empty string');
    // Keys are stored as UTF-8; a UTF-16 code unit takes at most 3 bytes.
    const size = value.byteLength + key.length * 3;
    if (size > this.maxRow) throw new ValueTooLargeError(key, value.byteLength, this.maxRow);
  }

  /** Appends one row; returns its revision, or undefined when another writer appended first. */
  private append(
    key: string,
    created: boolean,
    deleted: boolean,
    prev: Row | undefined,
    lease: number,
    value: Uint8Array | null,
  ): number | undefined {
    const createRevision = created || !prev ? 0 : prev.createRevision;
    const id = this.rev + 1;
    try {
      this.db.run(INSERT_SQL, [id, key, created ? 1 : 0, deleted ? 1 : 0, createRevision, prev?.id ?? 0, lease, value]);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // Another writer on the file took the revision or appended after `prev`.
      this.rev = Math.max(this.rev, numberOf(this.db.exec('SELECT MAX(id) AS id FROM kv_log')[0]?.id));
      return undefined;
    }
    this.rev = id;
    return id;
  }

  private failed(key: string): TxnResult {
    const row = this.latest(key);
    return row && !row.deleted
      ? { succeeded: false, revision: this.rev, kv: toKV(row) }
      : { succeeded: false, revision: this.rev };
  }

  async create(key: string, value: Uint8Array, opts: { ttlSeconds?: number } = {}): Promise<TxnResult> {
    this.ensureOpen();
    this.checkValue(key, value);
    const lease = validTTL(opts.ttlSeconds);
    const prev = this.latest(key);
    if (prev && !prev.deleted) return { succeeded: false, revision: this.rev, kv: toKV(prev) };
    const id = this.append(key, true, false, prev, lease, value);
    if (id === undefined) return this.failed(key);
    const kv: KeyValue = { key, value, createRevision: id, modRevision: id };
    if (lease) kv.ttlSeconds = lease;
    this.track(key, id, lease);
    this.emit({ type: 'PUT', kv });
    return { succeeded: true, revision: id };
  }

  async update(
    key: string,
    value: Uint8Array,
    expectedRevision: number,
    opts: { ttlSeconds?: number } = {},
  ): Promise<TxnResult> {
    if (expectedRevision === 0) return this.create(key, value, opts);
    this.ensureOpen();
    this.checkValue(key, value);
    const lease = validTTL(opts.ttlSeconds);
    const prev = this.latest(key);
    if (!prev || prev.deleted) return { succeeded: false, revision: this.rev };
    if (prev.id !== expectedRevision) return { succeeded: false, revision: this.rev, kv: toKV(prev) };
    const id = this.append(key, false, false, prev, lease, value);
    if (id === undefined) return this.failed(key);
    const kv: KeyValue = { key, value, createRevision: prev.createRevision, modRevision: id };
    if (lease) kv.ttlSeconds = lease;
    const prevKv = toKV(prev);
    this.track(key, id, lease);
    this.emit({ type: 'PUT', kv, prevKv });
    return { succeeded: true, revision: id, prevKv };
  }

  async delete(key: string, expectedRevision: number): Promise<TxnResult> {
    this.ensureOpen();
    const prev = this.latest(key);
    if (!prev || prev.deleted) return { succeeded: false, revision: this.rev };
    if (prev.id !== expectedRevision) return { succeeded: false, revision: this.rev, kv: toKV(prev) };
    return this.deleteRow(key, prev);
  }

  private deleteRow(key: string, prev: Row): TxnResult {
    const id = this.append(key, false, true, prev, 0, null);
    if (id === undefined) return this.failed(key);
    const prevKv = toKV(prev);
    this.ttl.delete(key);
    this.emit({ type: 'DELETE', kv: { key, value: EMPTY, createRevision: 0, modRevision: id }, prevKv });
    return { succeeded: true, revision: id, prevKv };
  }

  // --- TTL ---

  private track(key: string, id: number, lease: number): void {
    if (lease) {
      this.ttl.set(key, [id, Date.now() + lease * 1000]);
      this.armTTL();
    } else {
      this.ttl.delete(key);
    }
  }

  private armTTL(): void {
    if (this.ttlTimer !== undefined || !this.ttl.size || this.closed) return;
    const t = setTimeout(() => {
      this.ttlTimer = undefined;
      this.expire();
      this.armTTL();
    }, this.ttlSweepMs);
    // Node: the sweep alone keeps no process alive.
    (t as { unref?: () => void }).unref?.();
    this.ttlTimer = t;
  }

  private expire(): void {
    if (this.closed) return;
    const now = Date.now();
    for (const [key, [id, at]] of this.ttl) {
      if (at > now) continue;
      this.ttl.delete(key);
      const row = this.latest(key);
      // Only the write that carried the TTL expires; a later write has re-tracked (or untracked) the key.
      if (row && !row.deleted && row.id === id) this.deleteRow(key, row);
    }
  }

  // --- watch ---

  private emit(ev: WatchEvent): void {
    for (const w of this.watchers) if (ev.kv.key.startsWith(w.prefix)) w.push(ev);
  }

  watch(prefix: string, opts: WatchOptions): AsyncIterable<WatchResponse> {
    return {
      [Symbol.asyncIterator]: () => {
        if (!(opts.startRevision >= 1))
          throw new RangeError(`watch startRevision must be ≥ 1, got ${opts.startRevision}`);
        const w = new Watcher(this, {
          prefix,
          startRevision: opts.startRevision,
          progressIntervalMs: opts.progressNotify ? this.progressMs : undefined,
          signal: opts.signal,
          batch: WATCH_BATCH,
          queueLimit: this.queueLimit,
        });
        if (this.closed) w.fail(new Error('storage engine is closed'));
        else if (!opts.signal.aborted) this.watchers.add(w);
        return w;
      },
    };
  }

  /** WatchSource: history rows as events (catch-up). */
  readHistory(prefix: string, fromRevision: number, limit: number): WatchEvent[] {
    this.ensureOpen();
    if (fromRevision <= this.compacted) throw new CompactedError(this.compacted, this.rev);
    const rows = this.db.exec(AFTER_SQL, [prefix, prefixRangeEnd(prefix), fromRevision, limit]);
    return rows.map((r) => {
      const row = toRow(r);
      let prevKv: KeyValue | undefined;
      if (r.p_id !== null && r.p_id !== undefined) {
        prevKv = toKV({
          id: numberOf(r.p_id),
          name: row.name,
          created: numberOf(r.p_created) === 1,
          deleted: false,
          createRevision: numberOf(r.p_created) === 1 ? numberOf(r.p_id) : numberOf(r.p_create_revision),
          lease: numberOf(r.p_lease),
          value: bytesOf(r.p_value),
        });
      }
      if (row.deleted) {
        return { type: 'DELETE', kv: { key: row.name, value: EMPTY, createRevision: 0, modRevision: row.id }, prevKv };
      }
      const ev: WatchEvent = { type: 'PUT', kv: toKV(row) };
      if (prevKv) ev.prevKv = prevKv;
      return ev;
    });
  }

  unregister(w: Watcher): void {
    this.watchers.delete(w);
  }

  // --- compaction ---

  /**
   * Compacts to `revision`, or to `compactMinRetain` revisions before the current one when that is
   * lower, in transactions of `compactBatchSize` revisions with a turn of the event loop between
   * them; then checkpoints the WAL. A revision at or below the compacted one is a no-op.
   */
  async compact(revision: number): Promise<void> {
    this.ensureOpen();
    if (revision > this.rev) throw new FutureRevisionError(this.rev);
    while (this.compacting) await this.compacting;
    const target = Math.min(revision, this.rev - this.retain);
    if (target <= this.compacted) return;
    const run = this.compactTo(target);
    this.compacting = run;
    try {
      await run;
    } finally {
      this.compacting = undefined;
    }
  }

  private async compactTo(target: number): Promise<void> {
    let batches = 0;
    while (this.compacted < target && !this.closed) {
      if (batches++) await new Promise((r) => setTimeout(r, 0));
      if (this.closed) return;
      const from = this.compacted;
      const to = Math.min(from + this.batchSize, target);
      this.db.transaction(() => {
        this.db.run(COMPACT_SQL, [from, to, from, to]);
        this.db.run("UPDATE kv_meta SET value = ? WHERE name = 'compact_revision'", [to]);
      });
      // A watcher still catching up below `to` fails on its next table read (readHistory).
      this.compacted = to;
    }
    this.checkpoint();
  }

  /** PRAGMA wal_checkpoint(TRUNCATE) where the driver has a WAL (after compaction, periodically, on close). */
  checkpoint(): void {
    if (this.closed) return;
    try {
      this.db.checkpoint?.();
    } catch {
      // SQLITE_BUSY with a reader on another connection: the next checkpoint catches up.
    }
  }

  /** Database size in bytes, where the driver can tell. */
  databaseSize(): number | undefined {
    return this.db.size?.();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    while (this.compacting) await this.compacting.catch(() => {});
    this.checkpoint();
    this.closed = true;
    if (this.ttlTimer !== undefined) clearTimeout(this.ttlTimer);
    this.ttlTimer = undefined;
    if (this.checkpointTimer !== undefined) clearInterval(this.checkpointTimer);
    const err = new Error('storage engine is closed');
    for (const w of [...this.watchers]) w.fail(err);
    this.watchers.clear();
    this.db.close();
  }
}

/** The revision log over `db` (see RevisionLogOptions). */
export function newRevisionLog(db: SQLDriver, opts?: RevisionLogOptions): RevisionLog {
  return new RevisionLog(db, opts);
}
