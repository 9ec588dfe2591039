// The engine seam under storage.Interface: the part of etcd v3's KV and Watch API that
// k8s.io/apiserver/pkg/storage/etcd3/store.go actually uses (etcd's client/v3/kubernetes/client.go:
// Get, List, Count, OptimisticPut, OptimisticDelete, Watch, Compact), and what kine emulates over SQL.
// One storage.Interface implementation (src/storage/store.ts) runs over every engine:
// the etcd JSON gateway, the revision log over SQL (node:sqlite, bun:sqlite, Deno, Durable Objects)
// and memory. Revisions are etcd's: one global, strictly increasing counter, ≥ 1 once the engine
// is open; a key's modRevision is the revision of the write that produced its current value.
//
// Keys are the full storage keys (the `--etcd-prefix` already applied, e.g. `/registry/configmaps/ns/a`).
// Values are opaque bytes (the apiserver stores JSON with metadata.resourceVersion stripped).

import type { MaybePromise } from '../util/maybe-promise.ts';

/** One key at one revision (etcd's mvccpb.KeyValue). */
export interface KeyValue {
  key: string;
  value: Uint8Array;
  /** Revision of the write that created the key (since its last delete). */
  createRevision: number;
  /** Revision of the write that produced this value. */
  modRevision: number;
  /** Lease (TTL) attached to the key, in seconds; 0 or absent when none. */
  ttlSeconds?: number;
}

export interface GetResult {
  /** The engine's current revision when the read was served (etcd's header.revision). */
  revision: number;
  kv?: KeyValue;
}

export interface ListOptions {
  /** Read at this revision (etcd's WithRev); 0 or absent reads the latest. */
  revision?: number;
  /** At most this many keys; 0 or absent means no limit. */
  limit?: number;
  /** First key to return (inclusive), within the prefix; the continue token's `start` resolved. */
  startKey?: string;
}

export interface ListResult {
  /** The revision the list was read at: the requested one, or the current revision. */
  revision: number;
  /** Keys in byte order. */
  kvs: KeyValue[];
  /** Number of keys in [startKey or prefix, prefix end) at that revision (etcd's count). */
  count: number;
}

/** Outcome of an optimistic write: on failure, the current value is returned (etcd's Else(OpGet)). */
export type TxnResult =
  { succeeded: true; revision: number; prevKv?: KeyValue } | { succeeded: false; revision: number; kv?: KeyValue };

export interface WatchEvent {
  type: 'PUT' | 'DELETE';
  /** For DELETE: key and modRevision (the delete's revision) only. */
  kv: KeyValue;
  /** The value before this event (etcd's WithPrevKV), absent for a create. */
  prevKv?: KeyValue;
}

export interface WatchResponse {
  /** Revision of the last event in `events`, or for a progress notification the current revision. */
  revision: number;
  /** Events in revision order; empty for a progress notification (everything up to `revision` was sent). */
  events: WatchEvent[];
}

export interface WatchOptions {
  /** First revision to deliver (inclusive), as etcd's WithRev; must be ≥ 1. */
  startRevision: number;
  /** Send progress notifications (empty responses) when idle. */
  progressNotify?: boolean;
  /** Ends the watch: the iterator returns. */
  signal: AbortSignal;
}

/**
 * The storage engine. Methods reject with CompactedError / FutureRevisionError where etcd answers
 * ErrCompacted / ErrFutureRev, and with other errors for engine faults (the store maps those to 500s).
 */
export interface KV {
  /** Synchronous where the engine can answer at once (memory, SQLite); a failure still rejects. */
  get(key: string, opts?: { revision?: number }): MaybePromise<GetResult>;
  /** Range over every key that starts with `prefix`. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** Number of live keys under `prefix` (Stats, GetCurrentResourceVersion). */
  count(prefix: string): Promise<{ revision: number; count: number }>;
  /** Put if the key does not exist (Compare(ModRevision(key), "=", 0)). */
  create(key: string, value: Uint8Array, opts?: { ttlSeconds?: number }): Promise<TxnResult>;
  /** Put if the key's modRevision equals `expectedRevision` (OptimisticPut). */
  update(key: string, value: Uint8Array, expectedRevision: number, opts?: { ttlSeconds?: number }): Promise<TxnResult>;
  /** Delete if the key's modRevision equals `expectedRevision` (OptimisticDelete). */
  delete(key: string, expectedRevision: number): Promise<TxnResult>;
  /**
   * Events for keys under `prefix` from `startRevision` on. Rejects (on the first `next()`) with
   * CompactedError when startRevision is at or below the compacted revision; a watch that the engine
   * can no longer serve ends by throwing, never by returning silently while its signal is not aborted.
   */
  watch(prefix: string, opts: WatchOptions): AsyncIterable<WatchResponse>;
  /** The current revision (linearizable). */
  currentRevision(): Promise<number>;
  /**
   * Progress without the watch (what the watch cache gets from etcd's RequestWatchProgress, which
   * etcd before 3.4.31/3.5.13 cannot be trusted with): given that `count` keys lived under `prefix`
   * at `sinceRevision`, resolves with a revision R, at least the current one when called
   * (linearizable), such that no write under `prefix` happened in (sinceRevision, R]; undefined when
   * one did (its events are on the way to the watchers) or the engine cannot tell. Optional: engines
   * whose watchers get progress notifications after every foreign write need none.
   */
  unchangedSince?(prefix: string, sinceRevision: number, count: number): Promise<number | undefined>;
  /**
   * Drops history before `revision` (etcd's Compact): the state at `revision` stays readable, reads
   * below it and watches starting at or below it then fail with CompactedError.
   */
  compact(revision: number): Promise<void>;
  /** The highest revision compacted so far (0 when none). */
  compactRevision(): number;
  /** Rejects when the engine cannot serve (the `etcd` readiness/liveness checks). */
  readinessCheck(): Promise<void>;
  close(): Promise<void>;
}

/** etcd's mvcc.ErrCompacted: the revision asked for was compacted. */
export class CompactedError extends Error {
  readonly compactRevision: number;
  readonly currentRevision: number;
  constructor(compactRevision: number, currentRevision: number) {
    super('mvcc: required revision has been compacted');
    this.compactRevision = compactRevision;
    this.currentRevision = currentRevision;
  }
}

/**
 * A value too large for the engine (etcd's rpctypes.ErrRequestTooLarge, a SQL row over its limit);
 * nothing was written. `limit` is 0 when the engine does not say (etcd).
 */
export class ValueTooLargeError extends Error {
  readonly limit: number;
  readonly size: number;
  constructor(key: string, size: number, limit: number, message?: string) {
    super(
      message ??
        `value of ${size} bytes for key ${JSON.stringify(key)} exceeds the storage engine's limit of ${limit} bytes`,
    );
    this.name = 'ValueTooLargeError';
    this.limit = limit;
    this.size = size;
  }
}

/** etcd's mvcc.ErrFutureRev: the revision asked for is newer than the engine's current one. */
export class FutureRevisionError extends Error {
  readonly currentRevision: number;
  constructor(currentRevision: number) {
    super('mvcc: required revision is a future revision');
    this.currentRevision = currentRevision;
  }
}

/** The exclusive end of a prefix range (etcd's clientv3.GetPrefixRangeEnd), for string keys. */
export function prefixRangeEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
