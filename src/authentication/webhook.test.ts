import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { WebhookTokenAuthenticator } from './webhook.ts';
import { loadWebhookKubeconfig } from '../util/webhook/kubeconfig.ts';
import { CachedTokenAuthenticator } from './cache.ts';
import { MemoryFileSystem } from '../util/filesystem.ts';

const seen: unknown[] = [];
let failures = 0;
const app = new Hono();
app.post('/authenticate', async (c) => {
  if (failures > 0) {
    failures--;
    return c.text('unavailable', 503);
  }
  if (c.req.header('authorization') !== 'Bearer hook-secret') return c.text('no', 401);
  const review = (await c.req.json()) as { spec: { token: string; audiences?: string[] }; apiVersion: string };
  seen.push(review);
  const status =
    review.spec.token === 'good'
      ? {
          authenticated: true,
          user: { username: 'jane', uid: '42', groups: ['dev'], extra: { scopes: ['a'] } },
          audiences: review.spec.audiences,
        }
      : review.spec.token === 'explain'
        ? { authenticated: false, error: 'token revoked' }
        : { authenticated: false };
  return c.json({ apiVersion: review.apiVersion, kind: 'TokenReview', status });
});
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise((r) => server.once('listening', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/authenticate`;
after(() => server.close());

const kubeconfig = `
apiVersion: v1
kind: Config
clusters:
- name: authn
  cluster:
    server: ${url}
    certificate-authority-data: ${Buffer.from('-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----\\n').toString('base64')}
users:
- name: apiserver
  user:
    tokenFile: /secrets/token
contexts:
- name: webhook
  context: {cluster: authn, user: apiserver}
current-context: webhook
`;

const fs = new MemoryFileSystem({ '/etc/webhook.yaml': kubeconfig, '/secrets/token': 'hook-secret\n' });

test('kubeconfig: server, CA data, token file', async () => {
  const c = await loadWebhookKubeconfig(fs, '/etc/webhook.yaml');
  assert.equal(c.server, url);
  assert.equal(c.authorization, 'Bearer hook-secret');
  assert.match(c.tls.caData!, /BEGIN CERTIFICATE/);
});

test('TokenReview: authenticated, denied, denied with error, audiences', async () => {
  const client = await loadWebhookKubeconfig(fs, '/etc/webhook.yaml');
  const w = new WebhookTokenAuthenticator({ client, implicitAudiences: ['api'], retryInitial: 5 });
  assert.deepEqual(await w.authenticateToken('good'), {
    user: { name: 'jane', uid: '42', groups: ['dev'], extra: { scopes: ['a'] } },
  });
  assert.deepEqual(seen.at(-1), {
    kind: 'TokenReview',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec: { token: 'good' },
    status: { user: {} },
  });
  assert.equal(await w.authenticateToken('bad'), null);
  await assert.rejects(w.authenticateToken('explain'), { message: 'token revoked' });
  assert.deepEqual((await w.authenticateToken('good', ['api']))!.audiences, ['api']);
  failures = 2;
  assert.equal((await w.authenticateToken('good'))!.user.name, 'jane'); // retried through two 503s
  failures = 10;
  await assert.rejects(
    new WebhookTokenAuthenticator({ client, retryInitial: 1, retrySteps: 3 }).authenticateToken('good'),
    /webhook token authentication failed: the server responded with status 503/,
  );
  failures = 0;
  await assert.rejects(
    new WebhookTokenAuthenticator({ client: { ...client, authorization: 'Bearer wrong' } }).authenticateToken('good'),
    /status 401/,
  );
  await assert.rejects(
    new WebhookTokenAuthenticator({
      client: { server: 'http://127.0.0.1:1/x', tls: {} },
      retryInitial: 1,
      retrySteps: 2,
    }).authenticateToken('good'),
    /^Error: webhook token authentication failed: Post "http:\/\/127\.0\.0\.1:1\/x": /,
  );
});

test('webhook results are cached for the TTL (denials too, errors not)', async () => {
  const client = await loadWebhookKubeconfig(fs, '/etc/webhook.yaml');
  const w = new CachedTokenAuthenticator(new WebhookTokenAuthenticator({ client }), {
    successTTL: 120_000,
    failureTTL: 120_000,
    cacheErrors: false,
  });
  const n = seen.length;
  await w.authenticateToken('good');
  await w.authenticateToken('good');
  await w.authenticateToken('bad');
  await w.authenticateToken('bad');
  assert.equal(seen.length, n + 2);
  await assert.rejects(w.authenticateToken('explain'));
  await assert.rejects(w.authenticateToken('explain'));
  assert.equal(seen.length, n + 4);
});
