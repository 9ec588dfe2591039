// core/v1 events: a write lives --event-ttl (a TTL on the storage write, here 2 s), on the memory
// engine and on SQLite (the engine's expiry sweep); an update renews it; field selectors on the
// involved object; kubectl's columns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSQLiteKV } from '../adapters/node/sqlite.ts';
import { startServer, type Harness } from './registry-harness.ts';

const EV = '/api/v1/namespaces/default/events';
const ev = (name: string, kind = 'ConfigMap') =>
  JSON.stringify({
    metadata: { name },
    involvedObject: { kind, namespace: 'default', name: 'x' },
    reason: 'Tested',
    message: 'hello',
    type: 'Normal',
    source: { component: 'tester' },
    firstTimestamp: '2026-01-01T00:00:00Z',
    lastTimestamp: '2026-01-01T00:00:00Z',
    count: 1,
  });

async function waitGone(h: Harness, path: string, ms: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < ms) {
    if ((await h.req('GET', path)).status === 404) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 100));
  }
  return -1;
}

for (const [engine, kv] of [
  ['memory', undefined],
  ['sqlite', () => openSQLiteKV(':memory:')],
] as const) {
  test(`events expire after --event-ttl (${engine})`, async () => {
    const h = await startServer('--event-ttl=2s', { kv });
    try {
      let r = await h.req('POST', EV, ev('e1'));
      assert.equal(r.status, 201, r.text);
      r = await h.req('POST', EV, ev('e2'));
      assert.equal(r.status, 201, r.text);
      // A ConfigMap written at the same time has no TTL.
      assert.equal(
        (await h.req('POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'stays' } })))
          .status,
        201,
      );
      // Renew e2 after a second: it outlives e1.
      await new Promise((res) => setTimeout(res, 1000));
      const e2 = (await h.req('GET', `${EV}/e2`)).json();
      e2.count = 2;
      assert.equal((await h.req('PUT', `${EV}/e2`, JSON.stringify(e2))).status, 200);
      assert.ok((await waitGone(h, `${EV}/e1`, 6000)) >= 0, 'e1 expired');
      assert.equal((await h.req('GET', `${EV}/e2`)).status, 200, 'e2 renewed by its update');
      assert.ok((await waitGone(h, `${EV}/e2`, 6000)) >= 0, 'e2 expired');
      assert.equal((await h.req('GET', '/api/v1/namespaces/default/configmaps/stays')).status, 200);
    } finally {
      await h.stop();
    }
  });
}

test('event field selectors and columns; involvedObject.namespace must match', async () => {
  const h = await startServer();
  try {
    await h.req('POST', EV, ev('cm-ev', 'ConfigMap'));
    await h.req('POST', EV, ev('sec-ev', 'Secret'));
    let r = await h.req('GET', `${EV}?fieldSelector=involvedObject.kind%3DSecret`);
    assert.deepEqual(
      r.json().items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ['sec-ev'],
    );
    r = await h.req('GET', `${EV}?fieldSelector=reason%3DTested,type%3DNormal`);
    assert.equal(r.json().items.length, 2);
    r = await h.req('GET', `${EV}/cm-ev`, undefined, undefined, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    const t = r.json();
    assert.deepEqual(
      t.columnDefinitions.map((c: { name: string }) => c.name),
      ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject', 'Source', 'Message', 'First Seen', 'Count', 'Name'],
    );
    assert.deepEqual(t.rows[0].cells.slice(1, 7), ['Normal', 'Tested', 'configmap/x', '', 'tester', 'hello']);
    r = await h.req(
      'POST',
      EV,
      JSON.stringify({ metadata: { name: 'bad' }, involvedObject: { kind: 'Pod', namespace: 'other', name: 'p' } }),
    );
    assert.equal(r.status, 422);
    assert.equal(
      r.json().message,
      'Event "bad" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace',
    );
  } finally {
    await h.stop();
  }
});

test('events.k8s.io/v1: the same events in their own form, one storage; strict validation on create', async () => {
  const h = await startServer();
  try {
    const V1 = '/apis/events.k8s.io/v1/namespaces/default/events';
    // A core event is seen through events.k8s.io/v1, renamed.
    assert.equal((await h.req('POST', EV, ev('core-made'))).status, 201);
    let r = await h.req('GET', `${V1}/core-made`);
    assert.equal(r.status, 200, r.text);
    const e = r.json();
    assert.equal(e.apiVersion, 'events.k8s.io/v1');
    assert.deepEqual(e.regarding, { kind: 'ConfigMap', namespace: 'default', name: 'x' });
    assert.equal(e.note, 'hello');
    assert.deepEqual(e.deprecatedSource, { component: 'tester' });
    assert.equal(e.deprecatedCount, 1);
    assert.equal(e.involvedObject, undefined);
    // One created through events.k8s.io/v1 is a core event too.
    const body = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'v1-made' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'example.com/ctl',
      reportingInstance: 'ctl-1',
      action: 'Testing',
      reason: 'Tested',
      type: 'Warning',
      note: 'from events/v1',
      regarding: { kind: 'Secret', namespace: 'default', name: 's' },
    };
    r = await h.req('POST', V1, JSON.stringify(body));
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json().note, 'from events/v1');
    r = await h.req('GET', `${EV}/v1-made`);
    assert.equal(r.json().apiVersion, 'v1');
    assert.equal(r.json().message, 'from events/v1');
    assert.equal(r.json().reportingComponent, 'example.com/ctl');
    assert.deepEqual(r.json().involvedObject, { kind: 'Secret', namespace: 'default', name: 's' });
    const list = (await h.req('GET', V1)).json();
    assert.equal(list.apiVersion, 'events.k8s.io/v1');
    assert.deepEqual(list.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(), [
      'core-made',
      'v1-made',
    ]);
    // Strict validation of events.k8s.io/v1 creates.
    r = await h.req('POST', V1, JSON.stringify({ metadata: { name: 'loose' }, reason: 'x', deprecatedCount: 3 }));
    assert.equal(r.status, 422);
    assert.equal(
      r.json().message,
      'Event.events.k8s.io "loose" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: , count: Invalid value: "": needs to be unset]',
    );
    // Deleting through one API deletes it from both.
    assert.equal((await h.req('DELETE', `${V1}/core-made`)).status, 200);
    assert.equal((await h.req('GET', `${EV}/core-made`)).status, 404);
  } finally {
    await h.stop();
  }
});
