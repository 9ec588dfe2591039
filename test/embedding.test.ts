// The three documented ways to embed the chain (docs/embedding.md), run as written in examples/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EdgeServer, discardLogger } from '../src/index.ts';
import { createApp } from '../examples/hono-mount.ts';
import { withKubeChain, withKubeChainFromFlags } from '../examples/wrap-fetch.ts';
import { apiserver, readyz } from '../examples/in-process.ts';

const uuid = /^[0-9a-f-]{36}$/;

test('(a) mounted under /k8s in a Hono app', async () => {
  const server = new EdgeServer({ logger: discardLogger });
  const app = createApp(server);
  const own = await app.request('/hello');
  assert.equal(own.status, 200);
  assert.deepEqual(await own.json(), { hello: 'world' });
  assert.equal(own.headers.get('audit-id'), null, 'the app’s own routes do not pass the chain');

  const health = await app.request('/k8s/healthz');
  assert.equal(health.status, 200);
  assert.equal(await health.text(), 'ok');
  assert.match(health.headers.get('audit-id') ?? '', uuid);

  const version = await app.request('/k8s/version');
  assert.equal((await version.json()).major, '1');

  const bad = await app.request('/k8s/api/v1/pods?timeout=foo');
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).reason, 'BadRequest');

  const missing = await app.request('/k8s/nope');
  assert.equal(missing.status, 404);
  assert.equal(await missing.text(), '404 page not found\n');
  await server.stop();
});

test('(b) an existing fetch handler wrapped in the chain', async () => {
  const seen: string[] = [];
  const fetch = withKubeChain((request, ctx) => {
    seen.push(`${ctx.requestInfo?.verb} ${new URL(request.url).pathname}`);
    if (request.url.endsWith('/boom')) throw new Error('boom');
    return Response.json({ ok: true });
  });
  const r = await fetch(new Request('https://x/api/v1/namespaces/ns1/pods'));
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { ok: true });
  assert.match(r.headers.get('audit-id') ?? '', uuid);
  assert.equal(r.headers.get('cache-control'), 'no-cache, private');
  assert.deepEqual(seen, ['list /api/v1/namespaces/ns1/pods']);

  const bad = await fetch(new Request('https://x/anything?timeout=1x'));
  assert.equal(bad.status, 400);
  assert.match(
    await bad.text(),
    /invalid timeout specified in the request URL - time: unknown unit \\"x\\" in duration \\"1x\\"/,
  );
  assert.equal(seen.length, 1, 'the handler is not reached');

  const origError = console.error;
  console.error = () => {};
  try {
    const boom = await fetch(new Request('https://x/boom'));
    assert.equal(boom.status, 500);
    assert.equal(await boom.text(), 'This request caused apiserver to panic. Look in the logs for details.\n');
  } finally {
    console.error = origError;
  }
});

test('(b) configured by kube-apiserver flags', async () => {
  const fetch = await withKubeChainFromFlags(() => new Response('inner'), ['--v=0']);
  const r = await fetch(new Request('https://x/healthz'));
  assert.equal(await r.text(), 'inner');
  assert.match(r.headers.get('audit-id') ?? '', uuid);
});

test('(c) server.fetch in-process', async () => {
  assert.match(await readyz(), /\[\+\]shutdown ok\nreadyz check passed\n$/);
  await apiserver.stop();
  assert.match(await readyz(), /\[-\]shutdown failed: reason withheld\n/);
});
