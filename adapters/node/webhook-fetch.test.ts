import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import 'reflect-metadata';
import { generateSelfSignedCertKey } from '../../src/server/dynamiccertificates/generate.ts';
import { nodeWebhookFetch } from './webhook-fetch.ts';
import { WebhookBackend } from '../../src/audit/webhook.ts';
import { AuditMetrics } from '../../src/audit/metrics.ts';
import { discardLogger } from '../../src/util/logger.ts';

test('audit webhook over TLS with the kubeconfig CA (node:https), and refused without it', async () => {
  const pem = await generateSelfSignedCertKey({ host: '127.0.0.1' });
  const bodies: string[] = [];
  const server = https.createServer({ cert: pem.cert, key: pem.key }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/audit`;
  try {
    const t = Date.UTC(2026, 0, 1) * 1000;
    const ev = {
      level: 'Metadata' as const,
      auditID: 'x',
      stage: 'ResponseComplete' as const,
      requestURI: '/',
      verb: 'get',
      user: {},
      requestReceivedTimestamp: t,
      stageTimestamp: t,
    };
    const metrics = new AuditMetrics();
    const ok = new WebhookBackend({
      client: { server: url, tls: { caData: pem.cert } },
      fetch: nodeWebhookFetch({ caData: pem.cert }),
      logger: discardLogger,
      metrics,
    });
    assert.equal(await ok.processEvents([ev]), true);
    assert.match(bodies[0]!, /^\{"kind":"EventList"/);
    const untrusted = new WebhookBackend({
      client: { server: url, tls: {} },
      fetch: nodeWebhookFetch({}),
      backoff: { duration: 1, factor: 1, jitter: 0, steps: 1 },
      logger: discardLogger,
      metrics,
    });
    assert.equal(await untrusted.processEvents([ev]), false);
    assert.equal(metrics.errorTotal.get('webhook'), 1);
    const insecure = nodeWebhookFetch({ insecureSkipTLSVerify: true });
    assert.equal((await insecure(url, { method: 'POST', body: '{}' })).status, 200);
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});
