import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withRequestDeadline, requestDeadlineFrom } from './request-deadline.ts';
import { kubeLongRunningRequestCheck } from '../endpoints/request/longrunning.ts';
import { recorder, serve, testContext } from './testing.ts';

const c = { longRunningFunc: kubeLongRunningRequestCheck, requestTimeout: 60_000 };

function deadlineFor(path: string): number | undefined {
  const next = recorder();
  const ctx = testContext(path);
  ctx.receivedTimestamp = 1_000_000;
  void withRequestDeadline(next, c)(ctx);
  const d = next.calls[0] ? requestDeadlineFrom(next.calls[0]) : undefined;
  return d === undefined ? undefined : d - 1_000_000;
}

test('WithRequestDeadline: --request-timeout by default, shortened by ?timeout=', () => {
  assert.equal(deadlineFor('/api/v1/pods'), 60_000);
  assert.equal(deadlineFor('/api/v1/pods?timeout=10s'), 10_000);
  assert.equal(deadlineFor('/api/v1/pods?timeout=1m30s'), 60_000); // never lengthened
  assert.equal(deadlineFor('/api/v1/pods?timeout=59.5s'), 59_500);
  assert.equal(deadlineFor('/api/v1/pods?timeout=1500ms'), 1_500);
  assert.equal(deadlineFor('/api/v1/pods?timeout=0'), 60_000);
  // TestWithRequestDeadline (upstream): 15s; 0s and empty → default; max+1s → default.
  assert.equal(deadlineFor('/api/v1/namespaces?timeout=15s'), 15_000);
  assert.equal(deadlineFor('/api/v1/namespaces?timeout=0s'), 60_000);
  assert.equal(deadlineFor('/api/v1/namespaces?timeout=1m1s'), 60_000);
  assert.equal(deadlineFor('/api/v1/pods?timeout=-5s'), 60_000);
  assert.equal(deadlineFor('/api/v1/pods?timeout=60s'), 60_000);
  assert.equal(deadlineFor('/api/v1/pods?timeout='), 60_000);
  assert.equal(deadlineFor('/api/v1/pods?timeout=5s&timeout=foo'), 5_000);
  assert.equal(deadlineFor('/api/v1/pods?%74imeout=7s'), 7_000); // Go decodes the key too
  assert.equal(deadlineFor('/api/v1/pods?timeout=1s;x=y'), 60_000); // a pair with ';' is dropped
});

test('WithRequestDeadline: long-running requests get no deadline and ?timeout= is not even parsed', () => {
  for (const p of [
    '/api/v1/pods?watch=1&timeout=foo',
    '/api/v1/namespaces/n/pods/p/exec?timeout=foo',
    '/api/v1/proxy/nodes/n?timeout=10',
  ]) {
    const next = recorder();
    void withRequestDeadline(next, c)(testContext(p));
    assert.equal(next.calls.length, 1, p);
    assert.equal(requestDeadlineFrom(next.calls[0]!), undefined);
  }
});

const badBody = (detail: string) =>
  `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid timeout specified in the request URL - ${detail}","reason":"BadRequest","code":400}\n`;

test('WithRequestDeadline: a bad ?timeout= is the negotiated 400 (no nosniff)', async () => {
  for (const [q, detail] of [
    ['foo', 'time: invalid duration \\"foo\\"'],
    ['10', 'time: missing unit in duration \\"10\\"'],
    ['10x', 'time: unknown unit \\"x\\" in duration \\"10x\\"'],
    ['1%3Cb%3E', 'time: unknown unit \\"\\u003cb\\u003e\\" in duration \\"1\\u003cb\\u003e\\"'],
  ] as const) {
    const next = recorder();
    const res = await serve(withRequestDeadline(next, c), testContext('/api/v1/pods?timeout=' + q));
    assert.equal(res.status, 400, q);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(res.headers.get('x-content-type-options'), null);
    assert.equal(await res.text(), badBody(detail));
    assert.equal(next.calls.length, 0);
  }
  const pretty = await serve(
    withRequestDeadline(recorder(), c),
    testContext('/api/v1/pods?timeout=foo', { headers: { 'user-agent': 'curl/8' } }),
  );
  assert.match(await pretty.text(), /^\{\n  "kind": "Status",/);
});
