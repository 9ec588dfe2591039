// A consistent list (RV unset) from the watch cache when the cache's revision is behind storage's
// only because another resource was written. On workerd a timer set by a request that has ended
// never fires: background work started by the isolate's first request (the RBAC bootstrap hook's
// per-kind list) hung when the cache waited on one. The server's memory engine answers
// KV.unchangedSince (MemoryKVOptions.unchangedSince), so the cache needs no timer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryKV } from '../memory/kv.ts';
import { Store } from '../store.ts';
import { Cacher } from './cacher.ts';

const gr = { group: '', resource: 'configmaps' };
const newFunc = () => ({ apiVersion: 'v1', kind: 'ConfigMap' });
const enc = new TextEncoder();

/** Resolves after `n` turns of the event loop (setImmediate, which the test leaves alone). */
const turns = (n: number) =>
  new Promise<'timeout'>((resolve) => {
    const step = (left: number) => (left ? setImmediate(() => step(left - 1)) : resolve('timeout'));
    step(n);
  });

test('a consistent list after another resource was written resolves without a timer firing', async () => {
  const kv = new MemoryKV({ unchangedSince: true });
  const storage = new Store({ kv, pathPrefix: '/registry', resourcePrefix: '/configmaps', groupResource: gr, newFunc });
  const cacher = new Cacher({ storage, resourcePrefix: '/configmaps', groupResource: gr, newFunc });
  await cacher.waitReady();
  try {
    await storage.create('/configmaps/ns/a', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'ns' },
    });
    // As on workerd after the request that set them ended: timers never fire (the memory engine's
    // progress notification for a foreign write is one, the cache's bounded wait another).
    const realSetTimeout = globalThis.setTimeout;
    globalThis.setTimeout = (() => ({ ref() {}, unref() {}, hasRef: () => false })) as unknown as typeof setTimeout;
    let listed;
    let current = 0;
    try {
      // Another resource's writes move the revision past anything the configmaps cache sees.
      for (let i = 0; i < 3; i++)
        assert.ok((await kv.create(`/registry/secrets/ns/s${i}`, enc.encode('{}'))).succeeded);
      current = await kv.currentRevision();
      listed = await Promise.race([cacher.getList('/configmaps/ns', { recursive: true }), turns(200)]);
    } finally {
      globalThis.setTimeout = realSetTimeout;
    }
    assert.notEqual(listed, 'timeout', 'the consistent list waited on a timer');
    assert.ok(typeof listed === 'object');
    assert.deepEqual(
      listed.items.map((o) => o.metadata?.name),
      ['a'],
    );
    assert.ok(Number(listed.resourceVersion) >= current, `list RV ${listed.resourceVersion} < current ${current}`);
  } finally {
    cacher.stop();
    await kv.close();
  }
});

test('memory engine: unchangedSince answers from the event log', async () => {
  assert.equal(new MemoryKV().unchangedSince, undefined, 'off by default');
  const kv = new MemoryKV({ unchangedSince: true });
  try {
    const a = await kv.create('/p/a', enc.encode('1'));
    const since = a.revision;
    await kv.create('/q/b', enc.encode('1'));
    assert.equal(await kv.unchangedSince!('/p/', since, 1), await kv.currentRevision());
    const c = await kv.create('/p/c', enc.encode('1'));
    assert.equal(await kv.unchangedSince!('/p/', since, 1), undefined);
    assert.equal(await kv.unchangedSince!('/p/', c.revision, 2), c.revision);
    await kv.compact(c.revision);
    assert.equal(await kv.unchangedSince!('/p/', since, 1), undefined, 'below the compacted revision: no answer');
    assert.equal(await kv.unchangedSince!('/p/', c.revision, 2), c.revision);
  } finally {
    await kv.close();
  }
});
