// The edge-apiserver command over a real etcd: `--etcd-servers` selects the etcd engine and
// /readyz?verbose lists upstream's `etcd` and `etcd-readiness` checks; with etcd gone, /readyz and
// /livez turn red under those names. Also over TLS with a private CA and a client certificate
// (--etcd-cafile/--etcd-certfile/--etcd-keyfile through the Node adapter's fetch).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdKV } from '../src/storage/etcd3/kv.ts';
import { EtcdUnavailableError } from '../src/storage/etcd3/client.ts';
import { nodeEtcdFetch } from '../adapters/node/etcd-fetch.ts';
import { etcdSkip, freePort, startEtcd, type EtcdServer } from './etcd-harness.ts';

const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'adapters/node/bin.mjs');
const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-etcd-cli-'));
const children = new Set<ChildProcess>();
after(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  proc: ChildProcess;
  port: number;
  stderr(): string;
  exit: Promise<number | null>;
}

async function runCLI(args: string[]): Promise<Run> {
  const port = await freePort();
  const proc = spawn(process.execPath, [bin, '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${join(dir, `certs-${port}`)}`, '--authorization-mode=AlwaysAllow', ...args], {
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(proc);
  let err = '';
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exit = new Promise<number | null>((r) => proc.once('exit', (code) => (children.delete(proc), r(code))));
  const r = { proc, port, stderr: () => err, exit };
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`exited ${proc.exitCode}: ${err}`);
    try {
      await get(port, '/healthz');
      return r;
    } catch {
      if (i > 400) throw new Error(`not serving: ${err}`);
      await new Promise((res) => setTimeout(res, 25));
    }
  }
}

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

/** Polls `path` until its status is `status` and `want` matches (the checks probe at most once per timeout/2). */
async function until(port: number, path: string, status: number, want = /(?:)/): Promise<{ status: number; body: string }> {
  let last = await get(port, path);
  for (let i = 0; i < 60 && (last.status !== status || !want.test(last.body)); i++) {
    await new Promise((r) => setTimeout(r, 100));
    last = await get(port, path);
  }
  return last;
}

async function stopCLI(r: Run): Promise<void> {
  r.proc.kill('SIGTERM');
  assert.equal(await r.exit, 0, r.stderr());
}

describe('edge-apiserver --etcd-servers', { skip: etcdSkip() }, () => {
  let etcd: EtcdServer;
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd?.stop();
  });

  test('/readyz?verbose lists [+]etcd ok and [+]etcd-readiness ok; /livez has etcd; stopping etcd turns both red', async () => {
    const r = await runCLI([`--etcd-servers=${etcd.clientURL}`, '--etcd-healthcheck-timeout=500ms', '--etcd-readycheck-timeout=500ms']);
    const ready = await until(r.port, '/readyz?verbose', 200);
    assert.equal(ready.status, 200, ready.body);
    assert.match(ready.body, /^\[\+\]ping ok\n\[\+\]log ok\n\[\+\]etcd ok\n\[\+\]etcd-readiness ok\n/);
    assert.match(ready.body, /readyz check passed\n$/);
    const live = await get(r.port, '/livez?verbose');
    assert.match(live.body, /\[\+\]etcd ok\n/);
    assert.doesNotMatch(live.body, /etcd-readiness/);
    assert.equal((await get(r.port, '/livez/etcd')).body, 'ok');
    // The compactor's bootstrap round has not run (first compaction after one interval): no key yet.
    await etcd.kill();
    const red = await until(r.port, '/readyz?verbose', 500, /\[-\]etcd failed[\s\S]*\[-\]etcd-readiness failed/);
    assert.equal(red.status, 500);
    assert.match(red.body, /\[-\]etcd failed: reason withheld\n/);
    assert.match(red.body, /\[-\]etcd-readiness failed: reason withheld\n/);
    assert.match(red.body, /readyz check failed\n$/);
    const liveRed = await until(r.port, '/livez', 500);
    assert.equal(liveRed.status, 500);
    const detail = await get(r.port, '/livez/etcd');
    assert.equal(detail.status, 500);
    assert.match(detail.body, /^internal server error: error getting data from etcd: etcd http:\/\/127\.0\.0\.1:\d+: connect ECONNREFUSED/);
    // Excluding the group name excludes the check.
    assert.equal((await get(r.port, '/livez?exclude=etcd')).status, 200);
    await stopCLI(r);
  });

  test('--etcd-servers with a bad URL fails at start with one Error line', async () => {
    const port = await freePort();
    const proc = spawn(process.execPath, [bin, `--secure-port=${port}`, `--cert-dir=${join(dir, 'bad')}`, '--etcd-servers=localhost:2379'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    proc.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
    const code = await new Promise((r) => proc.once('exit', r));
    assert.equal(code, 1);
    assert.equal(err, '--etcd-servers invalid: "localhost:2379" is not a URL of the form scheme://host:port (scheme http or https)\n'.replace(/^/, 'Error: '));
  });
});

describe('etcd over TLS with client-certificate auth', { skip: etcdSkip() }, () => {
  let etcd: EtcdServer;
  before(async () => {
    etcd = await startEtcd({ tls: true });
  });
  after(async () => {
    await etcd?.stop();
  });

  test('the Node fetch presents the client certificate; without it etcd refuses the handshake', async () => {
    const c = etcd.client!;
    const kv = new EtcdKV({ endpoints: [etcd.clientURL], fetch: nodeEtcdFetch({ ca: c.ca, cert: c.cert, key: c.key }) });
    const created = await kv.create('/registry/tls/a', new TextEncoder().encode('x'));
    assert.equal(created.succeeded, true);
    // Watches stream through the same fetch.
    const ctl = new AbortController();
    for await (const r of kv.watch('/registry/tls/', { startRevision: created.revision, signal: ctl.signal })) {
      assert.equal(r.events[0]!.kv.key, '/registry/tls/a');
      break;
    }
    await kv.close();
    const noCert = new EtcdKV({ endpoints: [etcd.clientURL], fetch: nodeEtcdFetch({ ca: c.ca }), requestTimeoutMs: 3000 });
    await assert.rejects(noCert.get('/registry/tls/a'), EtcdUnavailableError);
    const noCA = new EtcdKV({ endpoints: [etcd.clientURL], fetch: nodeEtcdFetch({ cert: c.cert, key: c.key }), requestTimeoutMs: 3000 });
    await assert.rejects(noCA.get('/registry/tls/a'), /self-signed certificate|unable to verify|unable to get local issuer/);
  });

  test('edge-apiserver --etcd-cafile/--etcd-certfile/--etcd-keyfile: ready over TLS', async () => {
    const c = etcd.client!;
    const r = await runCLI([`--etcd-servers=${etcd.clientURL}`, `--etcd-cafile=${c.caFile}`, `--etcd-certfile=${c.certFile}`, `--etcd-keyfile=${c.keyFile}`]);
    const ready = await until(r.port, '/readyz?verbose', 200);
    assert.equal(ready.status, 200, ready.body);
    assert.match(ready.body, /\[\+\]etcd ok\n\[\+\]etcd-readiness ok\n/);
    await stopCLI(r);
  });
});
