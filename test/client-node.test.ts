// @kubernetes/client-node 2.0.1 against the CLI over real TLS with the admin kubeconfig: CRUD on
// ConfigMaps (CoreV1Api, errors as ApiException with upstream's Status), and an informer: list then
// watch, reconnect by resourceVersion when the server ends the watch (--min-request-timeout=2),
// relist after a 410 caused by compaction (memory engine, no watch cache, 1 s compaction).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApiException,
  CoreV1Api,
  KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type V1ConfigMap,
} from '@kubernetes/client-node';

const root = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-client-node-'));
let proc: ChildProcess | undefined;
let kc: KubeConfig;
let core: CoreV1Api;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

before(async () => {
  const port = await freePort();
  const certDir = join(dir, 'certs');
  proc = spawn(
    process.execPath,
    [
      join(root, 'adapters/node/bin.mjs'),
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
      `--cert-dir=${certDir}`,
      '--storage-backend=memory',
      '--watch-cache=false',
      '--etcd-compaction-interval=1s',
      '--min-request-timeout=2',
    ],
    { env: { ...process.env, NODE_NO_WARNINGS: '1' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 30_000);
    proc!.stderr!.setEncoding('utf8').on('data', (d) => {
      err += d;
      if (err.includes('Serving securely on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc!.once('exit', (code) => reject(new Error(`server exited with ${code}: ${err}`)));
  });
  kc = new KubeConfig();
  kc.loadFromFile(join(certDir, 'admin.kubeconfig'));
  core = kc.makeApiClient(CoreV1Api);
  for (const name of ['cn', 'inf', 'noise']) {
    for (let i = 0; ; i++) {
      try {
        await core.createNamespace({ body: { metadata: { name } } });
        break;
      } catch (e) {
        // The system namespaces controller may still be starting.
        if (i > 50) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
});

after(() => {
  proc?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

test('CoreV1Api: create, read, replace, patch, list by label, delete a ConfigMap; errors are ApiExceptions', async () => {
  const created = await core.createNamespacedConfigMap({
    namespace: 'cn',
    body: { metadata: { name: 'one', labels: { app: 'x' } }, data: { a: '1' } },
  });
  assert.ok(created.metadata?.uid);
  assert.equal(created.data?.a, '1');
  const read = await core.readNamespacedConfigMap({ namespace: 'cn', name: 'one' });
  assert.equal(read.metadata?.resourceVersion, created.metadata?.resourceVersion);
  read.data = { a: '2' };
  const replaced = await core.replaceNamespacedConfigMap({ namespace: 'cn', name: 'one', body: read });
  assert.equal(replaced.data?.a, '2');
  const patched = await core.patchNamespacedConfigMap(
    { namespace: 'cn', name: 'one', body: { data: { b: '3' } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  assert.deepEqual(patched.data, { a: '2', b: '3' });
  await core.createNamespacedConfigMap({ namespace: 'cn', body: { metadata: { name: 'two' } } });
  const list = await core.listNamespacedConfigMap({ namespace: 'cn', labelSelector: 'app=x' });
  assert.deepEqual(
    list.items.map((i) => i.metadata?.name),
    ['one'],
  );
  assert.ok(Number(list.metadata?.resourceVersion) > 0);
  // A stale replace is a 409 with upstream's message.
  await assert.rejects(core.replaceNamespacedConfigMap({ namespace: 'cn', name: 'one', body: read }), (e: unknown) => {
    assert.ok(e instanceof ApiException);
    assert.equal(e.code, 409);
    assert.match(String(e.body), /the object has been modified; please apply your changes to the latest version/);
    return true;
  });
  await core.deleteNamespacedConfigMap({ namespace: 'cn', name: 'one' });
  await assert.rejects(core.readNamespacedConfigMap({ namespace: 'cn', name: 'one' }), (e: unknown) => {
    assert.ok(e instanceof ApiException);
    assert.equal(e.code, 404);
    assert.equal(JSON.parse(String(e.body)).message, 'configmaps "one" not found');
    return true;
  });
});

async function until(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('informer: list then watch, reconnect by resourceVersion, relist after 410 Gone from compaction', async () => {
  let lists = 0;
  let connects = 0;
  const listFn = () => {
    lists++;
    return core.listNamespacedConfigMap({ namespace: 'inf' });
  };
  const informer = makeInformer<V1ConfigMap>(kc, '/api/v1/namespaces/inf/configmaps', listFn);
  const added: string[] = [];
  const updated: string[] = [];
  const deleted: string[] = [];
  const errors: unknown[] = [];
  informer.on('add', (o) => added.push(o.metadata!.name!));
  informer.on('update', (o) => updated.push(o.metadata!.name!));
  informer.on('delete', (o) => deleted.push(o.metadata!.name!));
  informer.on('error', (e) => errors.push(e));
  informer.on('connect', () => connects++);
  await core.createNamespacedConfigMap({ namespace: 'inf', body: { metadata: { name: 'before' } } });
  await informer.start();
  try {
    await until(() => added.includes('before'), 'the listed object');
    assert.equal(lists, 1);
    await core.createNamespacedConfigMap({ namespace: 'inf', body: { metadata: { name: 'a' } } });
    await until(() => added.includes('a'), 'a watched add');
    // The server ends the watch after 2–4 s: the informer reconnects from its resourceVersion, no relist.
    const c0 = connects;
    await until(() => connects > c0, 'a reconnect', 15_000);
    await core.createNamespacedConfigMap({ namespace: 'inf', body: { metadata: { name: 'b' } } });
    await until(() => added.includes('b'), 'an add after the reconnect');
    assert.equal(lists, 1, 'reconnected by resourceVersion, not relisted');
    // Writes elsewhere move the revision on; compaction (every second) drops the informer's
    // resourceVersion from history: its next watch is answered 410 and it lists again.
    for (let i = 0; i < 5; i++)
      await core.createNamespacedConfigMap({ namespace: 'noise', body: { metadata: { name: `n${i}` } } });
    await until(() => lists >= 2, 'a relist after 410 Gone', 20_000);
    assert.deepEqual(errors, []);
    // The cache is whole after the relist, and the watch goes on.
    await core.deleteNamespacedConfigMap({ namespace: 'inf', name: 'a' });
    await until(() => deleted.includes('a'), 'a watched delete');
    assert.deepEqual(
      informer
        .list()
        .map((o) => o.metadata!.name)
        .sort(),
      ['b', 'before'],
    );
    assert.equal(added.filter((n) => n === 'before').length, 1, 'the relist does not re-add what the cache has');
  } finally {
    await informer.stop();
  }
});
