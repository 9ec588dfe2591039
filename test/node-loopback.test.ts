// The loopback client as upstream's (reference §1.6): SNI apiserver-loopback-client, verified
// against the loopback CA, bearer token authenticated as system:apiserver (system:masters).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../adapters/node/cli.ts';
import type { Config } from '../src/server/config.ts';
import { discardLogger } from '../src/util/logger.ts';

test('loopback: verified TLS by SNI and the per-start token authenticates as system:apiserver', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-loopback-'));
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  let config!: Config;
  const stop = new AbortController();
  const exited = main(['--cert-dir', dir, '--secure-port', String(port), '--bind-address', '127.0.0.1'], {
    signals: false,
    signal: stop.signal,
    logger: discardLogger,
    stderr: () => {},
    configure: (c) => {
      config = c;
    },
  });
  try {
    const lb = await waitFor(() => config?.secureServing?.loopback);
    const token = config.loopbackToken!;
    const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    const res = await retry(() =>
      request(port, {
        method: 'POST',
        path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        servername: lb.serverName,
        ca: lb.caPEM,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      }, body),
    );
    assert.equal(res.status, 201, res.body);
    const review = JSON.parse(res.body);
    assert.equal(review.status.userInfo.username, 'system:apiserver');
    assert.deepEqual(review.status.userInfo.groups, ['system:authenticated', 'system:masters']);
    // The same CA does not verify the default serving certificate (it is the loopback one).
    await assert.rejects(request(port, { path: '/healthz', ca: lb.caPEM, servername: 'localhost' }));
  } finally {
    stop.abort();
    assert.equal(await exited, 0);
    rmSync(dir, { recursive: true, force: true });
  }
});

async function waitFor<T>(f: () => T | undefined): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const v = f();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('timed out');
}

async function retry<T>(f: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await f();
    } catch (err) {
      if (i > 200 || (err as NodeJS.ErrnoException).code !== 'ECONNREFUSED') throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

function request(port: number, opts: https.RequestOptions, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, agent: false, ...opts }, (res) => {
      let b = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (b += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: b }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
