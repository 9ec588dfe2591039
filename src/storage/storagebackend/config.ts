// The storage backend config the options produce (k8s.io/apiserver/pkg/storage/storagebackend/
// config.go): plain data, no clients. src/storage/storagebackend/open.ts turns it into a KV.

/** `--storage-backend`: upstream's etcd3, plus the embedded SQLite file and memory. */
export type StorageType = 'etcd3' | 'sqlite' | 'memory';
export const storageTypes: readonly StorageType[] = ['etcd3', 'memory', 'sqlite'];

/** TransportConfig: how to reach etcd. */
export interface TransportConfig {
  /** `--etcd-servers`. */
  serverList: string[];
  /** `--etcd-keyfile`, `--etcd-certfile`, `--etcd-cafile` (paths). */
  keyFile: string;
  certFile: string;
  trustedCAFile: string;
}

export interface StorageBackendConfig {
  type: StorageType;
  /** `--etcd-prefix`, the prefix of every key (default /registry). */
  prefix: string;
  transport: TransportConfig;
  /** `--sqlite-path`: the embedded store's file. */
  sqlitePath: string;
  /** `--etcd-compaction-interval` in ms; 0 disables compaction requests. */
  compactionIntervalMs: number;
  /** `--etcd-healthcheck-timeout`, `--etcd-readycheck-timeout` in ms. */
  healthcheckTimeoutMs: number;
  readycheckTimeoutMs: number;
  /** `--watch-cache`. */
  enableWatchCache: boolean;
  /** `--lease-reuse-duration-seconds`. */
  leaseReuseDurationSeconds: number;
  /** `--encryption-provider-config`: the EncryptionConfiguration file; '' stores values as they are. */
  encryptionProviderConfigFilepath: string;
}

export const defaultEtcdPathPrefix = '/registry';
export const defaultCompactIntervalMs = 5 * 60_000;
export const defaultEventsHistoryWindowMs = 75_000;
export const defaultHealthcheckTimeoutMs = 2000;
export const defaultReadinessTimeoutMs = 2000;
export const defaultLeaseReuseDurationSeconds = 60;

/** NewDefaultConfig(prefix). */
export function newDefaultConfig(prefix = defaultEtcdPathPrefix): StorageBackendConfig {
  return {
    type: 'sqlite',
    prefix,
    transport: { serverList: [], keyFile: '', certFile: '', trustedCAFile: '' },
    sqlitePath: '',
    compactionIntervalMs: defaultCompactIntervalMs,
    healthcheckTimeoutMs: defaultHealthcheckTimeoutMs,
    readycheckTimeoutMs: defaultReadinessTimeoutMs,
    enableWatchCache: true,
    leaseReuseDurationSeconds: defaultLeaseReuseDurationSeconds,
    encryptionProviderConfigFilepath: '',
  };
}
