// Bad input through the whole chain: each gets upstream's response and the server keeps serving.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { complete, newConfig, newServer, newEmptyDelegate, notFoundHandler } from '../src/index.ts';
import { discardLogger } from '../src/util/logger.ts';

function server() {
  const config = newConfig({ logger: discardLogger, requestTimeout: 200 });
  config.routeInstallers.push((s) => {
    s.handler.nonGoRestfulMux.handle('/throw-string', () => {
      throw 'a string';
    });
    s.handler.nonGoRestfulMux.handle('/throw-null', () => {
      throw null;
    });
    s.handler.nonGoRestfulMux.handle('/reject', () => Promise.reject(new TypeError('async')));
    s.handler.nonGoRestfulMux.handle('/never', () => new Promise<Response>(() => {}));
  });
  const s = newServer(complete(config), 'bad-input', newEmptyDelegate(notFoundHandler));
  s.prepareRun();
  s.config.lifecycleSignals.MuxAndDiscoveryComplete.signal();
  return s;
}

const panic = 'This request caused apiserver to panic. Look in the logs for details.\n';

test('bad input: each gets its upstream answer and the server keeps serving', async () => {
  const s = server();
  const get = (path: string, init?: RequestInit) => s.fetch(new Request('https://example.test' + path, init));
  const cases: [string, number, string | RegExp][] = [
    // Go rejects a malformed escape before any handler.
    ['/api/v1/namespaces/%zz/pods', 400, '400 Bad Request'],
    ['/api/v1/pods?timeout=10', 400, /time: missing unit in duration \\"10\\"/],
    ['/api/v1/pods?timeout=%zz', 200, ''], // a bad query escape drops the pair (Go ParseQuery)
    [
      '/api/v1/watch',
      500,
      /failed to create RequestInfo: unable to determine kind and namespace from url, \/api\/v1\/watch/,
    ],
    ['/apis/apps/v1/proxy', 500, /failed to create RequestInfo/],
    ['/throw-string', 500, panic],
    ['/throw-null', 500, panic],
    ['/reject', 500, panic],
    [
      '/never',
      504,
      '{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}\n',
    ],
    ['/never?timeout=30ms', 504, /Timeout: request did not complete within the allotted timeout/],
    ['/' + 'a/'.repeat(20000) + 'x', 404, '404 page not found\n'],
    [
      '/api/v1/namespaces/default/pods/' + 'x'.repeat(50000),
      404,
      /the server could not find the requested resource|404 page not found/,
    ],
  ];
  for (const [path, status, body] of cases) {
    const res = await get(path);
    const text = await res.text();
    if (status === 200) {
      assert.notEqual(res.status, 400, path);
      continue;
    }
    assert.equal(res.status, status, path.slice(0, 80));
    if (typeof body === 'string') assert.equal(text, body, path.slice(0, 80));
    else assert.match(text, body, path.slice(0, 80));
    // Go's server answers the malformed escape itself, outside the chain: no Audit-Id.
    assert.equal(res.headers.get('audit-id') !== null, !path.includes('%zz'), `Audit-Id on ${path.slice(0, 40)}`);
  }
  // `..` and `%2e%2e` segments are resolved by URL parsing before the chain (Go keeps them).
  const dots = await get('/api/v1/namespaces/default/pods/../pods/x');
  assert.equal(dots.status, 404);
  const health = await get('/healthz');
  assert.equal(health.status, 200);
  assert.equal(await health.text(), 'ok');
});
