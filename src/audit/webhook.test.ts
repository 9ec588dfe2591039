// The webhook and buffered backends against a real receiver on loopback (a Hono app served by
// @hono/node-server on port 0): batches, a receiver that answers 500, refuses connections or
// hangs, the backlog delivered after it comes back, a full buffer, shutdown and edge flush.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { serve, type ServerType } from '@hono/node-server';
import { BufferedBackend, type BatchConfig } from './buffered.ts';
import { WebhookBackend } from './webhook.ts';
import { loadWebhookKubeconfig, type WebhookClientConfig } from '../util/webhook/kubeconfig.ts';
import { AuditMetrics } from './metrics.ts';
import { MemoryFileSystem } from '../util/filesystem.ts';
import type { AuditEvent } from './types.ts';
import type { Logger } from '../util/logger.ts';

type Mode = 'ok' | '500' | 'hang';

interface Receiver {
  port: number;
  url: string;
  batches: { items: AuditEvent[]; authorization: string | null; contentType: string | null; raw: string }[];
  mode: Mode;
  hits: number;
  close(): Promise<void>;
}

async function receiver(port = 0): Promise<Receiver> {
  const r = { batches: [], mode: 'ok', hits: 0 } as unknown as Receiver;
  const app = new Hono();
  app.post('/audit', async (c) => {
    r.hits++;
    if (r.mode === 'hang') return new Promise<Response>(() => {});
    const raw = await c.req.text();
    if (r.mode === '500') return c.text('receiver is down', 500);
    r.batches.push({
      items: JSON.parse(raw).items,
      authorization: c.req.header('authorization') ?? null,
      contentType: c.req.header('content-type') ?? null,
      raw,
    });
    return c.json({});
  });
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => resolve(s));
  });
  r.port = (server.address() as AddressInfo).port;
  r.url = `http://127.0.0.1:${r.port}/audit`;
  r.close = () =>
    new Promise((resolve) => {
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      server.close(() => resolve());
    });
  return r;
}

function logger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, enabled: () => false, info: () => {}, warning: (m) => lines.push(m), error: (m) => lines.push(m) };
}

let seq = 0;
function ev(): AuditEvent {
  const t = Date.UTC(2026, 6, 23) * 1000;
  return {
    level: 'Metadata',
    auditID: `id-${++seq}`,
    stage: 'ResponseComplete',
    requestURI: '/api/v1/pods',
    verb: 'list',
    user: { username: 'alice' },
    requestReceivedTimestamp: t,
    stageTimestamp: t,
  };
}

function webhook(url: string, opts: { steps?: number; backoff?: number; timeout?: number } = {}) {
  const log = logger();
  const metrics = new AuditMetrics();
  const client: WebhookClientConfig = { server: url, authorization: 'Bearer s3cret', tls: {} };
  const backend = new WebhookBackend({
    client,
    backoff: { duration: opts.backoff ?? 5, factor: 1.5, jitter: 0.2, steps: opts.steps ?? 5 },
    requestTimeout: opts.timeout ?? 2000,
    logger: log,
    metrics,
  });
  return { backend, log, metrics };
}

const batch = (over: Partial<BatchConfig> = {}): BatchConfig => ({
  bufferSize: 100,
  maxBatchSize: 3,
  maxBatchWait: 30,
  throttleEnable: false,
  throttleQPS: 0,
  throttleBurst: 0,
  asyncDelegate: true,
  ...over,
});

const until = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
};

test('webhook: EventList batches of at most maxBatchSize, with the kubeconfig credentials', async () => {
  const r = await receiver();
  try {
    const { backend: w, metrics, log } = webhook(r.url);
    const b = new BufferedBackend(w, batch(), log, metrics);
    let stop!: () => void;
    await b.run(new Promise<void>((res) => (stop = res)));
    const events = Array.from({ length: 7 }, ev);
    for (const e of events) assert.equal(b.processEvents([e]), true);
    await until(() => r.batches.reduce((n, x) => n + x.items.length, 0) === 7);
    assert.deepEqual(
      r.batches.map((x) => x.items.length),
      [3, 3, 1],
    );
    assert.deepEqual(
      r.batches.flatMap((x) => x.items.map((i) => i.auditID)),
      events.map((e) => e.auditID),
    );
    assert.equal(r.batches[0]!.authorization, 'Bearer s3cret');
    assert.equal(r.batches[0]!.contentType, 'application/json');
    assert.match(
      r.batches[2]!.raw,
      /^\{"kind":"EventList","apiVersion":"audit.k8s.io\/v1","metadata":\{\},"items":\[\{"kind":"Event",.*\]\}\n$/,
    );
    stop();
    await b.shutdown();
    assert.equal(metrics.droppedEvents, 0);
  } finally {
    await r.close();
  }
});

test('webhook: a 500 is retried with backoff until it succeeds', async () => {
  const r = await receiver();
  try {
    r.mode = '500';
    const { backend: w, metrics } = webhook(r.url, { backoff: 10 });
    const p = w.processEvents([ev(), ev()]);
    await until(() => r.hits >= 2);
    r.mode = 'ok';
    assert.equal(await p, true);
    assert.equal(r.batches.length, 1);
    assert.equal(r.batches[0]!.items.length, 2);
    assert.equal(metrics.droppedEvents, 0);
  } finally {
    await r.close();
  }
});

test('webhook: a receiver that keeps answering 500 — after the retries the batch is counted and logged, not silently lost', async () => {
  const r = await receiver();
  try {
    r.mode = '500';
    const { backend: w, metrics, log } = webhook(r.url, { steps: 3, backoff: 2 });
    const events = [ev(), ev()];
    assert.equal(await w.processEvents(events), false);
    assert.equal(r.hits, 3);
    assert.equal(metrics.errorTotal.get('webhook'), 2);
    assert.match(
      log.lines[0]!,
      /^Error in audit plugin 'webhook' affecting 2 audit events: an error on the server \("receiver is down"\) has prevented the request from succeeding \(post code 500\)\nImpacted events:\n.* AUDIT: id="id-\d+" stage="ResponseComplete"/,
    );
  } finally {
    await r.close();
  }
});

test('webhook: a receiver that refuses connections gets the backlog once it comes back', async () => {
  const first = await receiver();
  const port = first.port;
  await first.close();
  const { backend: w, metrics, log } = webhook(`http://127.0.0.1:${port}/audit`, { backoff: 40, steps: 6 });
  const b = new BufferedBackend(w, batch({ maxBatchSize: 10, maxBatchWait: 10 }), log, metrics);
  let stop!: () => void;
  await b.run(new Promise<void>((res) => (stop = res)));
  for (let i = 0; i < 5; i++) b.processEvents([ev()]);
  await new Promise((res) => setTimeout(res, 60)); // the first try was refused
  const back = await receiver(port);
  try {
    await until(() => back.batches.length > 0);
    assert.equal(
      back.batches.reduce((n, x) => n + x.items.length, 0),
      5,
    );
    stop();
    await b.shutdown();
    assert.equal(metrics.droppedEvents, 0);
  } finally {
    await back.close();
  }
});

test('webhook: refused for good — the error names the endpoint', async () => {
  const r = await receiver();
  const url = r.url;
  await r.close();
  const { backend: w, metrics, log } = webhook(url, { steps: 2, backoff: 1 });
  assert.equal(await w.processEvents([ev()]), false);
  assert.equal(metrics.errorTotal.get('webhook'), 1);
  assert.ok(log.lines[0]!.includes(`affecting 1 audit events: Post "${url}": `), log.lines[0]);
});

test('webhook: a receiver that hangs — each try times out; batch mode never holds the request', async () => {
  const r = await receiver();
  try {
    r.mode = 'hang';
    const { backend: w, metrics, log } = webhook(r.url, { steps: 2, backoff: 1, timeout: 50 });
    const b = new BufferedBackend(w, batch({ maxBatchSize: 1 }), log, metrics);
    let stop!: () => void;
    await b.run(new Promise<void>((res) => (stop = res)));
    const t = performance.now();
    assert.equal(b.processEvents([ev()]), true);
    assert.ok(performance.now() - t < 20);
    stop();
    await b.shutdown(); // waits for the batch still being retried
    assert.equal(r.hits, 2);
    assert.equal(metrics.errorTotal.get('webhook'), 1);
    assert.match(log.lines[0]!, /Client\.Timeout exceeded/);
  } finally {
    await r.close();
  }
});

test('buffered: a full buffer drops, counts and logs; the caller is not failed', async () => {
  const log = logger();
  const metrics = new AuditMetrics();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const got: AuditEvent[] = [];
  const slow = {
    processEvents: async (e: AuditEvent[]) => (await gate, got.push(...e), true),
    run() {},
    async shutdown() {},
    toString: () => 'slow',
  };
  const b = new BufferedBackend(slow, batch({ bufferSize: 2, maxBatchSize: 1, asyncDelegate: false }), log, metrics);
  let stop!: () => void;
  await b.run(new Promise<void>((res) => (stop = res)));
  b.processEvents([ev()]); // taken by the loop, blocked in the delegate
  await new Promise((r) => setTimeout(r, 5));
  b.processEvents([ev()]);
  b.processEvents([ev()]);
  assert.equal(b.processEvents([ev()]), true);
  assert.equal(metrics.errorTotal.get('buffered'), 1);
  assert.match(log.lines[0]!, /^Error in audit plugin 'buffered' affecting 1 audit events: audit buffer queue blocked/);
  release();
  stop();
  await b.shutdown();
  assert.equal(got.length, 3);
  // After shutdown nothing is accepted, and that is counted too.
  b.processEvents([ev()]);
  assert.equal(metrics.errorTotal.get('buffered'), 2);
  assert.match(log.lines[1]!, /audit backend shut down/);
});

test('buffered: shutdown delivers what is queued without waiting for maxBatchWait; throttling applies', async () => {
  const got: number[] = [];
  const sink = {
    processEvents: (e: AuditEvent[]) => (got.push(e.length), true),
    run() {},
    async shutdown() {},
    toString: () => 'sink',
  };
  const b = new BufferedBackend(
    sink,
    batch({
      bufferSize: 1000,
      maxBatchSize: 100,
      maxBatchWait: 60_000,
      throttleEnable: true,
      throttleQPS: 1000,
      throttleBurst: 1,
    }),
    logger(),
    new AuditMetrics(),
  );
  let stop!: () => void;
  await b.run(new Promise<void>((res) => (stop = res)));
  for (let i = 0; i < 250; i++) b.processEvents([ev()]);
  stop();
  await b.shutdown();
  assert.deepEqual(got, [100, 100, 50]);
});

test('buffered: on edge (no run()), flush() sends the buffer now', async () => {
  const got: number[] = [];
  const sink = {
    processEvents: (e: AuditEvent[]) => (got.push(e.length), true),
    run() {},
    async shutdown() {},
    toString: () => 'sink',
  };
  const b = new BufferedBackend(sink, batch({ maxBatchSize: 400, maxBatchWait: 30_000 }), logger(), new AuditMetrics());
  b.processEvents([ev(), ev()]);
  b.processEvents([ev()]);
  await b.flush();
  assert.deepEqual(got, [3]);
  await b.flush(); // nothing pending: returns
  await b.shutdown();
});

test('kubeconfig: server, token, basic auth, CA data; errors', async () => {
  const fs = new MemoryFileSystem({
    '/k/webhook.yaml': `apiVersion: v1
kind: Config
clusters:
- name: audit
  cluster:
    server: https://audit.example:8443/events
    certificate-authority-data: ${btoa('-----BEGIN CERTIFICATE-----\nX\n-----END CERTIFICATE-----\n')}
users:
- name: sink
  user:
    tokenFile: token
contexts:
- name: ctx
  context: {cluster: audit, user: sink}
current-context: ctx
`,
    '/k/token': 'abc\n',
    '/k/basic.yaml':
      'clusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]\nusers: [{name: u, user: {username: a, password: b}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
    '/k/empty.yaml': 'apiVersion: v1\nkind: Config\n',
    '/k/missing.yaml': 'current-context: nope\n',
  });
  const c = await loadWebhookKubeconfig(fs, '/k/webhook.yaml');
  assert.equal(c.server, 'https://audit.example:8443/events');
  assert.equal(c.authorization, 'Bearer abc');
  assert.match(c.tls.caData!, /BEGIN CERTIFICATE/);
  assert.equal((await loadWebhookKubeconfig(fs, '/k/basic.yaml')).authorization, `Basic ${btoa('a:b')}`);
  await assert.rejects(loadWebhookKubeconfig(fs, '/k/empty.yaml'), {
    message:
      'invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable',
  });
  await assert.rejects(loadWebhookKubeconfig(fs, '/k/missing.yaml'), {
    message:
      'invalid configuration: [context was not found for specified context: nope, no server found for cluster ""]',
  });
  await assert.rejects(loadWebhookKubeconfig(fs, '/k/none.yaml'), {
    message: 'open /k/none.yaml: no such file or directory',
  });
});
