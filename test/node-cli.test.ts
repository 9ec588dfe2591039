// The edge-apiserver command in child processes: --help, bad input (one `Error:` line, non-zero
// exit), certificate generation and reuse, SIGTERM graceful shutdown with a shutdown delay, a
// second signal, port sharing, failing post-start hooks. Also reports start-up times.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import net from 'node:net';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSelfSignedCertKey } from '../src/server/dynamiccertificates/generate.ts';
import { discardLogger } from '../src/util/logger.ts';
import { main } from '../adapters/node/cli.ts';

const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'adapters/node/bin.mjs');
const fixture = join(root, 'test/node-cli-fixture.ts');
const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-cli-'));
const children = new Set<ChildProcess>();
after(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  proc: ChildProcess;
  started: number;
  stderr(): string;
  stdout(): string;
  /** Resolves with the address from `Serving securely on <addr>`. */
  serving: Promise<string>;
  exit: Promise<number | null>;
}

function run(args: string[], opts: { script?: string; env?: Record<string, string> } = {}): Run {
  const started = performance.now();
  const proc = spawn(process.execPath, [opts.script ?? bin, ...args], {
    env: { ...process.env, NODE_NO_WARNINGS: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(proc);
  let err = '';
  let out = '';
  proc.stdout!.setEncoding('utf8').on('data', (d) => (out += d));
  const exit = new Promise<number | null>((resolve) =>
    proc.once('exit', (code) => {
      children.delete(proc);
      resolve(code);
    }),
  );
  const serving = new Promise<string>((resolve, reject) => {
    proc.stderr!.setEncoding('utf8').on('data', (d) => {
      err += d;
      const m = /Serving securely on (\S+?)"/.exec(err);
      if (m) resolve(m[1]!);
    });
    void exit.then((code) => reject(new Error(`exited with ${code} before serving: ${err}`)));
  });
  serving.catch(() => {});
  return { proc, started, stderr: () => err, stdout: () => out, serving, exit };
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const p = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return p;
}

function get(port: number, path: string, opts: https.RequestOptions = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, path, rejectUnauthorized: false, agent: false, ...opts },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Polls until GET /healthz answers; returns ms since the process was spawned. */
async function firstServed(r: Run, port: number): Promise<number> {
  for (;;) {
    try {
      const res = await get(port, '/healthz');
      if (res.status === 200) return performance.now() - r.started;
    } catch {
      // not listening yet
    }
    if (r.proc.exitCode !== null) throw new Error(`exited: ${r.stderr()}`);
    await new Promise((res) => setTimeout(res, 5));
  }
}

test('--help prints sectioned usage and exits 0; a bad flag exits 1 with usage, then the error', async () => {
  const bad = run(['--nope']);
  const r = run(['--help']);
  assert.equal(await r.exit, 0);
  assert.equal(await bad.exit, 1);
  assert.match(bad.stderr(), /^Usage:\n[\s\S]*\nError: unknown flag: --nope\n$/);
  assert.match(r.stdout(), /^Usage:\n {2}edge-apiserver \[flags\]\n/m);
  assert.match(r.stdout(), /\nSecure serving flags:\n\n {6}--bind-address ip /);
  assert.match(r.stdout(), /--tls-sni-cert-key string/);
  assert.match(r.stdout(), /-v, --v Level/);
});

test('bad input: one Error line and a non-zero exit', async () => {
  const good = await generateSelfSignedCertKey({ host: 'a' });
  const other = await generateSelfSignedCertKey({ host: 'b' });
  writeFileSync(join(dir, 'a.crt'), good.cert);
  writeFileSync(join(dir, 'b.key'), other.key);
  writeFileSync(join(dir, 'a.key'), good.key);
  const blocker = net.createServer();
  await new Promise<void>((r) => blocker.listen(0, '0.0.0.0', r));
  const busy = (blocker.address() as net.AddressInfo).port;
  const port = String(await freePort());
  const certDir = ['--cert-dir', join(dir, 'bad-certs')];
  const cases: [string[], string][] = [
    [['--nope'], 'Error: unknown flag: --nope'],
    [
      ['--secure-port=0'],
      'Error: --secure-port 0 must be between 1 and 65535, inclusive. It cannot be turned off with 0',
    ],
    [
      ['--tls-sni-cert-key', 'a.crt,a.key:'],
      'Error: invalid argument "a.crt,a.key:" for "--tls-sni-cert-key" flag: empty names list is not allowed',
    ],
    [
      ['--tls-min-version=VersionTLS14', ...certDir, '--secure-port', port],
      'Error: unknown tls version "VersionTLS14"',
    ],
    [
      ['--tls-cipher-suites=TLS_NOPE', ...certDir, '--secure-port', port],
      "Error: Cipher suite TLS_NOPE not supported or doesn't exist",
    ],
    [
      ['--tls-cert-file', '/nonexistent/x.crt', '--tls-private-key-file', '/nonexistent/x.key', '--secure-port', port],
      'Error: open /nonexistent/x.crt: no such file or directory',
    ],
    [['--tls-cert-file', join(dir, 'a.crt'), '--secure-port', port], 'Error: missing filename for serving cert'],
    [
      ['--tls-cert-file', join(dir, 'a.crt'), '--tls-private-key-file', join(dir, 'b.key'), '--secure-port', port],
      'Error: tls: private key does not match public key',
    ],
    [
      [
        '--tls-cert-file',
        join(dir, 'a.crt'),
        '--tls-private-key-file',
        join(dir, 'a.key'),
        '--secure-port',
        String(busy),
      ],
      `Error: failed to create listener: failed to listen on 0.0.0.0:${busy}: listen tcp 0.0.0.0:${busy}: bind: address already in use`,
    ],
    [
      ['--cert-dir', '/dev/null/certs', '--secure-port', port],
      'Error: unable to generate self signed cert: mkdir /dev/null/certs: not a directory',
    ],
  ];
  try {
    // In-process (the same main() the bin runs; the bin's exit code is checked above).
    for (const [args, want] of cases) {
      let err = '';
      const code = await main(args, {
        stderr: (s) => (err += s),
        stdout: () => {},
        logger: discardLogger,
        signals: false,
      });
      assert.equal(code, 1, `${args.join(' ')}: ${err}`);
      assert.deepEqual(
        err.split('\n').filter((l) => l.startsWith('Error:')),
        [want],
        err,
      );
      assert.ok(err.trimEnd().endsWith(want), err);
    }
  } finally {
    blocker.close();
  }
  assert.equal(existsSync(join(dir, 'bad-certs')), false, 'nothing written for invalid settings');
});

test('self-signed certificate generated in --cert-dir (0644/0600), reused on restart; start-up times', async (t) => {
  const certs = join(dir, 'certs');
  const port = await freePort();
  const args = ['--cert-dir', certs, '--secure-port', String(port), '--bind-address', '127.0.0.1'];
  const first = run(args);
  const genMs = await firstServed(first, port);
  first.proc.kill('SIGTERM');
  assert.equal(await first.exit, 0, first.stderr());
  assert.match(first.stderr(), /Generated self-signed cert \(.*apiserver\.crt, .*apiserver\.key\)/);
  assert.match(first.stderr(), /Serving securely on 127\.0\.0\.1:\d+/);
  assert.equal(statSync(join(certs, 'apiserver.crt')).mode & 0o777, 0o644);
  assert.equal(statSync(join(certs, 'apiserver.key')).mode & 0o777, 0o600);
  assert.equal(statSync(certs).mode & 0o777, 0o755);
  const crt = readFileSync(join(certs, 'apiserver.crt'), 'utf8');

  const second = run(args);
  const reuseMs = await firstServed(second, port);
  // The served certificate is the one on disk.
  const served = await new Promise<string>((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false, agent: false },
      (res) => {
        resolve((res.socket as import('node:tls').TLSSocket).getPeerCertificate().fingerprint256);
        res.resume();
      },
    );
    req.on('error', reject);
    req.end();
  });
  second.proc.kill('SIGINT');
  assert.equal(await second.exit, 0, second.stderr());
  assert.doesNotMatch(second.stderr(), /Generated self-signed cert/);
  assert.equal(readFileSync(join(certs, 'apiserver.crt'), 'utf8'), crt);
  const { X509Certificate } = await import('node:crypto');
  assert.equal(new X509Certificate(crt).fingerprint256, served);
  t.diagnostic(
    `start-up to first served /healthz: ${genMs.toFixed(0)} ms generating the certificate, ${reuseMs.toFixed(0)} ms reusing it`,
  );
});

test('SIGTERM: readyz fails during --shutdown-delay-duration, then new connections are refused while the in-flight request finishes', async () => {
  const port = await freePort();
  const r = run(
    [
      '--cert-dir',
      join(dir, 'certs-term'),
      '--secure-port',
      String(port),
      '--shutdown-delay-duration=3s',
      '--authorization-mode=AlwaysAllow',
    ],
    { script: fixture },
  );
  await firstServed(r, port);
  assert.equal((await get(port, '/readyz')).status, 200);
  const slow = get(port, '/slow?ms=4500');
  await new Promise((res) => setTimeout(res, 100));
  const t0 = performance.now();
  r.proc.kill('SIGTERM');
  await new Promise((res) => setTimeout(res, 200));
  // During the delay: not ready, still serving new connections.
  const ready = await get(port, '/readyz?verbose');
  assert.equal(ready.status, 500);
  assert.match(ready.body, /\[-\]shutdown failed: reason withheld/);
  assert.equal((await get(port, '/healthz')).status, 200);
  assert.ok(performance.now() - t0 < 3000, 'checked within the delay');
  // After the delay: the listener is closed.
  await new Promise((res) => setTimeout(res, 3300 - (performance.now() - t0)));
  await assert.rejects(get(port, '/healthz'), { code: 'ECONNREFUSED' });
  const s = await slow;
  assert.equal(s.status, 200);
  assert.equal(s.body, 'slow done');
  assert.equal(await r.exit, 0, r.stderr());
  assert.match(r.stderr(), /Stopped listening on \[::\]:\d+/);
});

test('a second signal exits 1 at once', async () => {
  const port = await freePort();
  const r = run(['--cert-dir', join(dir, 'certs-2nd'), '--secure-port', String(port), '--shutdown-delay-duration=20s']);
  await r.serving;
  r.proc.kill('SIGTERM');
  await new Promise((res) => setTimeout(res, 200));
  const t0 = performance.now();
  r.proc.kill('SIGTERM');
  assert.equal(await r.exit, 1);
  assert.ok(performance.now() - t0 < 3000);
});

test('--permit-port-sharing: two processes serve one port', async () => {
  const port = await freePort();
  const args = ['--cert-dir', join(dir, 'certs-share'), '--secure-port', String(port), '--permit-port-sharing'];
  const a = run(args);
  await a.serving;
  const b = run(args);
  await b.serving;
  assert.equal((await get(port, '/healthz')).status, 200);
  a.proc.kill('SIGTERM');
  assert.equal(await a.exit, 0);
  // The other keeps serving the port.
  assert.equal((await get(port, '/healthz')).status, 200);
  b.proc.kill('SIGTERM');
  assert.equal(await b.exit, 0);
});

test("a failing post-start hook exits 255 with upstream's message", async () => {
  const port = await freePort();
  const r = run(['--cert-dir', join(dir, 'certs-hook'), '--secure-port', String(port)], {
    script: fixture,
    env: { EDGE_APISERVER_TEST_FAIL_HOOK: '1' },
  });
  assert.equal(await r.exit, 255);
  assert.match(r.stderr(), /^F\d{4} [\d:.]+ PostStartHook "fail-hook" failed: boom$/m);
});
