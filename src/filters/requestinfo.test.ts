import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withRequestInfo } from './requestinfo.ts';
import { recorder, serve, testContext } from './testing.ts';

const c = { legacyAPIGroupPrefixes: ['/api'] };

test('WithRequestInfo: stores RequestInfo for later filters', async () => {
  const next = recorder();
  await serve(withRequestInfo(next, c), testContext('/apis/apps/v1/namespaces/ns/deployments/d', { noInfo: true }));
  const info = next.calls[0]!.requestInfo!;
  assert.equal(info.apiGroup, 'apps');
  assert.equal(info.name, 'd');
  assert.equal(info.verb, 'get');
});

test('WithRequestInfo: resolver failure is the upstream InternalError 500', async () => {
  for (const [url, uri] of [
    ['/api/v1/watch', '/api/v1/watch'],
    ['/apis/g/v1/proxy?a=<b>', '/apis/g/v1/proxy?a=%3Cb%3E'],
  ]) {
    const next = recorder();
    const res = await serve(withRequestInfo(next, c), testContext(url!, { noInfo: true }));
    assert.equal(res.status, 500);
    assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(
      await res.text(),
      `Internal Server Error: "${uri}": failed to create RequestInfo: unable to determine kind and namespace from url, ${uri}\n`,
    );
    assert.equal(next.calls.length, 0);
  }
});
