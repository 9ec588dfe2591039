import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withAuditInit } from './audit-init.ts';
import { recorder, serve, testContext } from './testing.ts';

test('WithAuditInit: generates a UUIDv4 and echoes it as Audit-Id', async () => {
  const next = recorder();
  const ctx = testContext('/api/v1/pods');
  const res = await serve(withAuditInit(next), ctx);
  const id = res.headers.get('audit-id')!;
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(next.calls[0]!.auditID, id);
});

test('WithAuditInit: honours the client Audit-ID verbatim (no validation, no truncation)', async () => {
  const long = 'x'.repeat(100) + ' not a uuid';
  const ctx = testContext('/', { headers: { 'Audit-ID': long } });
  const res = await serve(withAuditInit(recorder()), ctx);
  assert.equal(res.headers.get('audit-id'), long);
  assert.equal(ctx.auditID, long);
});

test('WithAuditInit: a responder-set Audit-Id wins (aggregated servers)', async () => {
  const ctx = testContext('/', { headers: { 'Audit-ID': 'mine' } });
  const res = await serve(withAuditInit(recorder(() => new Response('', { headers: { 'Audit-Id': 'backend' } }))), ctx);
  assert.equal(res.headers.get('audit-id'), 'backend');
});

test('WithAuditInit: on short-circuit responses too', async () => {
  const ctx = testContext('/', { headers: { 'Audit-ID': 'abc' } });
  const res = await serve(
    withAuditInit(() => new Response('busy', { status: 429 })),
    ctx,
  );
  assert.equal(res.headers.get('audit-id'), 'abc');
});

test('WithAuditInit: the first Audit-ID line wins where the runtime gives raw header lines', async () => {
  const ctx = testContext('/', { transport: { rawHeaders: ['Host', 'h', 'Audit-ID', 'first', 'audit-id', 'second'] } });
  const res = await serve(withAuditInit(recorder()), ctx);
  assert.equal(res.headers.get('audit-id'), 'first');
});
