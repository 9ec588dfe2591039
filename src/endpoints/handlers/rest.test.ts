import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EdgeServer } from '../../app/edge.ts';
import { discardLogger } from '../../util/logger.ts';
import { goJSON } from '../responsewriters/status.ts';

/** A JSON request through the whole server. */
const jsonFetch = (edge: EdgeServer) => (method: string, path: string, body?: unknown) =>
  edge.fetch(
    new Request(`https://h${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    }),
  );

// Lists and watch events are written from each object's cached JSON: the bytes must be those of
// goJSON over the whole response, as before (compact, Go's HTML escaping, one trailing newline).
test('lists and watch events: the JSON of the whole response, HTML-escaped, from cached objects', async () => {
  const edge = new EdgeServer({ flags: '--authorization-mode=AlwaysAllow', logger: discardLogger });
  await edge.ready();
  const f = jsonFetch(edge);
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

// A GET that storage answers at once (memory, SQLite) is answered synchronously by the whole
// chain: no promise for each filter to wait on. Failures still come back as rejections → Status.
test('a GET over memory storage: a Response, not a promise; missing and resourceVersion reads still answered', async () => {
  const edge = new EdgeServer({
    flags: '--authorization-mode=AlwaysAllow --storage-backend=memory',
    logger: discardLogger,
  });
  const { server } = await edge.ready();
  const f = jsonFetch(edge);
  try {
    assert.equal((await f('POST', '/api/v1/namespaces', { metadata: { name: 'sync' } })).status, 201);
    const made = await f('POST', '/api/v1/namespaces/sync/configmaps', { metadata: { name: 'a' } });
    assert.equal(made.status, 201);
    const rv = ((await made.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const got = server.handle(new Request('https://h/api/v1/namespaces/sync/configmaps/a'));
    assert.ok(!(got instanceof Promise), 'answered synchronously');
    assert.equal(got.status, 200);
    assert.equal(((await got.json()) as { metadata: { name: string } }).metadata.name, 'a');
    const missing = await server.handle(new Request('https://h/api/v1/namespaces/sync/configmaps/nope'));
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { message: string }).message, 'configmaps "nope" not found');
    const atRV = await server.handle(
      new Request(`https://h/api/v1/namespaces/sync/configmaps/a?resourceVersion=${rv}`),
    );
    assert.equal(atRV.status, 200);
    assert.equal(((await atRV.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion, rv);
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

// Bodies nest at most 500 deep (src/util/nesting-depth.ts; Go's limit is 10,000, V8's stack is
// not Go's): deeper is a 400 naming the limit, checked before anything walks the body; at the
// limit every path serves it (nothing recursive overflows).
test('bodies nested deeper than 500: create, update and patches refused 400; at 500 served', async () => {
  const edge = new EdgeServer({ flags: '--authorization-mode=AlwaysAllow', logger: discardLogger });
  await edge.ready();
  const f = (method: string, path: string, body?: string, contentType = 'application/json') =>
    edge.fetch(new Request(`https://h${path}`, { method, body, headers: { 'content-type': contentType } }));
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const cms = '/api/v1/namespaces/default/configmaps';
  // Bodies nested `d` deep in all (the object itself is one level).
  const cm = (name: string, d: number) =>
    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"x":${deep(d - 1)}}`;
  const cmYAML = (name: string, d: number) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\nx: ${deep(d - 1)}\n`;
  const answer = async (r: Response) => {
    const s = (await r.json()) as { code: number; reason: string; message: string };
    return [r.status, s.code, s.reason, s.message];
  };
  const refused = (message: string) => [400, 400, 'BadRequest', message];
  try {
    assert.deepEqual(
      await answer(await f('POST', cms, cm('over', 501))),
      refused(
        `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: exceeded max depth ({"apiVersion":"v1","kind":"Con ...)`,
      ),
    );
    assert.deepEqual(
      await answer(await f('POST', cms, cmYAML('over', 501), 'application/yaml')),
      refused(
        'the object provided is unrecognized (must be of type ConfigMap): error converting YAML to JSON: yaml: exceeded max depth of 500 (61706956657273696f6e3a2076310a6b696e643a20436f6e6669674d6170 ...)',
      ),
    );
    assert.equal((await f('GET', `${cms}/over`)).status, 404);
    assert.equal((await f('POST', cms, cm('at', 500))).status, 201);
    assert.equal((await f('POST', cms, cmYAML('at-yaml', 498), 'application/yaml')).status, 201);
    assert.equal((await f('PUT', `${cms}/at`, cm('at', 501))).status, 400);
    const patches = {
      'application/merge-patch+json': (d: number) => `{"data":{"k":"v"},"x":${deep(d - 1)}}`,
      'application/strategic-merge-patch+json': (d: number) => `{"data":{"k":"v"},"x":${deep(d - 1)}}`,
      'application/json-patch+json': (d: number) =>
        `[{"op":"add","path":"/data","value":{"k":"v"}},{"op":"test","path":"/x","value":${deep(d - 2)}}]`,
    };
    for (const [type, body] of Object.entries(patches)) {
      assert.deepEqual(
        await answer(await f('PATCH', `${cms}/at`, body(501), type)),
        refused('invalid JSON patch'),
        type,
      );
      const r = await f('PATCH', `${cms}/at`, body(500), type);
      assert.ok(r.status < 500, `${type} at the limit: ${r.status} ${await r.text()}`);
    }
    const apply = (d: number) =>
      f('PATCH', `${cms}/applied?fieldManager=t`, cm('applied', d), 'application/apply-patch+yaml');
    assert.deepEqual(await answer(await apply(501)), refused('error decoding patch: yaml: exceeded max depth of 500'));
    assert.ok((await apply(450)).status < 500);
    // A stored object at the limit encodes as JSON and YAML.
    for (const accept of ['application/json', 'application/yaml'])
      assert.equal((await edge.fetch(new Request(`https://h${cms}`, { headers: { accept } }))).status, 200, accept);
  } finally {
    await edge.stop();
  }
});
