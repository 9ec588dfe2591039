import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { AuditLogFile, openAuditLogFile } from './audit-log-writer.ts';
import { LogBackend } from '../../src/audit/log.ts';
import { AuditMetrics } from '../../src/audit/metrics.ts';
import type { AuditEvent } from '../../src/audit/types.ts';
import type { Logger } from '../../src/util/logger.ts';

async function tmpdir(): Promise<string> {
  return fsp.mkdtemp(path.join(os.tmpdir(), 'audit-log-'));
}

function logger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, enabled: () => false, info: () => {}, warning: (m) => lines.push(m), error: (m) => lines.push(m) };
}

const t = Date.UTC(2026, 6, 23) * 1000;
const ev = (id: string): AuditEvent => ({
  level: 'Metadata',
  auditID: id,
  stage: 'ResponseComplete',
  requestURI: '/api',
  verb: 'get',
  user: {},
  requestReceivedTimestamp: t,
  stageTimestamp: t,
});

test('audit log file: JSON lines appended, directory and file created 0700/0600', async () => {
  const dir = await tmpdir();
  const file = path.join(dir, 'sub', 'audit.log');
  const w = await openAuditLogFile(file, { maxSize: 100, maxAge: 0, maxBackups: 0, compress: false });
  const b = new LogBackend(w, 'json', logger(), new AuditMetrics());
  const results = await Promise.all([
    b.processEvents([ev('a')]),
    b.processEvents([ev('b')]),
    b.processEvents([ev('c')]),
  ]);
  assert.deepEqual(results, [true, true, true]);
  await b.shutdown();
  const lines = (await fsp.readFile(file, 'utf8')).split('\n');
  assert.deepEqual(
    lines.map((l) => (l ? JSON.parse(l).auditID : '')),
    ['a', 'b', 'c', ''],
  );
  assert.equal((await fsp.stat(path.dirname(file))).mode & 0o777, 0o700);
  assert.equal((await fsp.stat(file)).mode & 0o777, 0o600);
  await fsp.rm(dir, { recursive: true });
});

test('audit log file: rotation by size, backups pruned by --audit-log-maxbackup and gzipped', async () => {
  const dir = await tmpdir();
  const file = path.join(dir, 'audit.log');
  // maxSize is in megabytes; a fraction keeps the test small (≈ 1 KiB).
  const w = new AuditLogFile(file, { maxSize: 1 / 1024, maxAge: 0, maxBackups: 2, compress: true });
  await w.ensure();
  const line = 'x'.repeat(299) + '\n';
  for (let i = 0; i < 12; i++) await w.write(line);
  await w.close();
  const names = (await fsp.readdir(dir)).sort();
  const backups = names.filter((n) => n !== 'audit.log');
  assert.equal(backups.length, 2, names.join(' '));
  for (const b of backups) {
    assert.match(b, /^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log\.gz$/);
    const content = gunzipSync(await fsp.readFile(path.join(dir, b))).toString();
    assert.equal(content, line.repeat(3));
  }
  assert.equal(await fsp.readFile(file, 'utf8'), line.repeat(3));
  await fsp.rm(dir, { recursive: true });
});

test('audit log file: an existing file over the limit is rotated on open; maxsize 0 never rotates', async () => {
  const dir = await tmpdir();
  const file = path.join(dir, 'a.log');
  await fsp.writeFile(file, 'y'.repeat(1000));
  const w = new AuditLogFile(file, { maxSize: 1 / 1024, maxAge: 0, maxBackups: 0, compress: false });
  await w.write('z'.repeat(100) + '\n');
  await w.close();
  assert.equal((await fsp.readdir(dir)).length, 2);
  const w0 = new AuditLogFile(file, { maxSize: 0, maxAge: 0, maxBackups: 0, compress: false });
  for (let i = 0; i < 20; i++) await w0.write('q'.repeat(200) + '\n');
  await w0.close();
  assert.equal((await fsp.readdir(dir)).length, 2);
  await assert.rejects(
    new AuditLogFile(file, { maxSize: 1 / 1024, maxAge: 0, maxBackups: 0, compress: false }).write('w'.repeat(2000)),
    {
      message: 'write length 2000 exceeds maximum file size 1024',
    },
  );
  await fsp.rm(dir, { recursive: true });
});

test(
  'audit log file: a full disk (/dev/full) fails the write; the backend counts and logs the event',
  { skip: !existsSync('/dev/full') && 'no /dev/full here' },
  async () => {
    const w = await openAuditLogFile('/dev/full', { maxSize: 0, maxAge: 0, maxBackups: 0, compress: false });
    const log = logger();
    const metrics = new AuditMetrics();
    const b = new LogBackend(w, 'json', log, metrics);
    assert.equal(await b.processEvents([ev('lost')]), false);
    assert.equal(metrics.errorTotal.get('log'), 1);
    assert.match(
      log.lines[0]!,
      /^Error in audit plugin 'log' affecting 1 audit events: write \/dev\/full: no space left on device\nImpacted events:\n.*id="lost"/,
    );
    await w.close?.();
  },
);

test('audit log file: ensureLogFile errors name the path', async () => {
  const dir = await tmpdir();
  const blocker = path.join(dir, 'file');
  await fsp.writeFile(blocker, '');
  await assert.rejects(
    openAuditLogFile(path.join(blocker, 'audit.log'), { maxSize: 1, maxAge: 0, maxBackups: 0, compress: false }),
    {
      message: `ensureLogFile: mkdir ${blocker}: not a directory`,
    },
  );
  await fsp.rm(dir, { recursive: true });
});

test('audit log file: --audit-log-maxage removes backups older than the limit (by the time in their name)', async () => {
  const dir = await tmpdir();
  const file = path.join(dir, 'audit.log');
  await fsp.writeFile(path.join(dir, 'audit-2020-01-02T03-04-05.000.log'), 'old\n');
  await fsp.writeFile(path.join(dir, 'audit-2020-01-02T03-04-06.000.log.gz'), 'old\n');
  await fsp.writeFile(path.join(dir, 'other-2020-01-02T03-04-05.000.log'), 'not ours\n');
  const w = new AuditLogFile(file, { maxSize: 1 / 1024, maxAge: 1, maxBackups: 0, compress: false });
  for (let i = 0; i < 5; i++) await w.write('z'.repeat(299) + '\n');
  await w.close();
  const names = (await fsp.readdir(dir)).sort();
  assert.ok(names.includes('other-2020-01-02T03-04-05.000.log'));
  assert.ok(!names.some((n) => n.startsWith('audit-2020-')), names.join(' '));
  assert.equal(names.filter((n) => /^audit-\d{4}.*\.log$/.test(n)).length, 1, names.join(' '));
  await fsp.rm(dir, { recursive: true });
});
