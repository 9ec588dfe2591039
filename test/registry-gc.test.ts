// The garbage collector in process: background deletion of dependents, dependents created with a
// dangling owner, dependents kept by a second owner (the dangling reference dropped), orphaning,
// foreground deletion waiting on blockOwnerDeletion dependents, and cluster-scoped owners.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type Harness } from './registry-harness.ts';

let h: Harness;
before(async () => {
  h = await startServer();
  assert.equal((await h.req('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'gc' } }))).status, 201);
});
after(() => h.stop());

const CM = '/api/v1/namespaces/gc/configmaps';
const SEC = '/api/v1/namespaces/gc/secrets';

async function create(path: string, name: string, owners: object[] = [], extra: object = {}) {
  const r = await h.req('POST', path, JSON.stringify({ metadata: { name, ownerReferences: owners, ...extra } }));
  assert.equal(r.status, 201, r.text);
  return r.json();
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const ref = (o: Record<string, any>, kind = 'ConfigMap', block?: boolean) => ({
  apiVersion: 'v1',
  kind,
  name: o.metadata.name,
  uid: o.metadata.uid,
  ...(block !== undefined ? { blockOwnerDeletion: block } : {}),
});
const exists = async (path: string) => (await h.req('GET', path)).status === 200;
async function until(cond: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('background: deleting an owner deletes its dependents, across kinds', async () => {
  const owner = await create(CM, 'bg-owner');
  await create(CM, 'bg-dep1', [ref(owner)]);
  await create(SEC, 'bg-dep2', [ref(owner)]);
  const grand = await create(CM, 'bg-dep3', [ref(owner)]);
  await create(CM, 'bg-grandchild', [ref(grand)]);
  const r = await h.req('DELETE', `${CM}/bg-owner`);
  assert.equal(r.status, 200);
  assert.equal(await exists(`${CM}/bg-owner`), false, 'the owner goes at once');
  await until(
    async () =>
      !(await exists(`${CM}/bg-dep1`)) && !(await exists(`${SEC}/bg-dep2`)) && !(await exists(`${CM}/bg-grandchild`)),
    'dependents and their dependents deleted',
  );
});

test('a dependent created with a dangling owner reference is collected; one with a live second owner keeps it', async () => {
  const live = await create(CM, 'live-owner');
  await create(CM, 'dangling-dep', [
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: '00000000-0000-0000-0000-000000000000' },
  ]);
  await create(CM, 'two-owners', [
    ref(live),
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: '00000000-0000-0000-0000-000000000000' },
  ]);
  // An owner of a kind not served here is left alone.
  await create(CM, 'foreign-owner', [
    { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: '11111111-1111-1111-1111-111111111111' },
  ]);
  await until(async () => !(await exists(`${CM}/dangling-dep`)), 'dangling dependent deleted');
  await until(
    async () => (await h.req('GET', `${CM}/two-owners`)).json().metadata.ownerReferences?.length === 1,
    'the dangling reference dropped',
  );
  assert.equal((await h.req('GET', `${CM}/two-owners`)).json().metadata.ownerReferences[0].uid, live.metadata.uid);
  assert.equal(await exists(`${CM}/foreign-owner`), true);
});

test('orphan: the owner goes, its dependents stay without the reference', async () => {
  const owner = await create(CM, 'or-owner');
  await create(CM, 'or-dep', [ref(owner)]);
  const r = await h.req('DELETE', `${CM}/or-owner`, JSON.stringify({ propagationPolicy: 'Orphan' }));
  assert.equal(r.status, 200);
  assert.ok(r.json().metadata.finalizers.includes('orphan'), 'answered with the orphan finalizer');
  await until(async () => !(await exists(`${CM}/or-owner`)), 'owner deleted after orphaning');
  const dep = (await h.req('GET', `${CM}/or-dep`)).json();
  assert.equal(dep.metadata.ownerReferences, undefined);
});

test('foreground: the owner stays (deletionTimestamp, foregroundDeletion) until blocking dependents are gone', async () => {
  const owner = await create(CM, 'fg-owner');
  // A dependent held by its own finalizer, blocking the owner's deletion.
  await create(CM, 'fg-blocker', [ref(owner, 'ConfigMap', true)], { finalizers: ['example.com/hold'] });
  await create(CM, 'fg-free', [ref(owner)]);
  const r = await h.req('DELETE', `${CM}/fg-owner?propagationPolicy=Foreground`);
  assert.equal(r.status, 200);
  assert.deepEqual(r.json().metadata.finalizers, ['foregroundDeletion']);
  assert.ok(r.json().metadata.deletionTimestamp);
  await until(async () => !(await exists(`${CM}/fg-free`)), 'the non-blocking dependent deleted');
  await until(
    async () => !!(await h.req('GET', `${CM}/fg-blocker`)).json().metadata.deletionTimestamp,
    'blocker deleting',
  );
  assert.equal(await exists(`${CM}/fg-owner`), true, 'the owner waits for its blocking dependent');
  // The blocker's finalizer goes: it is deleted, then the owner.
  const b = (await h.req('GET', `${CM}/fg-blocker`)).json();
  b.metadata.finalizers = [];
  assert.equal((await h.req('PUT', `${CM}/fg-blocker`, JSON.stringify(b))).status, 200);
  await until(async () => !(await exists(`${CM}/fg-owner`)), 'owner deleted after its blocking dependent');
});

test('foreground with no dependents, and a cluster-scoped owner of namespaced dependents', async () => {
  await create(CM, 'fg-alone');
  assert.equal((await h.req('DELETE', `${CM}/fg-alone?propagationPolicy=Foreground`)).status, 200);
  await until(async () => !(await exists(`${CM}/fg-alone`)), 'a lone foreground owner deleted');
  const ns = (await h.req('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'owner-ns' } }))).json();
  await create(CM, 'ns-dep', [ref(ns, 'Namespace')]);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(await exists(`${CM}/ns-dep`), true, 'its owner lives');
  assert.equal((await h.req('DELETE', '/api/v1/namespaces/owner-ns')).status, 200);
  await until(async () => !(await exists(`${CM}/ns-dep`)), 'dependent of a deleted namespace deleted');
});
