// Leader election across servers over one etcd (issue 19): the controllers that must run once
// (namespace deletion, garbage collection, service accounts) run in the server holding the
// kube-system/kube-controller-manager Lease; SIGKILL of that server moves them to another within
// one lease duration (plus the retry period in which the others notice). Durations are shortened
// by the flags; the defaults are upstream's 15 s / 10 s / 2 s (options test).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { etcdSkip, startEtcd, type EtcdServer } from './etcd-harness.ts';
import { request, startInstance, workDir, type Instance } from './scaleout-harness.ts';

const leasePath = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager';
const started = 'Starting the controllers that run in the leader only';
const leaseMs = 3000;
const retryMs = 500;

async function until<T>(f: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function holder(port: number): Promise<string | undefined> {
  const r = await request(port, 'GET', leasePath);
  return r.status === 200 ? r.json().spec.holderIdentity || undefined : undefined;
}

/** A namespace deleted through `port` is finalized and gone (the namespace controller runs somewhere). */
async function namespaceDeletionWorks(port: number, name: string): Promise<void> {
  assert.equal((await request(port, 'POST', '/api/v1/namespaces', { metadata: { name } })).status, 201);
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
  assert.equal((await request(port, 'POST', `/api/v1/namespaces/${name}/configmaps`, cm)).status, 201);
  assert.equal((await request(port, 'DELETE', `/api/v1/namespaces/${name}`)).status, 200);
  await until(
    async () => ((await request(port, 'GET', `/api/v1/namespaces/${name}`)).status === 404 ? true : undefined),
    20_000,
    `namespace ${name} finalized`,
  );
}

describe('scale-out over one etcd: controllers elect a leader', { skip: etcdSkip() }, () => {
  let etcd: EtcdServer;
  const work = workDir();
  let servers: Instance[] = [];
  before(async () => {
    etcd = await startEtcd();
    const args = [
      `--etcd-servers=${etcd.clientURL}`,
      '--leader-elect-lease-duration=3s',
      '--leader-elect-renew-deadline=2s',
      `--leader-elect-retry-period=${retryMs}ms`,
    ];
    servers = await Promise.all([startInstance(work, args), startInstance(work, args), startInstance(work, args)]);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.kill('SIGKILL')));
    await etcd?.stop();
    work.rm();
  });

  const alive = (s: Instance) => s.proc.exitCode === null && s.proc.signalCode === null;
  const leaders = () => servers.filter((s) => alive(s) && s.stderr().includes(started));

  test('one server holds the Lease and runs the namespace controller; SIGKILL moves it within a lease duration', async () => {
    const port = servers[0]!.port;
    const first = await until(() => holder(port), 20_000, 'a lease holder');
    assert.match(first, /^apiserver-[0-9a-f-]{36}$/);
    const lease = (await request(port, 'GET', leasePath)).json();
    assert.equal(lease.spec.leaseDurationSeconds, 3);
    assert.equal(lease.spec.leaseTransitions, 0);
    assert.match(lease.spec.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    await until(async () => (leaders().length === 1 ? true : undefined), 10_000, 'one leader started its controllers');
    // Every server publishes its identity Lease; the leader's id is one of them.
    const ids = await until(
      async () => {
        const r = await request(
          port,
          'GET',
          '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver',
        );
        const items = r.json().items as { metadata: { name: string }; spec: { holderIdentity: string } }[];
        return items.length === 3 ? items : undefined;
      },
      20_000,
      'three identity leases',
    );
    assert.ok(ids.every((l) => l.spec.holderIdentity === l.metadata.name));
    assert.ok(ids.some((l) => l.metadata.name === first));
    await namespaceDeletionWorks(servers[1]!.port, 'gone-1');
    // Renewals go on; nobody else starts the controllers.
    await new Promise((r) => setTimeout(r, 2 * retryMs));
    assert.equal(leaders().length, 1);
    const renewed = (await request(port, 'GET', leasePath)).json();
    assert.equal(renewed.spec.holderIdentity, first);
    assert.notEqual(renewed.spec.renewTime, lease.spec.renewTime);

    const leader = leaders()[0]!;
    const rest = servers.filter((s) => s !== leader);
    const killedAt = Date.now();
    await leader.kill('SIGKILL');
    const next = await until(
      async () => {
        const h = await holder(rest[0]!.port);
        return h && h !== first ? h : undefined;
      },
      20_000,
      'a new lease holder',
    );
    const handover = Date.now() - killedAt;
    await until(
      async () => (leaders().length === 1 ? true : undefined),
      5000,
      'the new leader started its controllers',
    );
    assert.ok(rest.includes(leaders()[0]!));
    // The others see the last renewal at most a retry period late, then wait one lease duration.
    assert.ok(handover <= leaseMs + 3 * retryMs + 1000, `hand-over took ${handover} ms`);
    const after = (await request(rest[0]!.port, 'GET', leasePath)).json();
    assert.equal(after.spec.holderIdentity, next);
    assert.equal(after.spec.leaseTransitions, 1);
    await namespaceDeletionWorks(rest[1]!.port, 'gone-2');
  });

  test('SIGTERM of the leader releases the Lease: the next one takes over without waiting for it to run out', async () => {
    const leader = leaders()[0]!;
    const other = servers.find((s) => s !== leader && alive(s))!;
    const before = await holder(other.port);
    const t0 = Date.now();
    await leader.kill('SIGTERM');
    await until(
      async () => {
        const h = await holder(other.port);
        return h && h !== before ? h : undefined;
      },
      20_000,
      'the survivor holds the lease',
    );
    assert.ok(Date.now() - t0 < leaseMs + 2 * retryMs + 1000);
    await namespaceDeletionWorks(other.port, 'gone-3');
  });

  test('a server over the embedded store elects nothing: no Lease, its controllers run at once', async () => {
    const alone = await startInstance(work, ['--storage-backend=memory']);
    try {
      await namespaceDeletionWorks(alone.port, 'gone-4');
      assert.equal((await request(alone.port, 'GET', leasePath)).status, 404);
      assert.ok(!alone.stderr().includes(started));
    } finally {
      await alone.kill('SIGKILL');
    }
  });
});
