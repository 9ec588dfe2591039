import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryKV } from './memory/kv.ts';
import { Compactor } from './compactor.ts';
import { StorageFactory } from './storagebackend/factory.ts';
import { Cacher } from './cacher/cacher.ts';
import { Store } from './store.ts';

const enc = new TextEncoder();

test('compactor: each tick compacts to the revision seen at the previous tick', async () => {
  const kv = new MemoryKV();
  const seen: number[] = [];
  const c = new Compactor(kv, { intervalMs: 0, onCompact: (r) => seen.push(r) });
  await kv.create('/registry/x/a', enc.encode('1'));
  const r1 = await kv.currentRevision();
  await c.tick();
  assert.equal(kv.compactRevision(), 0, 'the first tick only records the revision');
  await kv.update('/registry/x/a', enc.encode('2'), r1);
  const r2 = await kv.currentRevision();
  await c.tick();
  assert.equal(kv.compactRevision(), r1, 'compacted to the previous tick');
  await c.tick();
  assert.equal(kv.compactRevision(), r2);
  await c.tick();
  assert.deepEqual(seen, [r1, r2], 'no compaction without new revisions');
  await c.stop();
  await kv.close();
});

test('factory: the store under a watch cache by default; the bare store with watchCache=false; key layout', async () => {
  const kv = new MemoryKV();
  const f = new StorageFactory({ kv });
  const cms = f.forResource({ groupResource: { group: '', resource: 'configmaps' } });
  assert.ok(cms.storage instanceof Cacher);
  assert.equal(cms.resourcePrefix, '/configmaps');
  const svc = f.forResource({ groupResource: { group: '', resource: 'services' } });
  assert.equal(svc.resourcePrefix, '/services/specs');
  const cr = f.forResource({ groupResource: { group: 'example.com', resource: 'widgets' }, custom: true });
  assert.equal(cr.resourcePrefix, '/example.com/widgets');
  await cr.storage.create('/example.com/widgets/ns/w', { metadata: { name: 'w', namespace: 'ns' } });
  assert.ok(
    (await kv.get('/registry/example.com/widgets/ns/w')).kv,
    'custom resources under /registry/<group>/<plural>',
  );
  const bare = new StorageFactory({ kv, watchCache: false, prefix: '/other' }).forResource({
    groupResource: { group: '', resource: 'pods' },
  });
  assert.ok(bare.storage instanceof Store);
  await bare.storage.create('/pods/ns/p', { metadata: { name: 'p', namespace: 'ns' } });
  assert.ok((await kv.get('/other/pods/ns/p')).kv);
  f.destroy();
  await kv.close();
});
