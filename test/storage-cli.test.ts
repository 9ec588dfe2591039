// The edge-apiserver command's storage choice: without flags the embedded SQLite file in --cert-dir
// (registry.db, created on first start, reopened on the next), --sqlite-path elsewhere,
// --storage-backend=memory with no file; the `etcd` checks report on the chosen engine.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './etcd-harness.ts';

const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'adapters/node/bin.mjs');
const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-storage-cli-'));
const children = new Set<ChildProcess>();
after(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path, rejectUnauthorized: false, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Starts the CLI, waits for /readyz to pass, returns its verbose body, then stops it (exit 0). */
async function readyOnce(args: string[]): Promise<string> {
  const port = await freePort();
  const proc = spawn(process.execPath, [bin, '--bind-address=127.0.0.1', `--secure-port=${port}`, '--authorization-mode=AlwaysAllow', ...args], {
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(proc);
  let err = '';
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exit = new Promise<number | null>((r) => proc.once('exit', (code) => (children.delete(proc), r(code))));
  let body = '';
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`exited ${proc.exitCode}: ${err}`);
    try {
      const r = await get(port, '/readyz?verbose');
      body = r.body;
      if (r.status === 200) break;
    } catch {
      // not listening yet
    }
    if (i > 400) throw new Error(`not ready: ${body} ${err}`);
    await new Promise((res) => setTimeout(res, 25));
  }
  proc.kill('SIGTERM');
  assert.equal(await exit, 0, err);
  return body;
}

const sqliteHeader = 'SQLite format 3\0';

test('default: the embedded SQLite file <cert-dir>/registry.db, created on the first start and reopened on the next', async () => {
  const certs = join(dir, 'certs');
  const body = await readyOnce([`--cert-dir=${certs}`]);
  assert.match(body, /^\[\+\]ping ok\n\[\+\]log ok\n\[\+\]etcd ok\n\[\+\]etcd-readiness ok\n/);
  const db = join(certs, 'registry.db');
  assert.ok(existsSync(db), 'registry.db created');
  assert.equal(readFileSync(db).subarray(0, 16).toString('latin1'), sqliteHeader);
  assert.match(await readyOnce([`--cert-dir=${certs}`]), /\[\+\]etcd ok\n/);
});

test('--sqlite-path puts the file elsewhere; --storage-backend=memory writes none', async () => {
  const file = join(dir, 'data', 'store.db');
  await readyOnce([`--cert-dir=${join(dir, 'c2')}`, `--sqlite-path=${file}`]);
  assert.ok(existsSync(file));
  assert.ok(!existsSync(join(dir, 'c2', 'registry.db')));
  const body = await readyOnce([`--cert-dir=${join(dir, 'c3')}`, '--storage-backend=memory']);
  assert.match(body, /\[\+\]etcd ok\n/);
  assert.ok(!existsSync(join(dir, 'c3', 'registry.db')));
});
