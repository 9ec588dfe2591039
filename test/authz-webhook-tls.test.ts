// --authorization-mode=Webhook end to end on Node: the kubeconfig names an HTTPS webhook with a
// private CA (certificate-authority file) and a bearer token; the server's chain asks it through
// the Node adapter's TLS-capable fetch and answers 200 / 403 / 500 as upstream.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServerFromFlags } from '../src/app/build.ts';
import { generateSelfSignedCertKey } from '../src/server/dynamiccertificates/generate.ts';
import { discardLogger } from '../src/util/logger.ts';
import { NodeFileSystem } from '../adapters/node/fs.ts';
import { nodeWebhookFetch } from '../adapters/node/webhook-fetch.ts';

const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-authz-webhook-'));
const pair = await generateSelfSignedCertKey({ host: '127.0.0.1', alternateIPs: [], alternateDNS: ['localhost'] });
const seen: { auth?: string; body: { spec: Record<string, unknown> } }[] = [];
let answer: () => [number, unknown] = () => [200, { status: { allowed: true, reason: 'webhook ok' } }];
const hook = https.createServer({ cert: pair.cert, key: pair.key }, (req, res) => {
  let body = '';
  req
    .setEncoding('utf8')
    .on('data', (d) => (body += d))
    .on('end', () => {
      seen.push({ auth: req.headers.authorization, body: JSON.parse(body) });
      const [code, obj] = answer();
      res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(obj));
    });
});
await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
after(() => {
  hook.close();
  rmSync(dir, { recursive: true, force: true });
});

test('Webhook mode over HTTPS with a private CA: allow, deny with reason, failure → 500', async () => {
  const port = (hook.address() as AddressInfo).port;
  writeFileSync(join(dir, 'ca.crt'), pair.cert);
  writeFileSync(join(dir, 'tokens.csv'), 'alice-token,alice,1,"devs"\n');
  writeFileSync(
    join(dir, 'webhook.kubeconfig'),
    `apiVersion: v1
kind: Config
clusters: [{name: hook, cluster: {server: "https://127.0.0.1:${port}/authorize", certificate-authority: ca.crt}}]
users: [{name: apiserver, user: {token: hook-secret}}]
contexts: [{name: hook, context: {cluster: hook, user: apiserver}}]
current-context: hook
`,
  );
  const { server } = await buildServerFromFlags(
    [
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      '--authorization-mode=Webhook',
      `--authorization-webhook-config-file=${join(dir, 'webhook.kubeconfig')}`,
      '--authorization-webhook-version=v1',
      '--authorization-webhook-cache-authorized-ttl=0s',
      '--authorization-webhook-cache-unauthorized-ttl=0s',
    ],
    { logger: discardLogger, fileSystem: new NodeFileSystem(), webhookFetch: nodeWebhookFetch },
  );
  const get = (path: string) =>
    server.fetch(new Request(`https://127.0.0.1${path}`, { headers: { authorization: 'Bearer alice-token' } }));
  let r = await server.fetch(
    new Request('https://127.0.0.1/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      method: 'POST',
      headers: { authorization: 'Bearer alice-token', 'content-type': 'application/json' },
      body: JSON.stringify({ spec: { resourceAttributes: { namespace: 'default', verb: 'list', resource: 'pods' } } }),
    }),
  );
  assert.equal(r.status, 201);
  assert.deepEqual(JSON.parse(await r.text()).status, { allowed: true, reason: 'webhook ok' });
  assert.equal(seen[0]!.auth, 'Bearer hook-secret');
  // The chain's own check, then the review's question.
  assert.deepEqual(seen[0]!.body.spec, {
    resourceAttributes: {
      verb: 'create',
      group: 'authorization.k8s.io',
      version: 'v1',
      resource: 'selfsubjectaccessreviews',
    },
    user: 'alice',
    groups: ['devs', 'system:authenticated'],
    uid: '1',
  });
  assert.deepEqual(seen[1]!.body.spec, {
    resourceAttributes: { namespace: 'default', verb: 'list', version: '*', resource: 'pods' },
    user: 'alice',
    groups: ['devs', 'system:authenticated'],
    uid: '1',
  });
  answer = () => [200, { status: { allowed: false, denied: true, reason: 'not today' } }];
  r = await get('/api/v1/namespaces/default/pods');
  assert.equal(r.status, 403);
  assert.equal(
    await r.text(),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods is forbidden: User \\"alice\\" cannot list resource \\"pods\\" in API group \\"\\" in the namespace \\"default\\": not today","reason":"Forbidden","details":{"kind":"pods"},"code":403}\n',
  );
  answer = () => [403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'hook refuses', code: 403 }];
  r = await get('/healthz');
  assert.equal(r.status, 500);
  assert.equal(await r.text(), 'Internal Server Error: "/healthz": hook refuses\n');
});
