// Plumbing for the conformance runners: an HTTP(S) sender built on node:http(s) (so no client
// adds headers of its own), a process launcher that owns a whole process group (wrangler and
// workerd must die together: killing wrangler alone orphans workerd), and a throwaway TLS certificate.

import { spawn, type ChildProcess } from 'node:child_process';
import assert from 'node:assert/strict';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import zlib from 'node:zlib';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { USER_AGENT, type CaseRequest, type CaseResponse } from './cases.ts';

export const REPO_ROOT = new URL('../../', import.meta.url).pathname;
export const BIN = REPO_ROOT + 'node_modules/.bin/';

/** Sends cases over HTTP/1.1 (TLS when `ca` is given) to `base` (`https://127.0.0.1:PORT`). */
export function httpSender(
  base: string,
  ca?: string,
  client?: { cert: string; key: string },
): { send: (req: CaseRequest) => Promise<CaseResponse>; close: () => void } {
  const url = new URL(base);
  const secure = url.protocol === 'https:';
  const agent = secure ? new https.Agent({ keepAlive: true, ca, ...client }) : new http.Agent({ keepAlive: true });
  const send = (req: CaseRequest) =>
    new Promise<CaseResponse>((resolve, reject) => {
      const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...req.headers };
      if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
      const r = (secure ? https : http).request(
        {
          host: url.hostname,
          port: url.port,
          path: req.path,
          method: req.method ?? 'GET',
          headers,
          agent,
          timeout: 20_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const h = new Headers();
            for (let i = 0; i < res.rawHeaders.length; i += 2) h.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
            let raw = Buffer.concat(chunks);
            // miniflare compresses when a request carries an injected `cf` (MF-CF-Blob).
            const enc = h.get('content-encoding');
            if (enc === 'br') raw = zlib.brotliDecompressSync(raw);
            else if (enc === 'gzip') raw = zlib.gunzipSync(raw);
            resolve({ status: res.statusCode ?? 0, headers: h, body: raw.toString('utf8') });
          });
          res.on('error', reject);
        },
      );
      r.on('timeout', () => r.destroy(new Error(`timeout: ${req.path}`)));
      r.on('error', reject);
      r.end(req.body);
    });
  return { send, close: () => agent.destroy() };
}

export interface Spawned {
  child: ChildProcess;
  /** First capture group of the ready pattern (the port). */
  match: RegExpMatchArray;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts a process in its own process group and resolves once stdout/stderr match `ready`.
 * Rejects (after killing the group) on exit or after `timeoutMs`, with the output attached.
 */
export function spawnUntil(
  command: string,
  args: string[],
  opts: { ready: RegExp; timeoutMs: number; env?: NodeJS.ProcessEnv; cwd?: string },
): Promise<Spawned> {
  const child = spawn(command, args, {
    cwd: opts.cwd ?? REPO_ROOT,
    env: { ...process.env, ...opts.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      return;
    }
    const t = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, 5000);
    await exited;
    clearTimeout(t);
    // Children of the group (workerd) may outlive the leader briefly.
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* all gone */
    }
  };
  return new Promise<Spawned>((resolve, reject) => {
    let done = false;
    const fail = (why: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      void stop().then(() => reject(new Error(`${command} ${args.join(' ')}: ${why}\n--- output ---\n${out}`)));
    };
    const onData = (d: Buffer) => {
      out += d.toString('utf8');
      if (done) return;
      const m = out.match(opts.ready);
      if (m) {
        done = true;
        clearTimeout(timer);
        resolve({ child, match: m, output: () => out, stop });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', (err) => fail(`failed to start: ${err.message}`));
    child.once('exit', (code, signal) => fail(`exited early (code ${code}, signal ${signal})`));
    const timer = setTimeout(() => fail(`not ready after ${opts.timeoutMs} ms`), opts.timeoutMs);
    onData(Buffer.alloc(0)); // a pattern that matches no output (/^/) means "started"
  });
}

/** A self-signed ECDSA P-256 certificate for 127.0.0.1/localhost, PEM. */
export async function selfSignedServingCert(): Promise<{ cert: string; key: string }> {
  x509.cryptoProvider.set(globalThis.crypto);
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
  const keys = (await crypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber:
      '01' + [...crypto.getRandomValues(new Uint8Array(8))].map((b) => b.toString(16).padStart(2, '0')).join(''),
    name: 'CN=edge-apiserver-conformance',
    notBefore: new Date(now - 3600_000),
    notAfter: new Date(now + 24 * 3600_000),
    signingAlgorithm: alg,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign, true),
      new x509.SubjectAlternativeNameExtension([
        { type: 'ip', value: '127.0.0.1' },
        { type: 'dns', value: 'localhost' },
      ]),
    ],
  });
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey('pkcs8', keys.privateKey));
  const b64 = Buffer.from(pkcs8)
    .toString('base64')
    .replace(/.{1,64}/g, '$&\n');
  return { cert: cert.toString('pem'), key: `-----BEGIN PRIVATE KEY-----\n${b64}-----END PRIVATE KEY-----\n` };
}

/** One HTTP/2 GET over TLS; resolves with the negotiated ALPN protocol, status and body. */
export function h2Get(
  base: string,
  ca: string,
  path: string,
): Promise<{ alpn: string | false | undefined; status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(base, { ca });
    const timer = setTimeout(() => {
      session.destroy();
      reject(new Error('h2 timeout'));
    }, 10_000);
    session.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    const req = session.request({ ':path': path, 'user-agent': USER_AGENT });
    let status = 0;
    let body = '';
    req.on('response', (h) => (status = Number(h[':status'])));
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      clearTimeout(timer);
      const alpn = session.alpnProtocol;
      session.close();
      resolve({ alpn, status, body });
    });
    req.end();
  });
}

/**
 * After SIGTERM the server keeps serving for --shutdown-delay-duration with /readyz failing
 * (upstream RunWithContext), then stops accepting, drains and exits 0 after printing SHUTDOWN COMPLETE.
 */
export async function checkGracefulShutdown(
  proc: Spawned,
  send: (req: CaseRequest) => Promise<CaseResponse>,
): Promise<void> {
  const exited = new Promise<number | null>((r) => {
    if (proc.child.exitCode !== null) r(proc.child.exitCode);
    else proc.child.once('exit', (code) => r(code));
  });
  process.kill(proc.child.pid!, 'SIGTERM');
  await new Promise((r) => setTimeout(r, 150));
  const ready = await send({ path: '/readyz?verbose' });
  assert.equal(ready.status, 500);
  assert.match(ready.body, /\[-\]shutdown failed: reason withheld\n/);
  const health = await send({ path: '/healthz' });
  assert.equal(health.status, 200);
  assert.equal(await exited, 0, proc.output());
  assert.match(proc.output(), /SHUTDOWN COMPLETE/);
}
