// --authentication-config end to end with a real OIDC issuer over HTTPS on loopback: the issuer's
// certificate is trusted only through `certificateAuthority` (via the Node TLS fetch), discovery
// and JWKS come from it, and tokens are mapped by the claim rules. Also the legacy --oidc-* flags.
import 'reflect-metadata';
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { buildServerFromFlags } from '../src/app/build.ts';
import { MemoryFileSystem } from '../src/util/filesystem.ts';
import { discardLogger } from '../src/util/logger.ts';
import { makeCA, makeCert } from '../src/authentication/testing.ts';
import { nodeWebhookFetch } from '../adapters/node/webhook-fetch.ts';

const ca = await makeCA('CN=oidc-ca');
const serving = await makeCert(ca, 'CN=127.0.0.1', { eku: ['1.3.6.1.5.5.7.3.1'], ips: ['127.0.0.1'] });
const keys = await generateKeyPair('ES256', { extractable: true });
let jwksFetches = 0;
const app = new Hono();
app.get('/.well-known/openid-configuration', (c) => c.json({ issuer, jwks_uri: `${issuer}/keys` }));
app.get('/keys', async (c) => {
  jwksFetches++;
  return c.json({ keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] });
});
const server = https.createServer({ cert: serving.pem, key: serving.keyPem }, getRequestListener(app.fetch));
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
after(() => server.close());

const sign = (claims: Record<string, unknown>) =>
  new SignJWT({
    iss: issuer,
    aud: 'kubernetes',
    sub: 'u-123',
    email: 'ana@example.com',
    email_verified: true,
    groups: ['eng'],
    ...claims,
  })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(keys.privateKey);

async function serverWith(args: string[], files: Record<string, string>) {
  let seen: unknown;
  const { server: s } = await buildServerFromFlags(
    [...args, '--authorization-mode=AlwaysAllow', '--anonymous-auth=false'],
    {
      fileSystem: new MemoryFileSystem(files),
      logger: discardLogger,
      webhookFetch: nodeWebhookFetch,
      configure: (c) => {
        c.routeInstallers.push((srv) =>
          srv.handler.nonGoRestfulMux.handle('/whoami', (ctx) => {
            seen = ctx.user;
            return new Response('ok');
          }),
        );
      },
    },
  );
  s.config.lifecycleSignals.MuxAndDiscoveryComplete.signal();
  return async (token: string) => {
    seen = undefined;
    const res = await s.fetch(new Request('https://h/whoami', { headers: { authorization: `Bearer ${token}` } }));
    await res.text();
    return { status: res.status, user: seen as { name: string; groups: string[] } | undefined };
  };
}

test('structured JWT issuer over HTTPS with certificateAuthority', async () => {
  const config = `apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${issuer}
    audiences: [kubernetes]
    certificateAuthority: |
${ca.pem
  .trim()
  .split('\n')
  .map((l) => '      ' + l)
  .join('\n')}
  claimMappings:
    username: {claim: email, prefix: ""}
    groups: {claim: groups, prefix: "oidc:"}
`;
  const who = await serverWith(['--authentication-config=/authn.yaml'], { '/authn.yaml': config });
  const ok = await who(await sign({}));
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.user, { name: 'ana@example.com', groups: ['oidc:eng', 'system:authenticated'] });
  assert.equal((await who(await sign({ aud: 'elsewhere' }))).status, 401);
  assert.equal((await who(await sign({ email_verified: false }))).status, 401);
  assert.equal(jwksFetches, 1);
});

test('issuer certificate not trusted without certificateAuthority: 401, nothing authenticated', async () => {
  const config = `apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer: {url: "${issuer}", audiences: [kubernetes]}
  claimMappings:
    username: {claim: sub, prefix: "oidc:"}
`;
  const who = await serverWith(['--authentication-config=/authn.yaml'], { '/authn.yaml': config });
  assert.equal((await who(await sign({}))).status, 401);
});

test('legacy --oidc-* flags', async () => {
  const who = await serverWith(
    [
      '--oidc-issuer-url',
      issuer,
      '--oidc-client-id=kubernetes',
      '--oidc-ca-file=/ca.pem',
      '--oidc-signing-algs=ES256',
      '--oidc-groups-claim=groups',
      '--oidc-required-claim=email_verified=true',
    ],
    { '/ca.pem': ca.pem },
  );
  const r = await who(await sign({ email_verified: 'true' }));
  assert.equal(r.status, 200);
  assert.deepEqual(r.user, { name: `${issuer}#u-123`, groups: ['eng', 'system:authenticated'] });
  assert.equal((await who(await sign({ email_verified: 'false' }))).status, 401);
});
