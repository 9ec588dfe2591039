import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withHTTPLogging, addKeyValue, normalizedVerb } from './httplog.ts';
import { KlogLogger } from '../util/logger.ts';
import { recorder, testContext } from './testing.ts';

test('WithHTTPLogging: one line at -v=3 with upstream field order', async () => {
  const lines: string[] = [];
  const logger = new KlogLogger(3, (l) => lines.push(l));
  const h = withHTTPLogging(
    (ctx) => {
      addKeyValue(ctx, 'apf_pl', 'workload-low');
      addKeyValue(ctx, 'apf_iseats', 1);
      return new Response('', { status: 201 });
    },
    { logger },
  );
  const ctx = testContext('/api/v1/namespaces/ns/pods?limit=5', {
    method: 'POST',
    headers: { 'user-agent': 'kubectl/v1.34.0', 'content-type': 'application/json' },
    transport: { remoteAddress: '10.0.0.5', remotePort: 51234 },
  });
  ctx.auditID = 'a'.repeat(70);
  await h(ctx);
  assert.equal(lines.length, 1);
  const line = lines[0]!;
  assert.match(
    line,
    /^I\d{4} [\d:.]+ "HTTP" verb="POST" URI="\/api\/v1\/namespaces\/ns\/pods\?limit=5" latency="[^"]+" userAgent="kubectl\/v1.34.0" contentType="application\/json" audit-ID="a{64}" srcIP="10.0.0.5:51234" apf_pl="workload-low" apf_iseats=1 resp=201$/,
  );
});

test('WithHTTPLogging: silent below -v=3; logs thrown requests with resp=0', async () => {
  const lines: string[] = [];
  await withHTTPLogging(recorder(), { logger: new KlogLogger(2, (l) => lines.push(l)) })(testContext('/'));
  assert.equal(lines.length, 0);
  const h = withHTTPLogging(
    () => {
      throw new Error('x');
    },
    { logger: new KlogLogger(3, (l) => lines.push(l)) },
  );
  await assert.rejects(async () => h(testContext('/')));
  assert.match(lines[0]!, / resp=0$/);
});

test('NormalizedVerb: LIST, WATCH, APPLY, CONNECT', () => {
  assert.equal(normalizedVerb(testContext('/api/v1/pods')), 'LIST');
  assert.equal(normalizedVerb(testContext('/api/v1/namespaces/n/pods/p')), 'GET');
  assert.equal(normalizedVerb(testContext('/api/v1/pods?watch=1')), 'WATCH');
  assert.equal(
    normalizedVerb(
      testContext('/api/v1/namespaces/n/pods/p', {
        method: 'PATCH',
        headers: { 'content-type': 'application/apply-patch+yaml' },
      }),
    ),
    'APPLY',
  );
  assert.equal(normalizedVerb(testContext('/api/v1/namespaces/n/pods/p/exec', { method: 'POST' })), 'CONNECT');
  assert.equal(normalizedVerb(testContext('/healthz')), 'GET');
});
