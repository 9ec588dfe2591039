// Audit on the edge: the Cloudflare Worker in local workerd (`wrangler dev`) with a webhook
// backend pointing at a receiver on loopback. The batch wait is 60s, so events arrive within
// the test only because the filter hands a flush to ctx.waitUntil at the end of each request.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { serve, type ServerType } from '@hono/node-server';
import { BIN, REPO_ROOT, spawnUntil } from './conformance/harness.ts';

test('audit on workerd: webhook batches flushed through waitUntil; Audit-Id matches', { timeout: 90_000 }, async () => {
  const received: { auditID: string; stage: string; responseStatus?: { code?: number } }[] = [];
  const app = new Hono();
  app.post('/audit', async (c) => {
    const list = await c.req.json();
    assert.equal(list.kind, 'EventList');
    received.push(...list.items);
    return c.json({});
  });
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const files = {
    '/etc/k/policy.yaml':
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: ["/livez"]\n- level: Metadata\n',
    '/etc/k/webhook.kubeconfig': `clusters: [{name: sink, cluster: {server: "http://127.0.0.1:${port}/audit"}}]\ncontexts: [{name: x, context: {cluster: sink}}]\ncurrent-context: x\n`,
  };
  const flags = [
    '--audit-policy-file=/etc/k/policy.yaml',
    '--audit-webhook-config-file=/etc/k/webhook.kubeconfig',
    '--audit-webhook-batch-max-wait=60s',
  ];
  const proc = await spawnUntil(
    BIN + 'wrangler',
    [
      'dev',
      '--config',
      'test/audit-workerd/wrangler.toml',
      '--ip',
      '127.0.0.1',
      '--port',
      '0',
      '--inspector-port',
      '0',
      '--show-interactive-dev-session=false',
      '--log-level',
      'info',
      '--var',
      `APISERVER_FLAGS:${JSON.stringify(flags)}`,
      '--var',
      `APISERVER_FILES:${JSON.stringify(files)}`,
    ],
    {
      ready: /Ready on http:\/\/127\.0\.0\.1:(\d+)/,
      timeoutMs: 60_000,
      env: { PATH: `${BIN}:${process.env.PATH}`, WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1' },
      cwd: REPO_ROOT,
    },
  );
  try {
    const base = `http://127.0.0.1:${proc.match[1]}`;
    const ids: string[] = [];
    for (const path of ['/healthz', '/version', '/api/v1/namespaces/default/pods?timeout=10']) {
      const r = await fetch(base + path);
      await r.arrayBuffer();
      ids.push(r.headers.get('audit-id')!);
    }
    const livez = await fetch(base + '/livez');
    await livez.arrayBuffer();
    const deadline = Date.now() + 20_000;
    while (received.length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const stages = (id: string) => received.filter((e) => e.auditID === id).map((e) => e.stage);
    assert.deepEqual(stages(ids[0]!), ['RequestReceived', 'ResponseComplete'], proc.output());
    assert.deepEqual(stages(ids[1]!), ['RequestReceived', 'ResponseComplete']);
    assert.deepEqual(stages(ids[2]!), ['ResponseStarted'], 'the bad ?timeout= 400');
    assert.equal(received.find((e) => e.auditID === ids[2])?.responseStatus?.code, 400);
    assert.equal(stages(livez.headers.get('audit-id')!).length, 0, 'level None');
    assert.equal(received.length, 5);
  } finally {
    await proc.stop();
    await new Promise<void>((r) => server.close(() => r()));
  }
});
