// Audit behind the real Node TLS listener: a long-running (watch) response gets ResponseStarted
// when it starts and ResponseComplete when the client drops the connection mid-stream; the
// source IP is the socket's peer.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import 'reflect-metadata';
import { Hono } from 'hono';
import { complete, newConfig, newServer, newEmptyDelegate, notFoundHandler, type APIEnv } from '../src/index.ts';
import { discardLogger } from '../src/util/logger.ts';
import { NodeServingListener } from '../adapters/node/listener.ts';
import { NodeFileSystem } from '../adapters/node/fs.ts';
import { SecureServingOptions } from '../src/server/options/serving.ts';
import { generateSelfSignedCertKey } from '../src/server/dynamiccertificates/generate.ts';
import { fixedPolicyRuleEvaluator } from '../src/audit/policy.ts';
import { MemoryBackend } from '../src/audit/testing.ts';

test('audit over the Node listener: a watch dropped by the client completes its event', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-listener-'));
  const pem = await generateSelfSignedCertKey({ host: '127.0.0.1' });
  writeFileSync(join(dir, 'apiserver.crt'), pem.cert);
  writeFileSync(join(dir, 'apiserver.key'), pem.key);
  const backend = new MemoryBackend();
  const config = newConfig({
    logger: discardLogger,
    audit: { policyRuleEvaluator: fixedPolicyRuleEvaluator('Metadata'), backend },
  });
  let cancelled = false;
  config.routeInstallers.push((s) => {
    const routes = new Hono<APIEnv>();
    routes.get('/api/v1/namespaces/:namespace/pods', () => {
      const stream = new ReadableStream<Uint8Array>({
        start: (ctl) => ctl.enqueue(new TextEncoder().encode('{"type":"ADDED","object":{}}\n')),
        cancel: () => void (cancelled = true),
      });
      return new Response(stream, { headers: { 'content-type': 'application/json' } });
    });
    s.handler.registerWebService('/api/v1', routes);
  });
  const o = new SecureServingOptions();
  Object.assign(o, {
    bindAddress: '127.0.0.1',
    certDirectory: dir,
    certFile: join(dir, 'apiserver.crt'),
    keyFile: join(dir, 'apiserver.key'),
  });
  await o.applyTo(config, { fileSystem: new NodeFileSystem(), logger: discardLogger, servesTLS: true });
  const server = newServer(complete(config), 'kube-apiserver', newEmptyDelegate(notFoundHandler));
  const listener = new NodeServingListener(config.secureServing!, { port: 0, logger: discardLogger });
  const stop = new AbortController();
  const running = server.run({ signal: stop.signal, listener });
  try {
    await new Promise<void>((resolve) => {
      const check = () => (listener.address() ? resolve() : setTimeout(check, 10));
      check();
    });
    const port = listener.address().port;
    const auditID = await new Promise<string>((resolve, reject) => {
      const req = https.get(
        {
          host: '127.0.0.1',
          port,
          path: '/api/v1/namespaces/default/pods?watch=true',
          ca: pem.cert,
          headers: { 'user-agent': 'watcher' },
        },
        (res) => {
          res.once('data', () => {
            resolve(String(res.headers['audit-id']));
            req.destroy(); // the client goes away mid-watch
          });
        },
      );
      req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
    });
    const deadline = Date.now() + 5000;
    while (backend.events.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(backend.stages(), ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    assert.ok(backend.events.every((e) => e.auditID === auditID));
    assert.equal(backend.events[1]!.verb, 'watch');
    assert.deepEqual(backend.events[1]!.sourceIPs, ['127.0.0.1']);
    assert.equal(backend.events[1]!.userAgent, 'watcher');
    assert.equal(backend.events[2]!.responseStatus?.code, 200);
    assert.ok(cancelled, 'the handler stream was cancelled');
  } finally {
    stop.abort();
    await running.catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
});
