import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EdgeServer } from '../../app/edge.ts';
import { discardLogger } from '../../util/logger.ts';
import { goJSON } from '../responsewriters/status.ts';

// Lists and watch events are written from each object's cached JSON: the bytes must be those of
// goJSON over the whole response, as before (compact, Go's HTML escaping, one trailing newline).
test('lists and watch events: the JSON of the whole response, HTML-escaped, from cached objects', async () => {
  const edge = new EdgeServer({ flags: '--authorization-mode=AlwaysAllow', logger: discardLogger });
  await edge.ready();
  const f = (method: string, path: string, body?: unknown) =>
    edge.fetch(
      new Request(`https://h${path}`, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      }),
    );
  try {
    assert.equal((await f('POST', '/api/v1/namespaces', { metadata: { name: 'enc' } })).status, 201);
    const watch = await f('GET', '/api/v1/namespaces/enc/configmaps?watch=true&resourceVersion=0');
    const data = { html: '<a href="x">&</a>', seps: 'a\u2028b\u2029c', unicode: 'ü🙂', quote: '"\\' };
    for (const name of ['a', 'b', 'c']) {
      const r = await f('POST', '/api/v1/namespaces/enc/configmaps', { metadata: { name }, data });
      assert.equal(r.status, 201);
    }
    for (let round = 0; round < 2; round++) {
      // The second round is served from the cache filled by the first.
      const r = await f('GET', '/api/v1/namespaces/enc/configmaps');
      const body = await r.text();
      assert.equal(r.headers.get('content-type'), 'application/json');
      assert.equal(body, goJSON(JSON.parse(body)) + '\n');
      assert.ok(body.includes('\\u003ca href=\\"x\\"\\u003e\\u0026\\u003c/a\\u003e'));
      assert.ok(body.includes('a\\u2028b\\u2029c'));
      const list = JSON.parse(body) as { kind: string; apiVersion: string; items: Record<string, unknown>[] };
      assert.deepEqual([list.kind, list.apiVersion, list.items.length], ['ConfigMapList', 'v1', 3]);
      assert.deepEqual(Object.keys(list.items[0]!).slice(0, 2), ['apiVersion', 'kind']);
      assert.deepEqual(list.items[0]!.data, data);
    }
    const paged = await f('GET', '/api/v1/namespaces/enc/configmaps?limit=2');
    const pagedBody = await paged.text();
    assert.equal(pagedBody, goJSON(JSON.parse(pagedBody)) + '\n');
    const meta = (JSON.parse(pagedBody) as { metadata: Record<string, unknown> }).metadata;
    assert.deepEqual(Object.keys(meta), ['resourceVersion', 'continue', 'remainingItemCount']);

    const reader = watch.body!.getReader();
    let text = '';
    const dec = new TextDecoder();
    while (text.split('\n').length < 4) text += dec.decode((await reader.read()).value);
    const lines = text.split('\n').slice(0, 3);
    for (const line of lines) {
      assert.equal(line, goJSON(JSON.parse(line)));
      const ev = JSON.parse(line) as { type: string; object: { kind: string; data: unknown } };
      assert.deepEqual(Object.keys(ev), ['type', 'object']);
      assert.equal(ev.type, 'ADDED');
      assert.equal(ev.object.kind, 'ConfigMap');
      assert.deepEqual(ev.object.data, data);
    }
    await reader.cancel();
  } finally {
    await edge.stop();
  }
});

// A body within the request size limit can hold more bad labels than one call takes arguments
// (V8: ~125k): the create is refused 422 Invalid with every error, not a stack overflow's 500.
test('a create with more bad labels than a call has arguments for: 422', async () => {
  const edge = new EdgeServer({ flags: '--authorization-mode=AlwaysAllow', logger: discardLogger });
  await edge.ready();
  try {
    const many = Object.fromEntries(Array.from({ length: 130_000 }, (_, i) => [`b!${i}`, '']));
    const r = await edge.fetch(
      new Request('https://h/api/v1/namespaces/default/configmaps', {
        method: 'POST',
        body: JSON.stringify({ metadata: { name: 'many', labels: many } }),
        headers: { 'content-type': 'application/json' },
      }),
    );
    const status = (await r.json()) as { code: number; reason: string; details: { causes: unknown[] } };
    assert.deepEqual([r.status, status.code, status.reason], [422, 422, 'Invalid']);
    assert.equal(status.details.causes.length, 130_000);
    assert.equal((await edge.fetch(new Request('https://h/api/v1/namespaces/default/configmaps/many'))).status, 404);
  } finally {
    await edge.stop();
  }
});
