// The etcd compactor (k8s.io/apiserver/pkg/storage/etcd3/compact.go): every interval, the
// apiservers sharing an etcd agree through the `compact_rev_key` key which of them compacts.
// The key's version is a logical clock: a compactor whose last seen version still matches
// writes the revision it saw at the previous tick (bumping the version) and compacts at it;
// one that lost the race adopts the remote version and tries again next interval. So the
// cluster compacts about once per interval, keeping at least one interval of history, and a
// crashed compactor is taken over within two intervals. A second loop follows compact_rev_key
// so compactRevision() reflects compactions done by other apiservers.

import type { Logger } from '../../util/logger.ts';
import { errorMessage } from '../../endpoints/responsewriters/status.ts';
import { b64, decodeKeyValue, headerRevision, type RawHeader, type RawKeyValue } from './client.ts';
import type { EtcdKV } from './kv.ts';

export const compactRevKey = 'compact_rev_key';

interface CompactTxnResponse {
  header?: RawHeader;
  succeeded?: boolean;
  responses?: { response_range?: { kvs?: (RawKeyValue & { version?: string })[] } }[];
}

export interface CompactResult {
  /** compact_rev_key's version after this call (the logical compact time). */
  version: number;
  /** The current revision (compacted at the next tick). */
  revision: number;
  /** The revision compacted by this call or learned from compact_rev_key; 0 for none. */
  compactRevision: number;
}

/**
 * One round of upstream's Compact(ctx, client, expectVersion, rev): CAS on compact_rev_key's
 * version, then compact at `rev` when the CAS won (and `rev` is not 0, the bootstrap round).
 */
export async function compact(kv: EtcdKV, expectVersion: number, rev: number): Promise<CompactResult> {
  const key = b64(compactRevKey);
  const r = await kv.call<CompactTxnResponse>('/v3/kv/txn', {
    compare: [{ target: 'VERSION', result: 'EQUAL', key, version: String(expectVersion) }],
    success: [{ request_put: { key, value: b64(String(rev)) } }],
    failure: [{ request_range: { key } }],
  });
  const revision = headerRevision(r.header);
  if (!r.succeeded) {
    const raw = r.responses?.[0]?.response_range?.kvs?.[0];
    const version = Number(raw?.version ?? 0);
    const compacted = raw ? Number(new TextDecoder().decode(decodeKeyValue(raw).value)) : 0;
    if (Number.isSafeInteger(compacted) && compacted > 0) kv.noteCompacted(compacted);
    return { version, revision, compactRevision: Number.isSafeInteger(compacted) ? compacted : 0 };
  }
  if (rev === 0) return { version: expectVersion + 1, revision, compactRevision: 0 };
  await kv.compact(rev);
  return { version: expectVersion + 1, revision, compactRevision: rev };
}

export interface CompactorOptions {
  /** `--etcd-compaction-interval` in ms; 0 disables compaction requests. */
  intervalMs: number;
  logger?: Logger;
  /** Follow compact_rev_key for compactions by other apiservers (default true). */
  watchCompactRevision?: boolean;
}

/** StartCompactorPerEndpoint / NewCompactor: runs until stop(). The first compaction happens after one interval. */
export class EtcdCompactor {
  private readonly kv: EtcdKV;
  private readonly opts: CompactorOptions;
  private readonly stopped = new AbortController();
  private timer?: ReturnType<typeof setTimeout>;
  private version = 0;
  private rev = 0;
  private loops: Promise<void>[] = [];

  constructor(kv: EtcdKV, opts: CompactorOptions) {
    this.kv = kv;
    this.opts = opts;
  }

  start(): this {
    if (this.opts.intervalMs > 0) this.schedule();
    if (this.opts.watchCompactRevision !== false) this.loops.push(this.watchLoop());
    return this;
  }

  compactRevision(): number {
    return this.kv.compactRevision();
  }

  private schedule(): void {
    if (this.stopped.signal.aborted) return;
    this.timer = setTimeout(() => void this.tick(), this.opts.intervalMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  /** One interval's work (exposed for tests). */
  async tick(): Promise<void> {
    try {
      const r = await compact(this.kv, this.version, this.rev);
      this.version = r.version;
      this.rev = r.revision;
      if (r.compactRevision) this.opts.logger?.info('etcd: compacted', { rev: r.compactRevision }, 4);
    } catch (err) {
      if (!this.stopped.signal.aborted) this.opts.logger?.error('etcd: compact failed', { endpoints: this.kv.client.endpoints, err: errorMessage(err) });
    } finally {
      this.schedule();
    }
  }

  /** runWatchLoop: reads compact_rev_key, then watches it; restarts a second after a failure. */
  private async watchLoop(): Promise<void> {
    const signal = this.stopped.signal;
    while (!signal.aborted) {
      try {
        const got = await this.kv.get(compactRevKey);
        if (got.kv) this.note(got.kv.value);
        for await (const resp of this.kv.watch(compactRevKey, { startRevision: got.revision + 1, signal })) {
          const last = resp.events[resp.events.length - 1];
          if (last?.type === 'PUT') this.note(last.kv.value);
        }
      } catch (err) {
        if (signal.aborted) return;
        this.opts.logger?.info('etcd: following compact_rev_key failed', { err: errorMessage(err) }, 2);
      }
      await new Promise<void>((r) => {
        const t = setTimeout(r, 1000);
        signal.addEventListener('abort', () => (clearTimeout(t), r()), { once: true });
      });
    }
  }

  private note(value: Uint8Array): void {
    const rev = Number(new TextDecoder().decode(value));
    if (Number.isSafeInteger(rev) && rev > 0) this.kv.noteCompacted(rev);
  }

  async stop(): Promise<void> {
    this.stopped.abort();
    clearTimeout(this.timer);
    await Promise.all(this.loops);
  }
}
