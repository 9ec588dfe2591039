// Opens the engine a StorageBackendConfig names (upstream: storagebackend/factory.Create and the
// compactor started with the first etcd3 storage). Portable: the etcd engine needs only fetch;
// what a platform must supply (the SQLite binding, a fetch with client certificates) comes in
// through StoragePlatform, and its absence is a clear start-up error, never a silent fallback.

import type { KV } from '../kv.ts';
import type { Logger } from '../../util/logger.ts';
import { EtcdKV } from '../etcd3/kv.ts';
import { MemoryKV } from '../memory/kv.ts';
import { EtcdCompactor } from '../etcd3/compactor.ts';
import type { EtcdFetch } from '../etcd3/client.ts';
import type { StorageBackendConfig } from './config.ts';

/** PEM contents of --etcd-cafile / --etcd-certfile / --etcd-keyfile. */
export interface EtcdTLSMaterial {
  ca?: string;
  cert?: string;
  key?: string;
}

/** What a platform provides for storage (ApplyContext.storage). */
export interface StoragePlatform {
  /** Opens any backend itself (a Durable Object binding); undefined falls through to the defaults. */
  openKV?: (config: StorageBackendConfig) => KV | undefined | Promise<KV | undefined>;
  /** Opens the embedded SQLite file (Node: adapters/node/sqlite.ts openSQLiteKV; Bun; Deno). */
  openSQLite?: (path: string) => KV | Promise<KV>;
  /** A fetch that trusts `ca` and presents `cert`/`key` to etcd (Node: adapters/node/etcd-fetch.ts). */
  etcdFetch?: (tls: EtcdTLSMaterial) => EtcdFetch;
  /** The fetch for plain etcd endpoints (default: the global fetch). */
  fetch?: EtcdFetch;
  /** Replaces the memory engine (default: src/storage/memory). */
  openMemory?: () => KV;
}

/** An opened backend: the engine, and its background work (the compactor). */
export interface StorageBackend {
  readonly config: StorageBackendConfig;
  readonly kv: KV;
  /** Starts background work (the etcd compactor); idempotent. */
  start(): void;
  /** Stops background work and closes the engine. */
  close(): Promise<void>;
}

export interface OpenContext {
  /** Reads a PEM file (the options' file system). */
  readTextFile: (path: string) => Promise<string>;
  logger: Logger;
}

/** transport.TLSInfo.ClientConfig's check: a certificate needs its key and vice versa. */
export function validateTLSFiles(t: StorageBackendConfig['transport']): string | undefined {
  if ((t.certFile === '') !== (t.keyFile === '')) return `KeyFile and CertFile must both be present[key: ${t.keyFile}, cert: ${t.certFile}]`;
  return undefined;
}

export async function openStorageBackend(config: StorageBackendConfig, platform: StoragePlatform, ctx: OpenContext): Promise<StorageBackend> {
  const own = await platform.openKV?.(config);
  if (own) return simpleBackend(config, own);
  switch (config.type) {
    case 'memory':
      return simpleBackend(config, platform.openMemory?.() ?? new MemoryKV());
    case 'sqlite': {
      if (!platform.openSQLite) {
        throw new Error('--storage-backend=sqlite: this platform provides no SQLite binding; use --etcd-servers or --storage-backend=memory');
      }
      return simpleBackend(config, await platform.openSQLite(config.sqlitePath));
    }
    case 'etcd3':
      return openEtcd(config, platform, ctx);
  }
}

async function openEtcd(config: StorageBackendConfig, platform: StoragePlatform, ctx: OpenContext): Promise<StorageBackend> {
  const t = config.transport;
  const bad = validateTLSFiles(t);
  if (bad) throw new Error(bad);
  let fetchFn = platform.fetch;
  if (t.certFile || t.trustedCAFile) {
    if (!platform.etcdFetch) {
      throw new Error('--etcd-cafile/--etcd-certfile/--etcd-keyfile: this platform cannot make TLS connections with a private CA or client certificates');
    }
    const tls: EtcdTLSMaterial = {};
    if (t.trustedCAFile) tls.ca = await ctx.readTextFile(t.trustedCAFile);
    if (t.certFile) tls.cert = await ctx.readTextFile(t.certFile);
    if (t.keyFile) tls.key = await ctx.readTextFile(t.keyFile);
    fetchFn = platform.etcdFetch(tls);
  }
  const kv = new EtcdKV({
    endpoints: t.serverList,
    fetch: fetchFn,
    healthKey: joinPath('/', config.prefix, 'health'),
    probeTimeoutMs: Math.max(config.healthcheckTimeoutMs, config.readycheckTimeoutMs) || 2000,
    leaseReuseDurationSeconds: config.leaseReuseDurationSeconds,
  });
  const compactor = new EtcdCompactor(kv, { intervalMs: config.compactionIntervalMs, logger: ctx.logger });
  let started = false;
  return {
    config,
    kv,
    start() {
      if (started) return;
      started = true;
      compactor.start();
    },
    async close() {
      await compactor.stop();
      await kv.close();
    },
  };
}

function simpleBackend(config: StorageBackendConfig, kv: KV): StorageBackend {
  return { config, kv, start() {}, close: () => kv.close() };
}

/** Go's path.Join for absolute paths: `/`, `/registry`, `health` → `/registry/health`. */
function joinPath(...parts: string[]): string {
  const segs = parts.join('/').split('/').filter((s) => s !== '' && s !== '.');
  const out: string[] = [];
  for (const s of segs) {
    if (s === '..') out.pop();
    else out.push(s);
  }
  return '/' + out.join('/');
}
