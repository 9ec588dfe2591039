// Opens the engine a StorageBackendConfig names (upstream: storagebackend/factory.Create and the
// compactor started with the first etcd3 storage). Portable: the etcd engine needs only fetch;
// what a platform must supply (the SQLite binding, a fetch with client certificates) comes in
// through StoragePlatform, and its absence is a clear start-up error, never a silent fallback.

import type { KV } from '../kv.ts';
import type { Logger } from '../../util/logger.ts';
import { EtcdKV } from '../etcd3/kv.ts';
import { MemoryKV } from '../memory/kv.ts';
import { EtcdCompactor } from '../etcd3/compactor.ts';
import { Compactor } from '../compactor.ts';
import { StorageFactory, type StorageFactoryConfig } from './factory.ts';
import { loadEncryptionConfig, transformerFor } from '../value/encryptionconfig/config.ts';
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

/**
 * An opened backend (upstream's StorageFactory + RESTOptionsGetter in spirit): the engine, the
 * storage.Interface of each resource over it, and its background work (the compactor).
 */
export interface StorageBackend {
  readonly config: StorageBackendConfig;
  readonly kv: KV;
  /** `factory.forResource({ groupResource })`: the store under `--etcd-prefix`, below the watch cache unless `--watch-cache=false`. */
  readonly factory: StorageFactory;
  /** Starts background work (the compactor); idempotent. */
  start(): void;
  /** Stops background work and every watch cache, then closes the engine. */
  close(): Promise<void>;
}

export interface OpenContext {
  /** Reads a PEM file (the options' file system). */
  readTextFile: (path: string) => Promise<string>;
  logger: Logger;
  /** Set by openStorageBackend from `--encryption-provider-config`. */
  transformerFor?: StorageFactoryConfig['transformerFor'];
}

/** transport.TLSInfo.ClientConfig's check: a certificate needs its key and vice versa. */
export function validateTLSFiles(t: StorageBackendConfig['transport']): string | undefined {
  if ((t.certFile === '') !== (t.keyFile === ''))
    return `KeyFile and CertFile must both be present[key: ${t.keyFile}, cert: ${t.certFile}]`;
  return undefined;
}

export async function openStorageBackend(
  config: StorageBackendConfig,
  platform: StoragePlatform,
  ctx: OpenContext,
): Promise<StorageBackend> {
  if (config.encryptionProviderConfigFilepath) {
    const path = config.encryptionProviderConfigFilepath;
    let overrides;
    try {
      overrides = loadEncryptionConfig(await ctx.readTextFile(path));
    } catch (err) {
      throw new Error(
        `error while parsing encryption provider configuration file ${JSON.stringify(path)}: ${(err as Error).message}`,
      );
    }
    ctx = { ...ctx, transformerFor: (gr) => transformerFor(overrides, gr) };
  }
  const own = await platform.openKV?.(config);
  if (own) return backend(config, own, generalCompactor(own, config, ctx), ctx);
  switch (config.type) {
    case 'memory': {
      const kv = platform.openMemory?.() ?? new MemoryKV({ unchangedSince: true });
      return backend(config, kv, generalCompactor(kv, config, ctx), ctx);
    }
    case 'sqlite': {
      if (!platform.openSQLite) {
        throw new Error(
          '--storage-backend=sqlite: this platform provides no SQLite binding; use --etcd-servers or --storage-backend=memory',
        );
      }
      const kv = await platform.openSQLite(config.sqlitePath);
      return backend(config, kv, generalCompactor(kv, config, ctx), ctx);
    }
    case 'etcd3':
      return openEtcd(config, platform, ctx);
  }
}

interface Background {
  start(): void;
  stop(): Promise<void>;
}

/** The compactor of an engine that is this server's alone: compact to the previous tick's revision. */
function generalCompactor(kv: KV, config: StorageBackendConfig, ctx: OpenContext): Background {
  return new Compactor(kv, {
    intervalMs: config.compactionIntervalMs,
    onError: (err) =>
      ctx.logger.error('storage: compact failed', { err: err instanceof Error ? err.message : String(err) }),
    onCompact: (rev) => ctx.logger.info('storage: compacted', { rev }, 4),
  });
}

function backend(config: StorageBackendConfig, kv: KV, compactor: Background, ctx: OpenContext): StorageBackend {
  const factory = new StorageFactory({
    kv,
    prefix: config.prefix,
    watchCache: config.enableWatchCache,
    transformerFor: ctx.transformerFor,
  });
  let started = false;
  let closed: Promise<void> | undefined;
  return {
    config,
    kv,
    factory,
    start() {
      if (started) return;
      started = true;
      compactor.start();
    },
    close() {
      closed ??= (async () => {
        await compactor.stop();
        factory.destroy();
        await kv.close();
      })();
      return closed;
    },
  };
}

async function openEtcd(
  config: StorageBackendConfig,
  platform: StoragePlatform,
  ctx: OpenContext,
): Promise<StorageBackend> {
  const t = config.transport;
  const bad = validateTLSFiles(t);
  if (bad) throw new Error(bad);
  let fetchFn = platform.fetch;
  if (t.certFile || t.trustedCAFile) {
    if (!platform.etcdFetch) {
      throw new Error(
        '--etcd-cafile/--etcd-certfile/--etcd-keyfile: this platform cannot make TLS connections with a private CA or client certificates',
      );
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
  // Several apiservers may share this etcd: upstream's compact_rev_key protocol picks one per interval.
  const compactor = new EtcdCompactor(kv, { intervalMs: config.compactionIntervalMs, logger: ctx.logger });
  return backend(config, kv, { start: () => void compactor.start(), stop: () => compactor.stop() }, ctx);
}

/** Go's path.Join for absolute paths: `/`, `/registry`, `health` → `/registry/health`. */
function joinPath(...parts: string[]): string {
  const segs = parts
    .join('/')
    .split('/')
    .filter((s) => s !== '' && s !== '.');
  const out: string[] = [];
  for (const s of segs) {
    if (s === '..') out.pop();
    else out.push(s);
  }
  return '/' + out.join('/');
}
