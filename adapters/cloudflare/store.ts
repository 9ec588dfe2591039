// The storage engine on Cloudflare: a Durable Object (SQLite-backed) holding the revision log of
// src/storage/sqlite/ over ctx.storage.sql. One object is the single writer of its database; its
// statements are synchronous (cursors consumed before any await), a compaction batch runs in
// transactionSync, and a row holds at most 2 MB (key + value), so larger values are refused.
// Workers reach it by RPC through ./store-client.ts (durableObjectKV); a watch is an RpcTarget
// whose next() the client calls in a loop.
//
// wrangler.toml:
//   [[durable_objects.bindings]]
//   name = "STORE"
//   class_name = "Store"
//   [[migrations]]
//   tag = "v1"
//   new_sqlite_classes = ["Store"]
import { DurableObject, RpcTarget, type DurableObjectState, type DurableObjectStorage } from 'cloudflare:workers';
import { CompactedError, FutureRevisionError, type ListOptions, type WatchResponse } from '../../src/storage/kv.ts';
import type { SQLDriver, SQLRow, SQLValue } from '../../src/storage/sqlite/driver.ts';
import { RevisionLog, ValueTooLargeError, type RevisionLogOptions } from '../../src/storage/sqlite/revision-log.ts';
import type { MaybePromise } from '../../src/util/maybe-promise.ts';

/** A Durable Object's row limit (2 MB), less room for the row's other columns. */
export const DURABLE_OBJECT_MAX_ROW_BYTES = 2_000_000 - 1024;

function bindings(params: readonly SQLValue[] | undefined): unknown[] {
  if (!params) return [];
  // Bound BLOBs go in as ArrayBuffer, the type ctx.storage.sql reads and writes.
  return params.map((p) =>
    p instanceof Uint8Array
      ? p.buffer.slice(p.byteOffset, p.byteOffset + p.byteLength)
      : typeof p === 'bigint'
        ? Number(p)
        : p,
  );
}

/** The driver seam over a Durable Object's storage (no PRAGMAs there; the platform runs its own log). */
export function durableObjectDriver(storage: DurableObjectStorage): SQLDriver {
  return {
    exec: (sql, params) => storage.sql.exec(sql, ...bindings(params)).toArray() as SQLRow[],
    run: (sql, params) => void storage.sql.exec(sql, ...bindings(params)).toArray(),
    transaction: (fn) => storage.transactionSync(fn),
    size: () => storage.sql.databaseSize,
    maxRowBytes: DURABLE_OBJECT_MAX_ROW_BYTES,
    close: () => {},
  };
}

/** An error as a value: classes and their fields do not cross RPC. */
export interface WireError {
  name: string;
  message: string;
  compactRevision?: number;
  currentRevision?: number;
  limit?: number;
  size?: number;
}

/** Every answer of the Store: the result or the error, and the engine's compacted revision. */
export type Wire<T> = { ok: T; compacted: number } | { error: WireError; compacted: number };

function toWireError(err: unknown): WireError {
  if (err instanceof CompactedError) {
    return {
      name: 'CompactedError',
      message: err.message,
      compactRevision: err.compactRevision,
      currentRevision: err.currentRevision,
    };
  }
  if (err instanceof FutureRevisionError) {
    return { name: 'FutureRevisionError', message: err.message, currentRevision: err.currentRevision };
  }
  if (err instanceof ValueTooLargeError)
    return { name: err.name, message: err.message, limit: err.limit, size: err.size };
  if (err instanceof Error) return { name: err.name, message: err.message };
  return { name: 'Error', message: String(err) };
}

/** A watch served over RPC: the Worker calls next() until it gets `null` (ended) or an error. */
export class WatchCursor extends RpcTarget {
  private readonly it: AsyncIterator<WatchResponse>;
  private readonly ac: AbortController;
  private readonly log: RevisionLog;

  constructor(log: RevisionLog, prefix: string, startRevision: number, progressNotify: boolean) {
    super();
    this.log = log;
    this.ac = new AbortController();
    this.it = log.watch(prefix, { startRevision, progressNotify, signal: this.ac.signal })[Symbol.asyncIterator]();
  }

  async next(): Promise<Wire<WatchResponse | null>> {
    try {
      const r = await this.it.next();
      return { ok: r.done ? null : r.value, compacted: this.log.compactRevision() };
    } catch (err) {
      this.ac.abort();
      return { error: toWireError(err), compacted: this.log.compactRevision() };
    }
  }

  close(): void {
    this.ac.abort();
  }
}

/** Store options from the Worker's vars (APISERVER_STORE_COMPACT_MIN_RETAIN, …_PROGRESS_INTERVAL_MS, …_TTL_SWEEP_MS). */
export function storeOptions(env: Record<string, unknown> | undefined): RevisionLogOptions {
  const num = (name: string) => {
    const v = env?.[name];
    if (v === undefined || v === '') return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name}: not a non-negative number: ${String(v)}`);
    return n;
  };
  return {
    compactMinRetain: num('APISERVER_STORE_COMPACT_MIN_RETAIN'),
    progressIntervalMs: num('APISERVER_STORE_PROGRESS_INTERVAL_MS'),
    ttlSweepMs: num('APISERVER_STORE_TTL_SWEEP_MS'),
  };
}

/** The Durable Object class (`class_name = "Store"`): one revision log per object. */
export class Store extends DurableObject<Record<string, unknown>> {
  protected readonly log: RevisionLog;

  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    this.log = new RevisionLog(durableObjectDriver(ctx.storage), storeOptions(env));
  }

  private async answer<T>(fn: () => MaybePromise<T>): Promise<Wire<T>> {
    try {
      return { ok: await fn(), compacted: this.log.compactRevision() };
    } catch (err) {
      return { error: toWireError(err), compacted: this.log.compactRevision() };
    }
  }

  get(key: string, opts?: { revision?: number }) {
    return this.answer(() => this.log.get(key, opts));
  }
  list(prefix: string, opts?: ListOptions) {
    return this.answer(() => this.log.list(prefix, opts));
  }
  count(prefix: string) {
    return this.answer(() => this.log.count(prefix));
  }
  create(key: string, value: Uint8Array, opts?: { ttlSeconds?: number }) {
    return this.answer(() => this.log.create(key, value, opts));
  }
  update(key: string, value: Uint8Array, expectedRevision: number, opts?: { ttlSeconds?: number }) {
    return this.answer(() => this.log.update(key, value, expectedRevision, opts));
  }
  delete(key: string, expectedRevision: number) {
    return this.answer(() => this.log.delete(key, expectedRevision));
  }
  currentRevision() {
    return this.answer(() => this.log.currentRevision());
  }
  unchangedSince(prefix: string, sinceRevision: number, count: number) {
    return this.answer(() => this.log.unchangedSince(prefix, sinceRevision, count));
  }
  compact(revision: number) {
    return this.answer(() => this.log.compact(revision));
  }
  readinessCheck() {
    return this.answer(() => this.log.readinessCheck());
  }
  databaseSize() {
    return this.answer(async () => this.log.databaseSize() ?? 0);
  }
  watch(prefix: string, startRevision: number, progressNotify: boolean): WatchCursor {
    return new WatchCursor(this.log, prefix, startRevision, progressNotify);
  }
}
