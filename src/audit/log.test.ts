import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LogBackend, type AuditWriter } from './log.ts';
import { AuditMetrics } from './metrics.ts';
import { encodeEvent, eventString } from './event.ts';
import type { AuditEvent } from './types.ts';
import type { Logger } from '../util/logger.ts';

const t = Date.UTC(2026, 6, 23) * 1000;
const ev = (id: string): AuditEvent => ({
  level: 'Metadata',
  auditID: id,
  stage: 'RequestReceived',
  requestURI: '/api',
  verb: 'get',
  user: { username: 'u' },
  requestReceivedTimestamp: t,
  stageTimestamp: t,
});

function logger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, enabled: () => false, info: () => {}, warning: (m) => lines.push(m), error: (m) => lines.push(m) };
}

test('log backend: json and legacy lines, one write per call', () => {
  const written: string[] = [];
  const w: AuditWriter = { write: (d) => void written.push(d) };
  assert.equal(new LogBackend(w, 'json', logger(), new AuditMetrics()).processEvents([ev('a'), ev('b')]), true);
  assert.equal(new LogBackend(w, 'legacy', logger(), new AuditMetrics()).processEvents([ev('c')]), true);
  assert.deepEqual(written, [`${encodeEvent(ev('a'))}\n${encodeEvent(ev('b'))}\n`, `${eventString(ev('c'))}\n`]);
});

test('log backend: a writer that throws or rejects — false, counted, logged with the events', async () => {
  const log = logger();
  const metrics = new AuditMetrics();
  const throwing = new LogBackend(
    {
      write: () => {
        throw new Error('write /var/log/audit.log: no space left on device');
      },
    },
    'json',
    log,
    metrics,
  );
  assert.equal(throwing.processEvents([ev('x')]), false);
  const rejecting = new LogBackend({ write: () => Promise.reject(new Error('EIO')) }, 'json', log, metrics);
  assert.equal(await rejecting.processEvents([ev('y'), ev('z')]), false);
  assert.equal(metrics.errorTotal.get('log'), 3);
  assert.equal(
    log.lines[0],
    `Error in audit plugin 'log' affecting 1 audit events: write /var/log/audit.log: no space left on device\nImpacted events:\n${eventString(ev('x'))}\n`,
  );
  assert.match(metrics.text(), /^apiserver_audit_error_total\{plugin="log"\} 3$/m);
});
