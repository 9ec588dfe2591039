// Request bodies over HTTP/1.1 on the Node listener, through the whole server: a body with a
// Content-Length is read whole (Transport.bodyWithinContentLength), a chunked one as a stream;
// a client that stops short of its declared length creates nothing and the server keeps serving;
// a declared length over the limit is 413 before anything is read.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import 'reflect-metadata';
import { buildServerFromFlags } from '../src/app/build.ts';
import { discardLogger } from '../src/util/logger.ts';
import { generateSelfSignedCertKey } from '../src/server/dynamiccertificates/generate.ts';
import { NodeServingListener } from '../adapters/node/listener.ts';
import { nodePlatform } from '../adapters/node/platform.ts';

interface Answer {
  status: number;
  body: string;
}

test('HTTP/1.1 bodies: declared and chunked creates, a body cut short, a declared length over the limit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'http1-bodies-'));
  const pem = await generateSelfSignedCertKey({ host: '127.0.0.1' });
  writeFileSync(join(dir, 'apiserver.crt'), pem.cert);
  writeFileSync(join(dir, 'apiserver.key'), pem.key);
  const { server, config } = await buildServerFromFlags(
    [
      '--bind-address=127.0.0.1',
      `--tls-cert-file=${join(dir, 'apiserver.crt')}`,
      `--tls-private-key-file=${join(dir, 'apiserver.key')}`,
      '--storage-backend=memory',
      '--authorization-mode=AlwaysAllow',
      '--anonymous-auth=true',
    ],
    { ...nodePlatform(), logger: discardLogger },
  );
  const listener = new NodeServingListener(config.secureServing!, { port: 0, logger: discardLogger });
  await listener.listen();
  const stop = new AbortController();
  const running = server.run({ signal: stop.signal, listener });
  const port = listener.address().port;
  /** One request on its own connection; `send` writes the body (and may end or destroy it). */
  const request = (
    method: string,
    path: string,
    headers: Record<string, string | number>,
    send: (req: ReturnType<typeof https.request>) => void,
  ) =>
    new Promise<Answer>((resolve, reject) => {
      const req = https.request(
        { host: '127.0.0.1', port, method, path, headers, rejectUnauthorized: false, agent: false },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        },
      );
      req.on('error', reject);
      send(req);
    });
  const cm = (name: string) => JSON.stringify({ metadata: { name }, data: { k: 'v' } });
  const json = { 'content-type': 'application/json' };
  const get = (path: string) => request('GET', path, {}, (r) => r.end());
  try {
    for (let i = 0; (await get('/readyz')).status !== 200; i++) {
      assert.ok(i < 500, 'ready');
      await new Promise((r) => setTimeout(r, 20));
    }
    const ns = JSON.stringify({ metadata: { name: 'bodies' } });
    const made = await request('POST', '/api/v1/namespaces', { ...json, 'content-length': ns.length }, (r) =>
      r.end(ns),
    );
    assert.equal(made.status, 201, made.body);

    // Declared: read whole.
    const declared = cm('declared');
    const a = await request(
      'POST',
      '/api/v1/namespaces/bodies/configmaps',
      { ...json, 'content-length': declared.length },
      (r) => r.end(declared),
    );
    assert.equal(a.status, 201, a.body);
    assert.equal((JSON.parse(a.body) as { metadata: { name: string } }).metadata.name, 'declared');

    // Chunked (no Content-Length), in two writes: read as a stream.
    const chunked = cm('chunked');
    const b = await request('POST', '/api/v1/namespaces/bodies/configmaps', json, (r) => {
      r.write(chunked.slice(0, 10));
      setTimeout(() => r.end(chunked.slice(10)), 20);
    });
    assert.equal(b.status, 201, b.body);

    // Cut short: 100 bytes declared, 20 sent, then the connection drops. Nothing is created.
    await request('POST', '/api/v1/namespaces/bodies/configmaps', { ...json, 'content-length': 100 }, (r) => {
      r.write(cm('short').slice(0, 20));
      setTimeout(() => r.destroy(), 50);
    }).catch((err: NodeJS.ErrnoException) =>
      assert.match(String(err.code ?? err.message), /ECONNRESET|socket hang up/),
    );
    const short = await get('/api/v1/namespaces/bodies/configmaps/short');
    assert.equal(short.status, 404, short.body);

    // Over the limit (3 MiB) by its declaration: 413 before the body is read.
    const big = await request(
      'POST',
      '/api/v1/namespaces/bodies/configmaps',
      { ...json, 'content-length': 3 * 1024 * 1024 + 1 },
      (r) => r.write('{'),
    );
    assert.equal(big.status, 413);
    assert.match(big.body, /Request entity too large: limit is 3145728/);

    const list = JSON.parse((await get('/api/v1/namespaces/bodies/configmaps')).body) as {
      items: { metadata: { name: string } }[];
    };
    assert.deepEqual(list.items.map((i) => i.metadata.name).sort(), ['chunked', 'declared']);
  } finally {
    stop.abort();
    await running.catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
});
