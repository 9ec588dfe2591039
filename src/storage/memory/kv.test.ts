// The KV conformance cases (src/storage/testing/kv-cases.ts) against the memory engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryKV } from './kv.ts';
import { kvCases } from '../testing/kv-cases.ts';
import { CompactedError, FutureRevisionError } from '../kv.ts';

for (const c of kvCases) {
  test(`memory KV: ${c.name}`, async () => {
    const kv = new MemoryKV({ progressNotifyIntervalMs: 100 });
    try {
      await c.run(kv);
    } finally {
      await kv.close();
    }
  });
}

test('memory KV: every case on one shared engine, one after another', async () => {
  const kv = new MemoryKV({ progressNotifyIntervalMs: 100 });
  try {
    for (const c of kvCases) await c.run(kv);
  } finally {
    await kv.close();
  }
});

// A key updated 10,000 times: every version stays until compaction (etcd's mvcc keeps history the same
// way; the server's compactor runs every --etcd-compaction-interval), and compaction bounds both the
// key's versions and the event log. The time per update does not grow with the history: the latest
// version is the array's last, the log is appended to.
test('memory KV: 10,000 updates of one key, compacted every 1,000, keep at most the retained history', async () => {
  const kv = new MemoryKV();
  const inside = kv as unknown as {
    versions: Map<string, unknown[]>;
    log: unknown[];
    sortedKeys: { toArray(): string[] };
  };
  const key = '/registry/configmaps/default/x';
  const value = new TextEncoder().encode('{"data":{"k":"v"}}');
  try {
    // Bad input first: compaction below or at the compacted revision, and above the current one, is refused.
    let r = await kv.create(key, value);
    await assert.rejects(kv.compact(r.revision + 1), FutureRevisionError);
    await kv.compact(r.revision);
    await assert.rejects(kv.compact(r.revision), CompactedError);
    let rev = r.revision;
    let most = 0;
    for (let i = 1; i <= 10_000; i++) {
      r = await kv.update(key, value, rev);
      assert.ok(r.succeeded);
      rev = r.revision;
      if (i % 1000 === 0) await kv.compact(rev - 500);
      most = Math.max(most, inside.versions.get(key)!.length, inside.log.length);
    }
    // Up to 1,000 writes between compactions on top of the 500 retained.
    assert.ok(most <= 1501, `history reached ${most} entries`);
    assert.equal(inside.versions.get(key)!.length, 501);
    assert.equal(inside.log.length, 500);
    assert.deepEqual(inside.sortedKeys.toArray(), [key]);
    // What was kept still reads: the oldest retained revision, and the current one.
    assert.equal((await kv.get(key, { revision: rev - 500 })).kv!.modRevision, rev - 500);
    assert.equal((await kv.get(key)).kv!.modRevision, rev);
    // Deleted and compacted past, the key leaves every structure.
    const d = await kv.delete(key, rev);
    await kv.compact(d.revision);
    assert.equal(inside.versions.has(key), false);
    assert.equal(inside.log.length, 0);
    assert.deepEqual(inside.sortedKeys.toArray(), []);
  } finally {
    await kv.close();
  }
});

// More keys than one call can take as arguments (V8: ~125k): compaction keeps the survivors
// without spreading them into a call, and a list still walks them in key order.
test('memory KV: compaction after a delete among 150,000 keys', async () => {
  const kv = new MemoryKV();
  const value = new TextEncoder().encode('{}');
  try {
    const revs: number[] = [];
    for (let i = 0; i < 150_000; i++) revs.push((await kv.create(`/registry/configmaps/ns/cm-${i}`, value)).revision);
    const d = await kv.delete('/registry/configmaps/ns/cm-7', revs[7]);
    assert.ok(d.succeeded);
    await kv.compact(d.revision);
    const list = await kv.list('/registry/configmaps/ns/', { limit: 3 });
    assert.equal(list.count, 149_999);
    assert.deepEqual(
      list.kvs.map((x) => x.key),
      ['/registry/configmaps/ns/cm-0', '/registry/configmaps/ns/cm-1', '/registry/configmaps/ns/cm-10'],
    );
  } finally {
    await kv.close();
  }
});
