// The watch cache over the embedded SQLite revision log: after a write to another resource, a
// consistent list is read at the store's revision, and a watch from that list's resourceVersion
// starts at once (the cache asks the log whether its prefix changed since, RevisionLog.unchangedSince)
// instead of waiting for a progress notification and answering 504 "Too large resource version".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSQLiteKV } from '../adapters/node/sqlite.ts';
import { Store } from '../src/storage/store.ts';
import { Cacher } from '../src/storage/cacher/cacher.ts';
import type { StorageObject, WatchEvent } from '../src/storage/interfaces.ts';

test('SQLite: unchangedSince sees creates, updates and deletes under the prefix only', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scaleout-sqlite-'));
  const kv = openSQLiteKV(join(dir, 'db.sqlite'));
  try {
    const v = new TextEncoder().encode('x');
    const a = await kv.create('/registry/cm/a', v);
    assert.equal(await kv.unchangedSince('/registry/cm/', a.revision, 1), a.revision);
    const other = await kv.create('/registry/cm0', v);
    assert.equal(await kv.unchangedSince('/registry/cm/', a.revision, 1), other.revision);
    const del = await kv.delete('/registry/cm/a', a.revision);
    assert.equal(await kv.unchangedSince('/registry/cm/', a.revision, 1), undefined);
    assert.equal(await kv.unchangedSince('/registry/cm/', del.revision, 0), del.revision);
  } finally {
    await kv.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SQLite: a watch from a consistent list resourceVersion after a foreign write starts at once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scaleout-sqlite-'));
  const kv = openSQLiteKV(join(dir, 'db.sqlite'));
  const gr = { group: '', resource: 'configmaps' };
  const store = new Store({ kv, pathPrefix: '/registry', resourcePrefix: '/configmaps', groupResource: gr });
  const leases = new Store({
    kv,
    pathPrefix: '/registry',
    resourcePrefix: '/leases',
    groupResource: { group: 'coordination.k8s.io', resource: 'leases' },
  });
  const cacher = new Cacher({
    storage: store,
    resourcePrefix: '/configmaps',
    groupResource: gr,
    freshnessTimeoutMs: 3000,
  });
  const cm = (name: string): StorageObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'ns' },
  });
  try {
    await cacher.waitReady();
    await cacher.create('/configmaps/ns/a', cm('a'));
    await leases.create('/leases/ns/l', {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l', namespace: 'ns' },
    });
    const list = await cacher.getList('/configmaps', { recursive: true });
    assert.equal(list.items.length, 1);
    assert.equal(Number(list.resourceVersion), await kv.currentRevision(), 'the list is read at the current revision');
    const t0 = Date.now();
    const w = await cacher.watch('/configmaps', { recursive: true, resourceVersion: list.resourceVersion });
    await cacher.create('/configmaps/ns/b', cm('b'));
    const it = w[Symbol.asyncIterator]();
    const first = (await it.next()).value as WatchEvent;
    w.stop();
    assert.equal(first.type, 'ADDED', JSON.stringify(first));
    assert.equal(first.object.metadata?.name, 'b');
    assert.ok(Date.now() - t0 < 2500, 'the watch waited for a progress notification');
  } finally {
    cacher.stop();
    await kv.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
