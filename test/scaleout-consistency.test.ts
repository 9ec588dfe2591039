// Several servers over one etcd serve one consistent API (issue 19): a write acknowledged by one
// instance is in a consistent list (resourceVersion="") and get on every other instance right
// after, also when other resources were written in between (the watch cache then learns from etcd
// that its prefix did not change); a watch on B sees A's writes in revision order; a client that
// moves from A to B resumes its watch by resourceVersion without a gap or a duplicate.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { etcdSkip, startEtcd, type EtcdServer } from './etcd-harness.ts';
import { configMap, request, startInstance, watch, workDir, type Instance } from './scaleout-harness.ts';

const cms = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const lease = (name: string, holder: string) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name },
  spec: { holderIdentity: holder },
});

describe('scale-out over one etcd: consistency across instances', { skip: etcdSkip() }, () => {
  let etcd: EtcdServer;
  const work = workDir();
  let servers: Instance[] = [];
  before(async () => {
    etcd = await startEtcd();
    const args = [`--etcd-servers=${etcd.clientURL}`, '--authorization-mode=RBAC'];
    servers = await Promise.all(
      [1, 2, 3].map((i) => startInstance(work, [...args, `--advertise-address=10.0.0.${i}`])),
    );
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.kill('SIGKILL')));
    await etcd?.stop();
    work.rm();
  });

  test('a write through one instance is in the next consistent list and get on every other', async () => {
    const [a, b, c] = servers.map((s) => s.port) as [number, number, number];
    for (let i = 0; i < 30; i++) {
      const [writer, reader] = [
        [a, b],
        [b, c],
        [c, a],
      ][i % 3]!;
      const name = `cm-${i}`;
      const created = await request(writer!, 'POST', cms('default'), configMap(name, { i: String(i) }));
      assert.equal(created.status, 201, created.body);
      // A write to another resource in between moves etcd's revision past the configmap's.
      if (i % 2 === 0) {
        const l = await request(
          writer!,
          'POST',
          '/apis/coordination.k8s.io/v1/namespaces/default/leases',
          lease(`l-${i}`, 'x'),
        );
        assert.equal(l.status, 201, l.body);
      }
      const list = await request(reader!, 'GET', cms('default'));
      assert.equal(list.status, 200, list.body);
      const names = list.json().items.map((o: { metadata: { name: string } }) => o.metadata.name);
      assert.ok(names.includes(name), `list on the other instance misses ${name} (has ${names.length})`);
      assert.ok(
        Number(list.json().metadata.resourceVersion) >= Number(created.json().metadata.resourceVersion),
        'list resourceVersion older than the acknowledged write',
      );
      const got = await request(reader!, 'GET', `${cms('default')}/${name}`);
      assert.equal(got.status, 200, got.body);
      assert.equal(got.json().metadata.resourceVersion, created.json().metadata.resourceVersion);
      // Updates and deletes are seen just the same.
      if (i % 3 === 1) {
        const upd = await request(writer!, 'PUT', `${cms('default')}/${name}`, {
          ...configMap(name, { i: 'updated' }),
          metadata: { name, resourceVersion: created.json().metadata.resourceVersion },
        });
        assert.equal(upd.status, 200, upd.body);
        const again = await request(reader!, 'GET', cms('default'));
        const item = again.json().items.find((o: { metadata: { name: string } }) => o.metadata.name === name);
        assert.equal(item?.data?.i, 'updated');
      }
      if (i % 3 === 2) {
        assert.equal((await request(writer!, 'DELETE', `${cms('default')}/${name}`)).status, 200);
        const gone = await request(reader!, 'GET', cms('default'));
        assert.ok(!gone.json().items.some((o: { metadata: { name: string } }) => o.metadata.name === name));
        assert.equal((await request(reader!, 'GET', `${cms('default')}/${name}`)).status, 404);
      }
    }
  });

  test('a watch on B sees the writes made through A in revision order; list+watch from a list RV works after foreign writes', async () => {
    const [a, b] = servers.map((s) => s.port) as [number, number];
    assert.equal((await request(a, 'POST', '/api/v1/namespaces', { metadata: { name: 'w1' } })).status, 201);
    // Writes to other resources after the configmap list: its resourceVersion is etcd's revision.
    await request(a, 'POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', lease('w1-l', 'x'));
    const list = await request(b, 'GET', cms('w1'));
    assert.equal(list.status, 200);
    const w = await watch(b, `${cms('w1')}?resourceVersion=${list.json().metadata.resourceVersion}`);
    const acked: string[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await request(a, 'POST', cms('w1'), configMap(`x${i}`));
      assert.equal(r.status, 201, r.body);
      acked.push(r.json().metadata.resourceVersion);
      await request(a, 'POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', lease(`w1-${i}`, 'x'));
    }
    const upd = await request(a, 'PUT', `${cms('w1')}/x0`, {
      ...configMap('x0', { v: '2' }),
      metadata: { name: 'x0' },
    });
    assert.equal(upd.status, 200, upd.body);
    acked.push(upd.json().metadata.resourceVersion);
    assert.equal((await request(a, 'DELETE', `${cms('w1')}/x1`)).status, 200);
    const evs = await w.until(12);
    w.stop();
    assert.deepEqual(
      evs.map((e) => e.type),
      [...Array(10).fill('ADDED'), 'MODIFIED', 'DELETED'],
    );
    assert.deepEqual(
      evs.slice(0, 11).map((e) => e.object.metadata.resourceVersion),
      acked,
      'the watch on B carries the revisions A acknowledged, in order',
    );
    const rvs = evs.map((e) => Number(e.object.metadata.resourceVersion));
    for (let i = 1; i < rvs.length; i++) assert.ok(rvs[i]! > rvs[i - 1]!, `revision order: ${rvs.join(',')}`);
  });

  test('a client moving from A to B resumes its watch by resourceVersion: no gap, no duplicate', async () => {
    const [a, b, c] = servers.map((s) => s.port) as [number, number, number];
    assert.equal((await request(c, 'POST', '/api/v1/namespaces', { metadata: { name: 'w2' } })).status, 201);
    const start = (await request(a, 'GET', cms('w2'))).json().metadata.resourceVersion as string;
    const wa = await watch(a, `${cms('w2')}?resourceVersion=${start}`);
    const acked: string[] = [];
    const write = async (i: number) => {
      const r = await request(c, 'POST', cms('w2'), configMap(`y${i}`));
      assert.equal(r.status, 201, r.body);
      acked.push(r.json().metadata.resourceVersion);
    };
    for (let i = 0; i < 5; i++) await write(i);
    const firstPart = await wa.until(5);
    wa.stop(); // the client loses A
    for (let i = 5; i < 10; i++) await write(i); // …while writes go on through C
    const last = firstPart[firstPart.length - 1]!.object.metadata.resourceVersion!;
    const wb = await watch(b, `${cms('w2')}?resourceVersion=${last}`);
    for (let i = 10; i < 15; i++) await write(i);
    const rest = await wb.until(10);
    // Nothing more than the ten after `last` arrives.
    await new Promise((r) => setTimeout(r, 300));
    wb.stop();
    assert.equal(wb.events.filter((e) => e.type !== 'BOOKMARK').length, 10);
    const seen = [...firstPart, ...rest].map((e) => e.object.metadata.resourceVersion);
    assert.deepEqual(seen, acked, 'every acknowledged write exactly once, in order');
    assert.deepEqual(
      [...firstPart, ...rest].map((e) => e.object.metadata.name),
      acked.map((_, i) => `y${i}`),
    );
  });

  test('a server started after the writes resumes a watch from an older resourceVersion (from etcd)', async () => {
    const [a] = servers.map((s) => s.port) as [number];
    assert.equal((await request(a, 'POST', '/api/v1/namespaces', { metadata: { name: 'w3' } })).status, 201);
    const start = (await request(a, 'GET', cms('w3'))).json().metadata.resourceVersion as string;
    const acked: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await request(a, 'POST', cms('w3'), configMap(`z${i}`));
      acked.push(r.json().metadata.resourceVersion);
    }
    const late = await startInstance(work, [`--etcd-servers=${etcd.clientURL}`, '--advertise-address=10.0.0.9']);
    try {
      const w = await watch(late.port, `${cms('w3')}?resourceVersion=${start}`);
      const r = await request(a, 'POST', cms('w3'), configMap('z3'));
      acked.push(r.json().metadata.resourceVersion);
      const evs = await w.until(4);
      w.stop();
      assert.deepEqual(
        evs.map((e) => [e.type, e.object.metadata.resourceVersion]),
        acked.map((rv) => ['ADDED', rv]),
      );
    } finally {
      await late.kill('SIGKILL');
    }
  });

  test('the kubernetes Endpoints list every live server (lease reconciler); a stopped one drops out', async () => {
    const port = servers[0]!.port;
    const addresses = async () => {
      const r = await request(port, 'GET', '/api/v1/namespaces/default/endpoints/kubernetes');
      if (r.status !== 200) return [];
      return (r.json().subsets?.[0]?.addresses ?? []).map((a: { ip: string }) => a.ip) as string[];
    };
    const wait = async (want: string[]) => {
      const end = Date.now() + 30_000;
      let got: string[] = [];
      while (Date.now() < end) {
        got = await addresses();
        if (JSON.stringify(got) === JSON.stringify(want)) return;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.deepEqual(got, want);
    };
    await wait(['10.0.0.1', '10.0.0.2', '10.0.0.3']);
    const stopped = servers.pop()!;
    assert.equal(await stopped.kill('SIGTERM'), 0);
    await wait(['10.0.0.1', '10.0.0.2']);
  });
});
