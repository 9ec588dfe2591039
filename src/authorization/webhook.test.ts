import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { attributes } from './authorizer.ts';
import { parseWebhookKubeconfig, WebhookAuthorizer, subjectAccessReviewSpec } from './webhook.ts';

interface Seen {
  body: Record<string, unknown>;
  auth: string | null;
}

const seen: Seen[] = [];
let mode: 'allow' | 'deny' | 'none' | 'both' | '500' | 'slow' | 'garbage' | 'status403' = 'allow';
const app = new Hono();
app.post('/authorize', async (c) => {
  seen.push({ body: await c.req.json(), auth: c.req.header('authorization') ?? null });
  switch (mode) {
    case 'allow':
      return c.json({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        status: { allowed: true, reason: 'hook says yes' },
      });
    case 'deny':
      return c.json({ status: { allowed: false, denied: true, reason: 'hook says no' } });
    case 'none':
      return c.json({ status: { allowed: false } });
    case 'both':
      return c.json({ status: { allowed: true, denied: true } });
    case '500':
      return c.text('boom', 500);
    case 'status403':
      return c.json(
        { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'webhook caller forbidden', code: 403 },
        403,
      );
    case 'slow':
      await new Promise((r) => setTimeout(r, 500));
      return c.json({ status: { allowed: true } });
    case 'garbage':
      return c.text('{not json');
  }
});

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise<void>((r) => server.once('listening', () => r()));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`;
after(() => server.close());

const fastBackoff = { duration: 5, factor: 1, jitter: 0, steps: 3 };
const attrs = (verb = 'get') =>
  attributes({
    verb,
    isResourceRequest: true,
    namespace: 'ns',
    apiGroup: 'apps',
    apiVersion: 'v1',
    resource: 'deployments',
    subresource: 'scale',
    name: 'web',
    user: { name: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } },
  });

test('kubeconfig: current context, token, file references', async () => {
  const kc = `apiVersion: v1
kind: Config
clusters:
- name: other
  cluster: {server: https://other.invalid}
- name: hook
  cluster: {server: ${url}, certificate-authority: ca.pem}
users:
- name: me
  user: {token: s3cret}
contexts:
- name: c
  context: {cluster: hook, user: me}
current-context: c
`;
  const cfg = await parseWebhookKubeconfig(kc, '/etc/hook/kubeconfig', async (p) =>
    p === '/etc/hook/ca.pem' ? 'PEM' : Promise.reject(new Error(`open ${p}`)),
  );
  assert.deepEqual(cfg, { server: url, caData: 'PEM', token: 's3cret' });
  await assert.rejects(
    parseWebhookKubeconfig('clusters: []', 'k', async () => ''),
    // clientcmd: no current context is an error (the first context is not a fallback).
    /invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable/,
  );
});

test('allow / deny / no opinion / both, with the SubjectAccessReview sent (v1 and v1beta1)', async () => {
  const w = new WebhookAuthorizer({
    client: { server: url, authorization: 'Bearer t', tls: {} },
    version: 'v1',
    retryBackoff: fastBackoff,
    authorizedTTL: 0,
    unauthorizedTTL: 0,
  });
  seen.length = 0;
  mode = 'allow';
  assert.deepEqual(await w.authorize(attrs()), { decision: 'Allow', reason: 'hook says yes' });
  assert.equal(seen[0]!.auth, 'Bearer t');
  assert.deepEqual(seen[0]!.body, {
    kind: 'SubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec: {
      resourceAttributes: {
        namespace: 'ns',
        verb: 'get',
        group: 'apps',
        version: 'v1',
        resource: 'deployments',
        subresource: 'scale',
        name: 'web',
      },
      user: 'alice',
      groups: ['dev', 'system:authenticated'],
      extra: { scopes: ['a'] },
      uid: 'u1',
    },
    status: { allowed: false },
  });
  mode = 'deny';
  assert.deepEqual(await w.authorize(attrs()), { decision: 'Deny', reason: 'hook says no' });
  mode = 'none';
  assert.deepEqual(await w.authorize(attrs()), { decision: 'NoOpinion', reason: '' });
  mode = 'both';
  const both = await w.authorize(attrs());
  assert.equal(both.decision, 'Deny');
  assert.equal(both.error?.message, 'webhook subject access review returned both allow and deny response');
  const nonRes = subjectAccessReviewSpec(
    attributes({ verb: 'get', path: '/healthz', user: { name: 'x', groups: ['g'] } }),
    'v1beta1',
  );
  assert.deepEqual(nonRes, { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'x', group: ['g'] });
  const ls = subjectAccessReviewSpec(
    attributes({
      verb: 'list',
      isResourceRequest: true,
      resource: 'pods',
      labelSelector: 'tier in (web,api),app=x,!legacy,env,n>3',
    }),
  );
  assert.deepEqual((ls.resourceAttributes as { labelSelector: unknown }).labelSelector, {
    requirements: [
      { key: 'app', operator: 'In', values: ['x'] },
      { key: 'env', operator: 'Exists' },
      { key: 'legacy', operator: 'DoesNotExist' },
      { key: 'tier', operator: 'In', values: ['api', 'web'] },
    ],
  });
  const fs = subjectAccessReviewSpec(
    attributes({
      verb: 'list',
      isResourceRequest: true,
      resource: 'pods',
      fieldSelector: 'spec.nodeName=n1,metadata.name!=x',
    }),
  );
  assert.deepEqual((fs.resourceAttributes as { fieldSelector: unknown }).fieldSelector, {
    requirements: [
      { key: 'metadata.name', operator: 'NotIn', values: ['x'] },
      { key: 'spec.nodeName', operator: 'In', values: ['n1'] },
    ],
  });
});

test('failures: 500 is retried then NoOpinion + error; garbage and 4xx are not retried; timeout', async () => {
  const w = new WebhookAuthorizer({
    client: { server: url, tls: {} },
    retryBackoff: fastBackoff,
    requestTimeout: 100,
    authorizedTTL: 0,
    unauthorizedTTL: 0,
  });
  seen.length = 0;
  mode = '500';
  let r = await w.authorize(attrs());
  assert.equal(r.decision, 'NoOpinion');
  assert.equal(r.error?.message, 'an error on the server ("boom") has prevented the request from succeeding');
  assert.equal(seen.length, 3, 'retried steps times');
  seen.length = 0;
  mode = 'garbage';
  r = await w.authorize(attrs());
  assert.match(r.error!.message, /^failed to decode the webhook's SubjectAccessReview response: /);
  assert.equal(seen.length, 1);
  seen.length = 0;
  mode = 'status403';
  r = await w.authorize(attrs());
  assert.equal(r.error?.message, 'webhook caller forbidden');
  assert.equal(seen.length, 1);
  mode = 'slow';
  const t0 = Date.now();
  r = await w.authorize(attrs());
  assert.equal(r.decision, 'NoOpinion');
  assert.equal(r.error?.message, `Post "${url}": context deadline exceeded`);
  assert.ok(Date.now() - t0 < 2000);
  // failurePolicy Deny.
  const deny = new WebhookAuthorizer({
    client: { server: 'http://127.0.0.1:1/', tls: {} },
    retryBackoff: { ...fastBackoff, steps: 1 },
    decisionOnError: 'Deny',
  });
  r = await deny.authorize(attrs());
  assert.equal(r.decision, 'Deny');
  assert.match(r.error!.message, /^Post "http:\/\/127\.0\.0\.1:1\/": /);
});

test('cache: authorized and unauthorized TTLs, keyed by the spec', async () => {
  let now = 1_000_000;
  const w = new WebhookAuthorizer({
    client: { server: url, tls: {} },
    retryBackoff: fastBackoff,
    authorizedTTL: 60_000,
    unauthorizedTTL: 5_000,
    now: () => now,
  });
  seen.length = 0;
  mode = 'allow';
  await w.authorize(attrs('get'));
  await w.authorize(attrs('get'));
  assert.equal(seen.length, 1, 'allowed answer cached');
  mode = 'deny';
  assert.equal((await w.authorize(attrs('get'))).decision, 'Allow', 'still the cached allow');
  assert.equal((await w.authorize(attrs('list'))).decision, 'Deny');
  assert.equal(seen.length, 2);
  now += 4_000;
  await w.authorize(attrs('list'));
  assert.equal(seen.length, 2, 'denied answer cached for 5s');
  now += 2_000;
  mode = 'allow';
  assert.equal((await w.authorize(attrs('list'))).decision, 'Allow', 'denied entry expired');
  assert.equal(seen.length, 3);
  now += 61_000;
  await w.authorize(attrs('get'));
  assert.equal(seen.length, 4, 'allowed entry expired');
  // Errors are not cached.
  mode = '500';
  await w.authorize(attrs('watch'));
  mode = 'allow';
  assert.equal((await w.authorize(attrs('watch'))).decision, 'Allow');
  // Rules are not listable through a webhook.
  const rules = await w.rulesFor();
  assert.equal(rules.incomplete, true);
  assert.equal(rules.error?.message, 'webhook authorizer does not support user rule resolution');
});
