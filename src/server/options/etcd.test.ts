import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EtcdOptions } from './etcd.ts';
import { FlagSet } from './flags.ts';
import { ServerOptions } from './options.ts';
import { MemoryFileSystem } from '../../util/filesystem.ts';
import { newConfig } from '../config.ts';
import { discardLogger } from '../../util/logger.ts';
import { EtcdKV } from '../../storage/etcd3/kv.ts';
import type { KV } from '../../storage/kv.ts';
import { MemoryKV } from '../../storage/memory/kv.ts';

function parsed(args: string[], certDir = '/var/run/kubernetes'): EtcdOptions {
  const o = new EtcdOptions(() => certDir);
  const fs = new FlagSet('test');
  o.addFlags(fs);
  fs.parse(args);
  return o;
}

test('EtcdOptions: defaults as kube-apiserver (prefix /registry, 5m compaction, 2s checks, watch cache on); sqlite without --etcd-servers', () => {
  const o = parsed([]);
  assert.deepEqual(o.validate(), []);
  assert.deepEqual(o.storageConfig(), {
    type: 'sqlite',
    prefix: '/registry',
    transport: { serverList: [], keyFile: '', certFile: '', trustedCAFile: '' },
    sqlitePath: '/var/run/kubernetes/registry.db',
    compactionIntervalMs: 300_000,
    healthcheckTimeoutMs: 2000,
    readycheckTimeoutMs: 2000,
    enableWatchCache: true,
    leaseReuseDurationSeconds: 60,
    encryptionProviderConfigFilepath: '',
  });
});

test('EtcdOptions: --etcd-servers selects etcd3; values apply in Config units', () => {
  const o = parsed([
    '--etcd-servers=https://10.0.0.1:2379,https://10.0.0.2:2379',
    '--etcd-prefix=/k8s',
    '--etcd-cafile=/pki/ca.crt',
    '--etcd-certfile=/pki/client.crt',
    '--etcd-keyfile=/pki/client.key',
    '--etcd-compaction-interval=0',
    '--etcd-healthcheck-timeout=500ms',
    '--etcd-readycheck-timeout=3s',
    '--watch-cache=false',
    '--lease-reuse-duration-seconds=10',
  ]);
  assert.deepEqual(o.validate(), []);
  const c = o.storageConfig();
  assert.equal(c.type, 'etcd3');
  assert.equal(c.prefix, '/k8s');
  assert.deepEqual(c.transport, {
    serverList: ['https://10.0.0.1:2379', 'https://10.0.0.2:2379'],
    keyFile: '/pki/client.key',
    certFile: '/pki/client.crt',
    trustedCAFile: '/pki/ca.crt',
  });
  assert.equal(c.compactionIntervalMs, 0);
  assert.equal(c.healthcheckTimeoutMs, 500);
  assert.equal(c.readycheckTimeoutMs, 3000);
  assert.equal(c.enableWatchCache, false);
  assert.equal(c.leaseReuseDurationSeconds, 10);
  assert.equal(parsed(['--sqlite-path=/data/r.db']).storageConfig().sqlitePath, '/data/r.db');
  assert.equal(parsed(['--storage-backend=memory']).storageConfig().type, 'memory');
  assert.equal(parsed(['--storage-backend=sqlite', '--etcd-servers=http://e:2379']).storageConfig().type, 'sqlite');
});

test("EtcdOptions: upstream's validation messages", () => {
  assert.deepEqual(parsed(['--storage-backend=etcd3']).validate(), ['--etcd-servers must be specified']);
  assert.deepEqual(parsed(['--storage-backend=etcd2']).validate(), [
    "--storage-backend invalid, allowed values: etcd3, memory, sqlite. If not specified, it will default to 'sqlite', or to 'etcd3' when --etcd-servers is set",
  ]);
  assert.deepEqual(parsed(['--etcd-servers=http://a:2379,localhost:2379']).validate(), [
    '--etcd-servers invalid: "localhost:2379" is not a URL of the form scheme://host:port (scheme http or https)',
  ]);
  assert.deepEqual(parsed(['--lease-reuse-duration-seconds=-1']).validate(), [
    '--lease-reuse-duration-seconds can not be negative value',
  ]);
  assert.throws(() => parsed(['--etcd-compaction-interval=5']), /missing unit in duration "5"/);
  assert.throws(() => parsed(['--watch-cache=maybe']), /invalid syntax/);
});

test('EtcdOptions: the Etcd section of --help, between Generic and Secure serving, sorted, with defaults', () => {
  const help = new ServerOptions().flags.usage('edge-apiserver');
  const sections = [...help.matchAll(/^(\S[^\n]*) flags:$/gm)].map((m) => m[1]);
  assert.deepEqual(sections.slice(0, 3), ['Generic', 'Etcd', 'Secure serving']);
  const etcd = help.slice(help.indexOf('Etcd flags:'), help.indexOf('Secure serving flags:'));
  const names = [...etcd.matchAll(/^ {6}--([a-z0-9-]+)/gm)].map((m) => m[1]);
  assert.deepEqual(names, [
    'encryption-provider-config',
    'etcd-cafile',
    'etcd-certfile',
    'etcd-compaction-interval',
    'etcd-healthcheck-timeout',
    'etcd-keyfile',
    'etcd-prefix',
    'etcd-readycheck-timeout',
    'etcd-servers',
    'lease-reuse-duration-seconds',
    'sqlite-path',
    'storage-backend',
    'watch-cache',
  ]);
  const flat = etcd.replace(/\s+/g, ' ');
  assert.match(
    flat,
    /--etcd-compaction-interval duration The interval of compaction requests\. If 0, the compaction request from apiserver is disabled\. \(default 5m0s\)/,
  );
  assert.match(
    flat,
    /--etcd-healthcheck-timeout duration The timeout to use when checking etcd health\. \(default 2s\)/,
  );
  assert.match(
    flat,
    /--etcd-prefix string The prefix to prepend to all resource paths in etcd\. \(default "\/registry"\)/,
  );
  assert.match(
    flat,
    /--etcd-servers strings List of etcd servers to connect with \(scheme:\/\/ip:port\), comma separated\./,
  );
  assert.match(flat, /--watch-cache Enable watch caching in the apiserver \(default true\)/);
});

test('EtcdOptions.applyTo: etcd3 opens the gateway engine and adds etcd (healthz, livez, readyz) and etcd-readiness (readyz)', async () => {
  const o = parsed(['--etcd-servers=http://127.0.0.1:1']);
  o.validate();
  const c = newConfig();
  await o.applyTo(c, { fileSystem: new MemoryFileSystem(), logger: discardLogger });
  assert.ok(c.storage?.kv instanceof EtcdKV);
  assert.deepEqual(
    c.healthzChecks.map((h) => h.name),
    ['ping', 'log', 'etcd'],
  );
  assert.deepEqual(
    c.livezChecks.map((h) => h.name),
    ['ping', 'log', 'etcd'],
  );
  assert.deepEqual(
    c.readyzChecks.map((h) => h.name),
    ['ping', 'log', 'etcd', 'etcd-readiness'],
  );
  assert.equal(c.readyzChecks[2]!.group, 'etcd');
  await c.storage!.close();
});

test('EtcdOptions.applyTo: sqlite from the platform; explicit sqlite without a binding fails; the implicit default falls back to memory', async () => {
  const opened: string[] = [];
  const fake = { close: async () => {}, readinessCheck: async () => {} } as unknown as KV;
  const c = newConfig();
  await parsed([], '/certs/').applyTo(c, {
    fileSystem: new MemoryFileSystem(),
    logger: discardLogger,
    storage: { openSQLite: (p) => (opened.push(p), fake) },
  });
  assert.deepEqual(opened, ['/certs/registry.db']);
  assert.equal(c.storage?.kv, fake);
  assert.equal(c.storage?.config.type, 'sqlite');
  await assert.rejects(
    parsed(['--storage-backend=sqlite']).applyTo(newConfig(), {
      fileSystem: new MemoryFileSystem(),
      logger: discardLogger,
    }),
    /--storage-backend=sqlite: this platform provides no SQLite binding/,
  );
  const m = newConfig();
  await parsed([]).applyTo(m, { fileSystem: new MemoryFileSystem(), logger: discardLogger });
  assert.equal(m.storage?.config.type, 'memory');
  assert.ok(m.storage?.kv instanceof MemoryKV);
  assert.deepEqual(
    m.readyzChecks.map((h) => h.name),
    ['ping', 'log', 'etcd', 'etcd-readiness'],
  );
  await m.storage!.close();
});

test('EtcdOptions.applyTo: TLS files — both certificate and key, read from the file system, need a platform TLS fetch', async () => {
  const files = new MemoryFileSystem({ '/pki/ca.crt': 'CA', '/pki/c.crt': 'CERT', '/pki/c.key': 'KEY' });
  const ctx = { fileSystem: files, logger: discardLogger };
  await assert.rejects(
    parsed(['--etcd-servers=https://e:2379', '--etcd-certfile=/pki/c.crt']).applyTo(newConfig(), ctx),
    /^Error: KeyFile and CertFile must both be present\[key: , cert: \/pki\/c.crt\]$/,
  );
  await assert.rejects(
    parsed(['--etcd-servers=https://e:2379', '--etcd-cafile=/pki/ca.crt']).applyTo(newConfig(), ctx),
    /this platform cannot make TLS connections with a private CA or client certificates/,
  );
  let got: unknown;
  const c = newConfig();
  await parsed([
    '--etcd-servers=https://e:2379',
    '--etcd-cafile=/pki/ca.crt',
    '--etcd-certfile=/pki/c.crt',
    '--etcd-keyfile=/pki/c.key',
  ]).applyTo(c, {
    ...ctx,
    storage: { etcdFetch: (tls) => ((got = tls), fetch) },
  });
  assert.deepEqual(got, { ca: 'CA', cert: 'CERT', key: 'KEY' });
  await c.storage!.close();
});
