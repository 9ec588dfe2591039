// convertingStorage (events.k8s.io/v1 Events stored as core/v1): readOnly reaches the inner store on
// create and guaranteedUpdate, which is safe only because the conversion never changes the stored
// object the inner store shares with its watchers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventsV1 } from './events.ts';
import type { StorageObject } from '../../storage/interfaces.ts';
import { MemoryKV } from '../../storage/memory/kv.ts';
import { Store } from '../../storage/store.ts';
import { expectReadOnlyForwarded, frozenInner } from '../../storage/testing/frozen-inner.ts';

/** A core/v1 Event as stored, with every renamed field set and nested values to share. */
const stored = (): StorageObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'e1', namespace: 'default', resourceVersion: '7', labels: { a: 'b' } },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' },
  message: 'hello',
  reportingComponent: 'ctl',
  source: { component: 'kubelet', host: 'n1' },
  firstTimestamp: '2026-01-01T00:00:00Z',
  lastTimestamp: '2026-01-01T00:00:01Z',
  count: 3,
  series: { count: 2, lastObservedTime: '2026-01-01T00:00:01.000000Z' },
  reason: 'Tested',
  type: 'Normal',
});

test('convertingStorage (events.k8s.io/v1): converting a frozen stored Event changes nothing of it', async () => {
  const { inner } = frozenInner(stored);
  const s = eventsV1.decorateStorage!(inner);
  // Any write to the frozen input would throw in this strict-mode module's callee (ES modules are strict).
  const created = await s.create('/default/e1', { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: {} });
  const updated = await s.guaranteedUpdate('/default/e1', false, undefined, async (o) => ({ object: o }));
  const got = await s.get('/default/e1', { readOnly: true });
  for (const o of [created, updated, got]) {
    assert.equal(o!.apiVersion, 'events.k8s.io/v1');
    assert.deepEqual((o as Record<string, unknown>).regarding, { kind: 'Pod', namespace: 'default', name: 'p' });
    assert.equal((o as Record<string, unknown>).note, 'hello');
    assert.equal((o as Record<string, unknown>).deprecatedCount, 3);
    assert.equal((o as Record<string, unknown>).involvedObject, undefined);
  }
});

test('convertingStorage forwards readOnly on create and guaranteedUpdate, and only when given', async () => {
  const { inner, seen } = frozenInner(stored);
  const s = eventsV1.decorateStorage!(inner);
  await expectReadOnlyForwarded(s, seen, '/default/e1');
});

test('convertingStorage over a Store: a read-only write leaves the stored core/v1 form for the watch', async () => {
  const kv = new MemoryKV();
  const store = new Store({
    kv,
    pathPrefix: '/registry',
    resourcePrefix: '/events',
    groupResource: { group: '', resource: 'events' },
  });
  const s = eventsV1.decorateStorage!(store);
  const ac = new AbortController();
  try {
    const w = await store.watch('/events/default', { recursive: true, resourceVersion: '1', signal: ac.signal });
    const it = w[Symbol.asyncIterator]();
    const v1 = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e1', namespace: 'default' },
      regarding: { kind: 'Pod', name: 'p' },
      note: 'hello',
    };
    const created = (await s.create('/events/default/e1', v1, 0, { readOnly: true })) as Record<string, unknown>;
    const ev = (await it.next()).value!;
    assert.equal(ev.type, 'ADDED');
    // The watcher sees the stored form, unchanged by the conversion of what the caller got back.
    assert.equal(ev.object.apiVersion, 'v1');
    assert.deepEqual((ev.object as Record<string, unknown>).involvedObject, { kind: 'Pod', name: 'p' });
    assert.equal((ev.object as Record<string, unknown>).regarding, undefined);
    assert.equal(created.apiVersion, 'events.k8s.io/v1');
    assert.equal(created.note, 'hello');
    assert.equal(created.message, undefined);
    const updated = (await s.guaranteedUpdate(
      '/events/default/e1',
      false,
      undefined,
      async (o) => ({ object: { ...o, note: 'again' } }),
      undefined,
      { readOnly: true },
    )) as Record<string, unknown>;
    const ev2 = (await it.next()).value!;
    assert.equal(ev2.type, 'MODIFIED');
    assert.equal(ev2.object.apiVersion, 'v1');
    assert.equal((ev2.object as Record<string, unknown>).message, 'again');
    assert.equal((ev2.object as Record<string, unknown>).note, undefined);
    assert.equal(updated.note, 'again');
    w.stop();
  } finally {
    ac.abort();
    await kv.close();
  }
});
