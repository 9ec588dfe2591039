import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TruncateBackend } from './truncate.ts';
import { UnionBackend, IgnoreErrorsBackend, unionBackends } from './union.ts';
import { MemoryBackend } from './testing.ts';
import { AuditMetrics } from './metrics.ts';
import { encodeEvent } from './event.ts';
import { discardLogger } from '../util/logger.ts';
import type { AuditEvent } from './types.ts';

const t = Date.UTC(2026, 6, 23) * 1000;
const ev = (over: Partial<AuditEvent> = {}): AuditEvent => ({
  level: 'RequestResponse',
  auditID: 'a',
  stage: 'ResponseComplete',
  requestURI: '/api',
  verb: 'create',
  user: {},
  requestReceivedTimestamp: t,
  stageTimestamp: t,
  ...over,
});

test('truncate: big events lose their objects and say so; still too big → dropped and counted; batches split by size', () => {
  const sink = new MemoryBackend();
  const metrics = new AuditMetrics();
  const small = ev();
  const size = encodeEvent(small).length + 1;
  const b = new TruncateBackend(
    sink,
    { maxEventSize: size + 200, maxBatchSize: 2 * size + 150 },
    discardLogger,
    metrics,
  );
  const big = ev({ requestObject: JSON.stringify({ data: 'x'.repeat(500) }) });
  const huge = ev({ level: 'Metadata', requestURI: '/' + 'y'.repeat(1000) });
  assert.equal(b.processEvents([small, big, huge, small, small]), true);
  assert.equal(sink.events.length, 4);
  assert.equal(sink.events[1]!.requestObject, undefined);
  assert.deepEqual(sink.events[1]!.annotations, { 'audit.k8s.io/truncated': 'true' });
  assert.equal(metrics.errorTotal.get('truncate'), 1);
});

test('union: every backend gets the events; success only if all succeed; blocking ignores errors', async () => {
  const a = new MemoryBackend();
  const b = new MemoryBackend();
  b.result = 'async-false';
  const u = new UnionBackend([a, b]);
  assert.equal(await u.processEvents([ev()]), false);
  assert.equal(a.events.length + b.events.length, 2);
  assert.equal(String(u), 'union[memory,memory]');
  assert.equal(await new IgnoreErrorsBackend(b).processEvents([ev()]), true);
  assert.equal(unionBackends(undefined, a), a);
  assert.equal(unionBackends(), undefined);
});
