// EtcdKV.unchangedSince, the watch cache's progress question to etcd (no RequestWatchProgress,
// which etcd before 3.4.31/3.5.13 answers out of order): a revision only when nothing under the
// prefix was created, updated or deleted after the given revision.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { EtcdKV } from '../src/storage/etcd3/kv.ts';
import { etcdSkip, startEtcd, type EtcdServer } from './etcd-harness.ts';

const v = (s: string) => new TextEncoder().encode(s);

describe('EtcdKV.unchangedSince over a real etcd', { skip: etcdSkip() }, () => {
  let etcd: EtcdServer;
  let kv: EtcdKV;
  before(async () => {
    etcd = await startEtcd();
    kv = new EtcdKV({ endpoints: [etcd.clientURL] });
  });
  after(async () => {
    await kv?.close();
    await etcd?.stop();
  });

  test('unchanged prefix: the current revision, also after writes elsewhere; any write under it: undefined', async () => {
    const p = '/registry/things/';
    const a = await kv.create(p + 'a', v('1'));
    assert.ok(a.succeeded);
    const b = await kv.create(p + 'b', v('1'));
    assert.equal(await kv.unchangedSince(p, b.revision, 2), b.revision);
    // A write under another prefix (one that sorts right after) moves the revision on.
    const other = await kv.create('/registry/things0', v('x'));
    assert.equal(await kv.unchangedSince(p, b.revision, 2), other.revision);
    // The count must be the one at that revision.
    assert.equal(await kv.unchangedSince(p, b.revision, 3), undefined);
    // An update, a create and a delete under the prefix are each noticed.
    const upd = await kv.update(p + 'a', v('2'), a.revision);
    assert.ok(upd.succeeded);
    assert.equal(await kv.unchangedSince(p, b.revision, 2), undefined);
    assert.equal(await kv.unchangedSince(p, upd.revision, 2), upd.revision);
    const del = await kv.delete(p + 'b', b.revision);
    assert.ok(del.succeeded);
    assert.equal(
      await kv.unchangedSince(p, upd.revision, 2),
      undefined,
      'a delete leaves no key to see: the count tells',
    );
    assert.equal(await kv.unchangedSince(p, del.revision, 1), del.revision);
    const c = await kv.create(p + 'c', v('1'));
    assert.equal(await kv.unchangedSince(p, del.revision, 1), undefined);
    assert.equal(await kv.unchangedSince(p, c.revision, 2), c.revision);
  });
});
