// EtcdOptions (k8s.io/apiserver/pkg/server/options/etcd.go): the "Etcd" flags with upstream's
// names, help texts, defaults and validation messages, plus what kube-apiserver lacks: the
// embedded SQLite file (`--sqlite-path`) and `--storage-backend` values `sqlite` and `memory`.
// The default backend is `sqlite`, or `etcd3` once --etcd-servers is given.
//
// ApplyTo produces the plain StorageBackendConfig, opens the engine through the platform
// (ApplyContext.storage), and adds upstream's health checks: `etcd` to /healthz, /livez and
// /readyz, `etcd-readiness` to /readyz (NamedGroupedCheck, as addEtcdHealthEndpoint).

import type { Config } from '../config.ts';
import type { Flag, FlagSet } from './flags.ts';
import type { ApplyContext, OptionsGroup } from './options.ts';
import { namedCheck } from '../healthz/healthz.ts';
import {
  defaultCompactIntervalMs,
  defaultEtcdPathPrefix,
  defaultHealthcheckTimeoutMs,
  defaultLeaseReuseDurationSeconds,
  defaultReadinessTimeoutMs,
  newDefaultConfig,
  storageTypes,
  type StorageBackendConfig,
  type StorageType,
} from '../../storage/storagebackend/config.ts';
import { newStorageCheck } from '../../storage/storagebackend/healthcheck.ts';
import { openStorageBackend } from '../../storage/storagebackend/open.ts';
import { readTextFile } from '../../util/filesystem.ts';

const nanosPerMs = 1e6;

export class EtcdOptions implements OptionsGroup {
  storageBackend!: Flag<string>;
  etcdServers!: Flag<string[]>;
  etcdPrefix!: Flag<string>;
  keyFile!: Flag<string>;
  certFile!: Flag<string>;
  caFile!: Flag<string>;
  compactionInterval!: Flag<number>;
  healthcheckTimeout!: Flag<number>;
  readycheckTimeout!: Flag<number>;
  watchCache!: Flag<boolean>;
  leaseReuseDurationSeconds!: Flag<number>;
  sqlitePath!: Flag<string>;
  encryptionProviderConfig!: Flag<string>;
  /** --cert-dir (SecureServingOptions), for the default --sqlite-path. */
  private readonly certDir: () => string;

  constructor(certDir: () => string = () => '') {
    this.certDir = certDir;
  }

  addFlags(fs: FlagSet): void {
    fs.section('Etcd');
    this.caFile = fs.string('etcd-cafile', '');
    this.certFile = fs.string('etcd-certfile', '');
    this.compactionInterval = fs.duration('etcd-compaction-interval', defaultCompactIntervalMs * nanosPerMs);
    this.healthcheckTimeout = fs.duration('etcd-healthcheck-timeout', defaultHealthcheckTimeoutMs * nanosPerMs);
    this.keyFile = fs.string('etcd-keyfile', '');
    this.etcdPrefix = fs.string('etcd-prefix', defaultEtcdPathPrefix);
    this.readycheckTimeout = fs.duration('etcd-readycheck-timeout', defaultReadinessTimeoutMs * nanosPerMs);
    this.encryptionProviderConfig = fs.string('encryption-provider-config', '');
    this.etcdServers = fs.stringSlice('etcd-servers', []);
    this.leaseReuseDurationSeconds = fs.int('lease-reuse-duration-seconds', defaultLeaseReuseDurationSeconds);
    this.sqlitePath = fs.string('sqlite-path', '');
    this.storageBackend = fs.string('storage-backend', '');
    this.watchCache = fs.bool('watch-cache', true);
  }

  /** The backend in effect: --storage-backend, else etcd3 with --etcd-servers, else sqlite. */
  storageType(): string {
    const t = this.storageBackend?.value ?? '';
    if (t !== '') return t;
    return this.etcdServers?.value.length ? 'etcd3' : 'sqlite';
  }

  validate(): string[] {
    if (!this.storageBackend) return [];
    const errors: string[] = [];
    const type = this.storageType();
    if (type === 'etcd3' && this.etcdServers.value.length === 0) errors.push('--etcd-servers must be specified');
    if (!(storageTypes as readonly string[]).includes(type)) {
      errors.push(
        `--storage-backend invalid, allowed values: ${storageTypes.join(', ')}. If not specified, it will default to 'sqlite', or to 'etcd3' when --etcd-servers is set`,
      );
    }
    for (const server of this.etcdServers.value) {
      if (!/^https?:\/\/[^/]+\/?$/.test(server)) {
        errors.push(
          `--etcd-servers invalid: ${JSON.stringify(server)} is not a URL of the form scheme://host:port (scheme http or https)`,
        );
      }
    }
    if (this.leaseReuseDurationSeconds.value < 0)
      errors.push('--lease-reuse-duration-seconds can not be negative value');
    return errors;
  }

  /** The plain storage backend config (storagebackend.Config). */
  storageConfig(): StorageBackendConfig {
    const c = newDefaultConfig(this.etcdPrefix.value);
    c.type = this.storageType() as StorageType;
    c.transport = {
      serverList: [...this.etcdServers.value],
      keyFile: this.keyFile.value,
      certFile: this.certFile.value,
      trustedCAFile: this.caFile.value,
    };
    const dir = this.certDir().replace(/\/+$/, '');
    c.sqlitePath = this.sqlitePath.value || (dir ? `${dir}/registry.db` : 'registry.db');
    c.compactionIntervalMs = this.compactionInterval.value / nanosPerMs;
    c.healthcheckTimeoutMs = this.healthcheckTimeout.value / nanosPerMs || defaultHealthcheckTimeoutMs;
    c.readycheckTimeoutMs = this.readycheckTimeout.value / nanosPerMs || defaultReadinessTimeoutMs;
    c.enableWatchCache = this.watchCache.value;
    c.leaseReuseDurationSeconds = this.leaseReuseDurationSeconds.value;
    c.encryptionProviderConfigFilepath = this.encryptionProviderConfig.value;
    return c;
  }

  async applyTo(config: Config, ctx: ApplyContext): Promise<void> {
    if (!this.storageBackend) return;
    const storageConfig = this.storageConfig();
    const platform = ctx.storage ?? {};
    // The implicit default on a platform without a SQLite binding (embedders, tests): memory.
    if (storageConfig.type === 'sqlite' && !this.storageBackend.changed && !platform.openSQLite)
      storageConfig.type = 'memory';
    const backend = await openStorageBackend(storageConfig, platform, {
      readTextFile: (path) => readTextFile(ctx.fileSystem, path),
      logger: ctx.logger,
    });
    config.storage = backend;
    // addEtcdHealthEndpoint: `etcd` on all three endpoints, `etcd-readiness` on /readyz.
    const health = newStorageCheck(() => backend.kv.readinessCheck(), {
      timeoutMs: storageConfig.healthcheckTimeoutMs,
    });
    const ready = newStorageCheck(() => backend.kv.readinessCheck(), { timeoutMs: storageConfig.readycheckTimeoutMs });
    const etcd = namedCheck('etcd', health, 'etcd');
    config.healthzChecks.push(etcd);
    config.livezChecks.push(etcd);
    config.readyzChecks.push(etcd, namedCheck('etcd-readiness', ready, 'etcd-readiness'));
    // Upstream starts the compactor with the first etcd3 storage (New) and stops it on Destroy.
    config.routeInstallers.push((server) => {
      backend.start();
      server.addDestroyFunc(() => {
        backend
          .close()
          .catch((err: unknown) => ctx.logger.error('Closing the storage backend failed', { err: String(err) }));
      });
    });
  }
}
