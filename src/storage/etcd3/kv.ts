// The etcd v3 engine: src/storage/kv.ts over etcd's JSON gateway, the calls
// k8s.io/apiserver/pkg/storage/etcd3/store.go makes through etcd's client/v3/kubernetes/client.go:
// Get/List = Range (revision, limit, start key), Count = Range count_only, create = Txn on
// mod_revision == 0, OptimisticPut/OptimisticDelete = Txn on mod_revision == rev with the current
// value on failure, Watch with prev_kv from a start revision, Compact.
//
// Revisions are etcd's: compacting at r keeps r readable and fails reads and watches below r
// (mvcc ErrCompacted); compactRevision() is the highest compaction this client did or learned of
// (its own compactions, compact_rev_key through the compactor, a cancelled watch).

import {
  CompactedError,
  FutureRevisionError,
  type GetResult,
  type KV,
  type ListOptions,
  type ListResult,
  type TxnResult,
  type WatchEvent,
  type WatchOptions,
  type WatchResponse,
} from '../kv.ts';
import {
  b64,
  decodeKeyValue,
  EtcdGatewayClient,
  headerRevision,
  prefixEndB64,
  type EtcdClientOptions,
  type RawHeader,
  type RawKeyValue,
} from './client.ts';
import { LeaseManager } from './lease.ts';

export interface EtcdKVOptions extends EtcdClientOptions {
  /** Key read by readinessCheck (upstream: path.Join("/", prefix, "health")); default `/registry/health`. */
  healthKey?: string;
  /** Timeout of one readinessCheck probe, ms (default 2 s, DefaultHealthcheckTimeout). */
  probeTimeoutMs?: number;
  /** `--lease-reuse-duration-seconds` (default 60). */
  leaseReuseDurationSeconds?: number;
  /** A watch quiet this long probes etcd and ends with an error when it does not answer (default 30 s). */
  watchKeepaliveMs?: number;
}

interface RangeResponse {
  header?: RawHeader;
  kvs?: RawKeyValue[];
  count?: string;
  more?: boolean;
}

interface TxnResponse {
  header?: RawHeader;
  succeeded?: boolean;
  responses?: {
    response_range?: RangeResponse;
    response_put?: { header?: RawHeader; prev_kv?: RawKeyValue };
    response_delete_range?: { header?: RawHeader; deleted?: string; prev_kvs?: RawKeyValue[] };
  }[];
}

interface RawWatchResult {
  header?: RawHeader;
  created?: boolean;
  canceled?: boolean;
  compact_revision?: string;
  cancel_reason?: string;
  events?: { type?: 'PUT' | 'DELETE'; kv?: RawKeyValue; prev_kv?: RawKeyValue }[];
}

export class EtcdKV implements KV {
  readonly client: EtcdGatewayClient;
  private readonly healthKey: string;
  private readonly probeTimeoutMs: number;
  private readonly watchKeepaliveMs: number;
  private readonly leases: LeaseManager;
  private readonly watches = new Set<AbortController>();
  private compacted = 0;
  private closed = false;

  constructor(opts: EtcdKVOptions) {
    this.client = new EtcdGatewayClient(opts);
    this.healthKey = opts.healthKey ?? '/registry/health';
    this.probeTimeoutMs = opts.probeTimeoutMs ?? 2000;
    this.watchKeepaliveMs = opts.watchKeepaliveMs ?? 30_000;
    this.leases = new LeaseManager(async (ttl) => {
      const r = await this.call<{ ID?: string }>('/v3/lease/grant', { TTL: String(ttl) });
      if (!r.ID) throw new Error('etcd: lease grant returned no ID');
      return r.ID;
    }, opts.leaseReuseDurationSeconds);
  }

  async get(key: string, opts: { revision?: number } = {}): Promise<GetResult> {
    const req: Record<string, unknown> = { key: b64(key) };
    if (opts.revision) req.revision = String(opts.revision);
    const r = await this.call<RangeResponse>('/v3/kv/range', req);
    const raw = r.kvs?.[0];
    return { revision: headerRevision(r.header), kv: raw ? decodeKeyValue(raw) : undefined };
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const req: Record<string, unknown> = { key: b64(opts.startKey ?? prefix), range_end: prefixEndB64(prefix) };
    if (opts.limit) req.limit = String(opts.limit);
    if (opts.revision) req.revision = String(opts.revision);
    const r = await this.call<RangeResponse>('/v3/kv/range', req);
    const kvs = r.kvs ? r.kvs.map(decodeKeyValue) : [];
    return { revision: opts.revision || headerRevision(r.header), kvs, count: Number(r.count ?? 0) };
  }

  async count(prefix: string): Promise<{ revision: number; count: number }> {
    const r = await this.call<RangeResponse>('/v3/kv/range', {
      key: b64(prefix),
      range_end: prefixEndB64(prefix),
      count_only: true,
    });
    return { revision: headerRevision(r.header), count: Number(r.count ?? 0) };
  }

  async create(key: string, value: Uint8Array, opts: { ttlSeconds?: number } = {}): Promise<TxnResult> {
    return this.optimisticPut(key, value, 0, opts.ttlSeconds);
  }

  async update(
    key: string,
    value: Uint8Array,
    expectedRevision: number,
    opts: { ttlSeconds?: number } = {},
  ): Promise<TxnResult> {
    return this.optimisticPut(key, value, expectedRevision, opts.ttlSeconds);
  }

  async delete(key: string, expectedRevision: number): Promise<TxnResult> {
    const k = b64(key);
    const r = await this.call<TxnResponse>('/v3/kv/txn', {
      compare: [{ target: 'MOD', result: 'EQUAL', key: k, mod_revision: String(expectedRevision) }],
      success: [{ request_delete_range: { key: k, prev_kv: true } }],
      failure: [{ request_range: { key: k } }],
    });
    const revision = headerRevision(r.header);
    if (r.succeeded) {
      const prev = r.responses?.[0]?.response_delete_range?.prev_kvs?.[0];
      return { succeeded: true, revision, prevKv: prev ? decodeKeyValue(prev) : undefined };
    }
    return this.failed(r, revision);
  }

  private async optimisticPut(
    key: string,
    value: Uint8Array,
    expectedRevision: number,
    ttlSeconds?: number,
  ): Promise<TxnResult> {
    const k = b64(key);
    const put: Record<string, unknown> = { key: k, value: b64(value) };
    // An update returns the value it replaced (a create has none).
    if (expectedRevision !== 0) put.prev_kv = true;
    if (ttlSeconds) put.lease = await this.leases.getLease(ttlSeconds);
    const r = await this.call<TxnResponse>('/v3/kv/txn', {
      compare: [{ target: 'MOD', result: 'EQUAL', key: k, mod_revision: String(expectedRevision) }],
      success: [{ request_put: put }],
      failure: [{ request_range: { key: k } }],
    });
    const revision = headerRevision(r.header);
    if (r.succeeded) {
      const prev = r.responses?.[0]?.response_put?.prev_kv;
      return prev ? { succeeded: true, revision, prevKv: decodeKeyValue(prev) } : { succeeded: true, revision };
    }
    return this.failed(r, revision);
  }

  private failed(r: TxnResponse, revision: number): TxnResult {
    const raw = r.responses?.[0]?.response_range?.kvs?.[0];
    return { succeeded: false, revision, kv: raw ? decodeKeyValue(raw) : undefined };
  }

  watch(prefix: string, opts: WatchOptions): AsyncIterable<WatchResponse> {
    return { [Symbol.asyncIterator]: () => this.watchEvents(prefix, opts) };
  }

  private async *watchEvents(prefix: string, opts: WatchOptions): AsyncGenerator<WatchResponse> {
    this.assertOpen();
    if (!(opts.startRevision >= 1))
      throw new Error(`etcd: watch start revision must be >= 1, got ${opts.startRevision}`);
    const ctl = new AbortController();
    const onAbort = () => ctl.abort(opts.signal.reason);
    if (opts.signal.aborted) return;
    opts.signal.addEventListener('abort', onAbort, { once: true });
    this.watches.add(ctl);
    const req: Record<string, unknown> = {
      key: b64(prefix),
      range_end: prefixEndB64(prefix),
      start_revision: String(opts.startRevision),
      prev_kv: true,
    };
    if (opts.progressNotify) req.progress_notify = true;
    // Keepalive (upstream's gRPC keepalive: 30 s, 10 s timeout): a watch quiet for an interval
    // probes etcd; when the probe fails, the watch ends with that error instead of waiting on a
    // connection that may be dead without a FIN.
    let quiet = false;
    let failure: unknown;
    const keepalive = setInterval(() => {
      if (!quiet) {
        quiet = true;
        return;
      }
      this.readinessCheck().then(
        () => {},
        (err: unknown) => {
          failure = err;
          ctl.abort(err);
        },
      );
    }, this.watchKeepaliveMs);
    (keepalive as { unref?: () => void }).unref?.();
    try {
      for await (const res of this.client.watchStream(req, ctl.signal) as AsyncGenerator<RawWatchResult>) {
        quiet = false;
        if (res.canceled) {
          if (this.closed && !opts.signal.aborted) throw new Error('etcd client is closed');
          const compactRev = Number(res.compact_revision ?? 0);
          if (compactRev) {
            this.noteCompacted(compactRev);
            throw new CompactedError(compactRev, await this.currentRevision().catch(() => 0));
          }
          throw new Error(`etcd: watch canceled: ${res.cancel_reason || 'no reason given'}`);
        }
        if (res.created) continue;
        const raw = res.events;
        if (!raw?.length) {
          // A progress notification: everything up to header.revision was sent.
          yield { revision: headerRevision(res.header), events: [] };
          continue;
        }
        const events: WatchEvent[] = raw.map((e) => {
          const ev: WatchEvent = { type: e.type === 'DELETE' ? 'DELETE' : 'PUT', kv: decodeKeyValue(e.kv ?? {}) };
          if (e.prev_kv) ev.prevKv = decodeKeyValue(e.prev_kv);
          return ev;
        });
        yield { revision: events[events.length - 1]!.kv.modRevision, events };
      }
      // The stream only ends quietly when our signal was aborted.
      if (failure !== undefined && !opts.signal.aborted) throw failure;
      if (this.closed && !opts.signal.aborted) throw new Error('etcd client is closed');
    } finally {
      clearInterval(keepalive);
      opts.signal.removeEventListener('abort', onAbort);
      this.watches.delete(ctl);
      ctl.abort();
    }
  }

  async currentRevision(): Promise<number> {
    // A linearizable count-only range of one key: header.revision is the store's revision.
    const r = await this.call<RangeResponse>('/v3/kv/range', { key: b64(this.healthKey), count_only: true });
    return headerRevision(r.header);
  }

  async unchangedSince(prefix: string, sinceRevision: number, count: number): Promise<number | undefined> {
    // One read-only txn (one revision for both ranges): the live count, and the keys written after
    // sinceRevision. None written and the same count means none deleted either: every key alive now
    // was alive, unchanged, at sinceRevision, and there were as many then.
    const key = b64(prefix);
    const range_end = prefixEndB64(prefix);
    const r = await this.call<TxnResponse>('/v3/kv/txn', {
      success: [
        { request_range: { key, range_end, count_only: true } },
        { request_range: { key, range_end, keys_only: true, min_mod_revision: String(sinceRevision + 1) } },
      ],
    });
    const revision = headerRevision(r.header);
    const [now, written] = [r.responses?.[0]?.response_range, r.responses?.[1]?.response_range];
    if (!now || !written) return undefined;
    if (written.kvs?.length || Number(now.count ?? 0) !== count) return undefined;
    return revision;
  }

  async compact(revision: number): Promise<void> {
    try {
      await this.call('/v3/kv/compaction', { revision: String(revision) });
    } catch (err) {
      // Compacting at or below etcd's compacted revision is done already.
      if (!(err instanceof CompactedError)) throw err;
    }
    this.noteCompacted(revision);
  }

  compactRevision(): number {
    return this.compacted;
  }

  /** Records a compaction learned elsewhere (compact_rev_key, another apiserver's compactor). */
  noteCompacted(revision: number): void {
    if (revision > this.compacted) this.compacted = revision;
  }

  async readinessCheck(): Promise<void> {
    await this.call('/v3/kv/range', { key: b64(this.healthKey), count_only: true }, this.probeTimeoutMs);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.watches) w.abort(new Error('etcd client is closed'));
    this.watches.clear();
  }

  /** A gateway call with the kv.ts errors carrying the revisions etcd left out of its error body. */
  async call<T>(path: string, body: unknown, timeoutMs?: number): Promise<T> {
    this.assertOpen();
    try {
      return await this.client.call<T>(path, body, { timeoutMs });
    } catch (err) {
      if (err instanceof CompactedError) {
        const current = await this.currentRevision().catch(() => 0);
        throw new CompactedError(Math.max(this.compacted, await this.fetchCompactRevision().catch(() => 0)), current);
      }
      if (err instanceof FutureRevisionError)
        throw new FutureRevisionError(await this.currentRevision().catch(() => 0));
      throw err;
    }
  }

  /**
   * etcd has no call that returns its compacted revision; a watch from revision 1 is cancelled
   * with it (compact_revision). Used only when a read already failed with ErrCompacted.
   */
  async fetchCompactRevision(): Promise<number> {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), this.probeTimeoutMs);
    try {
      for await (const r of this.client.watchStream(
        { key: b64(this.healthKey), start_revision: '1' },
        ctl.signal,
      ) as AsyncGenerator<RawWatchResult>) {
        if (r.canceled) {
          const rev = Number(r.compact_revision ?? 0);
          this.noteCompacted(rev);
          return rev;
        }
      }
      return this.compacted;
    } finally {
      clearTimeout(timer);
      ctl.abort();
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('etcd client is closed');
  }
}

/** Opens the etcd engine (no I/O: the first request connects). */
export function newEtcdKV(opts: EtcdKVOptions): EtcdKV {
  return new EtcdKV(opts);
}
