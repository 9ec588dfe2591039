// KV (src/storage/kv.ts) over RPC to the Store Durable Object (./store.ts): what a Worker hands the
// storage layer. Errors come back as values and are rethrown as the engine's classes; a watch is a
// cursor on the object whose next() is called in a loop (aborting the signal closes it).
import {
  CompactedError,
  FutureRevisionError,
  type GetResult,
  type KV,
  type ListOptions,
  type ListResult,
  type TxnResult,
  type WatchOptions,
  type WatchResponse,
} from '../../src/storage/kv.ts';
import { ValueTooLargeError } from '../../src/storage/sqlite/revision-log.ts';
import type { Wire, WireError } from './store.ts';

interface WatchCursorStub {
  next(): Promise<Wire<WatchResponse | null>>;
  close(): Promise<void> | void;
  [Symbol.dispose]?(): void;
}

/** The Store's RPC surface as a stub shows it (DurableObjectNamespace.get(id)). */
export interface StoreStub {
  get(key: string, opts?: { revision?: number }): Promise<Wire<GetResult>>;
  list(prefix: string, opts?: ListOptions): Promise<Wire<ListResult>>;
  count(prefix: string): Promise<Wire<{ revision: number; count: number }>>;
  create(key: string, value: Uint8Array, opts?: { ttlSeconds?: number }): Promise<Wire<TxnResult>>;
  update(
    key: string,
    value: Uint8Array,
    expectedRevision: number,
    opts?: { ttlSeconds?: number },
  ): Promise<Wire<TxnResult>>;
  delete(key: string, expectedRevision: number): Promise<Wire<TxnResult>>;
  currentRevision(): Promise<Wire<number>>;
  unchangedSince(prefix: string, sinceRevision: number, count: number): Promise<Wire<number | undefined>>;
  compact(revision: number): Promise<Wire<void>>;
  readinessCheck(): Promise<Wire<void>>;
  watch(prefix: string, startRevision: number, progressNotify: boolean): Promise<WatchCursorStub>;
}

/** The parts of a DurableObjectNamespace binding used here. */
export interface StoreNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): StoreStub;
}

function fromWire(e: WireError): Error {
  if (e.name === 'CompactedError') return new CompactedError(e.compactRevision ?? 0, e.currentRevision ?? 0);
  if (e.name === 'FutureRevisionError') return new FutureRevisionError(e.currentRevision ?? 0);
  if (e.name === 'ValueTooLargeError') {
    const err = new ValueTooLargeError('', e.size ?? 0, e.limit ?? 0);
    err.message = e.message;
    return err;
  }
  const err =
    e.name === 'RangeError'
      ? new RangeError(e.message)
      : e.name === 'TypeError'
        ? new TypeError(e.message)
        : new Error(e.message);
  return err;
}

/** The KV of one Store object. `name` picks the object (one per cluster: "registry"). */
export function durableObjectKV(ns: StoreNamespace, name = 'registry'): KV {
  const id = ns.idFromName(name);
  let compacted = 0;
  // A stub per call: a stub is an I/O object of the request that made it (workerd refuses it in
  // another request: "Cannot perform I/O on behalf of a different request"), and one is
  // unusable after the object threw or was reset. Making one is local and cheap.
  const unwrap = async <T>(call: (s: StoreStub) => Promise<Wire<T>>): Promise<T> => {
    const w = await call(ns.get(id));
    compacted = Math.max(compacted, w.compacted);
    if ('error' in w) throw fromWire(w.error);
    return w.ok;
  };
  return {
    get: (key, opts) => unwrap((s) => s.get(key, opts)),
    list: (prefix, opts) => unwrap((s) => s.list(prefix, opts)),
    count: (prefix) => unwrap((s) => s.count(prefix)),
    create: (key, value, opts) => unwrap((s) => s.create(key, value, opts)),
    update: (key, value, rev, opts) => unwrap((s) => s.update(key, value, rev, opts)),
    delete: (key, rev) => unwrap((s) => s.delete(key, rev)),
    currentRevision: () => unwrap((s) => s.currentRevision()),
    // Each isolate's watch cache asks the object whether its prefix changed (consistent reads).
    unchangedSince: (prefix, since, count) => unwrap((s) => s.unchangedSince(prefix, since, count)),
    compact: (revision) => unwrap((s) => s.compact(revision)),
    compactRevision: () => compacted,
    readinessCheck: () => unwrap((s) => s.readinessCheck()),
    close: async () => {},
    watch(prefix: string, opts: WatchOptions): AsyncIterable<WatchResponse> {
      return {
        async *[Symbol.asyncIterator]() {
          if (opts.signal.aborted) return;
          let onAbort: (() => void) | undefined;
          const aborted = new Promise<null>((resolve) => {
            onAbort = () => resolve(null);
            opts.signal.addEventListener('abort', onAbort, { once: true });
          });
          const opening = ns.get(id).watch(prefix, opts.startRevision, !!opts.progressNotify);
          const cursor = await Promise.race([opening, aborted]);
          if (cursor === null) {
            // Stopped while the object was opening the watch: close it once it exists.
            opening.then(
              (c) => c.close(),
              () => {},
            );
            return;
          }
          try {
            for (;;) {
              const w = await Promise.race([cursor.next(), aborted]);
              if (w === null) return;
              compacted = Math.max(compacted, w.compacted);
              if ('error' in w) throw fromWire(w.error);
              if (w.ok === null) {
                if (opts.signal.aborted) return;
                throw new Error('watch ended by the storage object');
              }
              yield w.ok;
            }
          } finally {
            opts.signal.removeEventListener('abort', onAbort!);
            try {
              await cursor.close();
            } catch {
              // the object is gone already
            }
            cursor[Symbol.dispose]?.();
          }
        },
      };
    },
  };
}
