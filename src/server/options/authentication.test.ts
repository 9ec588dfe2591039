import 'reflect-metadata';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportPKCS8, generateKeyPair } from 'jose';
import { AuthenticationOptions } from './authentication.ts';
import { FlagSet } from './flags.ts';
import { MemoryFileSystem } from '../../util/filesystem.ts';
import { newConfig } from '../config.ts';
import { discardLogger } from '../../util/logger.ts';
import { buildServerFromFlags } from '../../app/build.ts';
import { makeCA, makeCert } from '../../authentication/testing.ts';
import { mintServiceAccountToken } from '../../authentication/serviceaccount.ts';
import type { Transport } from '../../endpoints/request/context.ts';

function parsed(args: string[]): AuthenticationOptions {
  const o = new AuthenticationOptions();
  const fs = new FlagSet('test');
  o.addFlags(fs);
  fs.parse(args);
  return o;
}

test('flags: upstream names and defaults in the Authentication section', () => {
  const o = new AuthenticationOptions();
  const fs = new FlagSet('kube-apiserver');
  o.addFlags(fs);
  const help = fs.usage('kube-apiserver');
  assert.match(help, /\nAuthentication flags:\n/);
  for (const name of [
    'anonymous-auth',
    'api-audiences',
    'authentication-config',
    'authentication-token-webhook-cache-ttl duration',
    'authentication-token-webhook-config-file',
    'client-ca-file',
    'oidc-issuer-url',
    'oidc-required-claim mapStringString',
    'oidc-signing-algs strings',
    'requestheader-allowed-names strings',
    'requestheader-client-ca-file',
    'requestheader-username-headers strings',
    'service-account-issuer stringArray',
    'service-account-jwks-uri',
    'service-account-key-file stringArray',
    'service-account-signing-key-file',
    'token-auth-file',
  ])
    assert.match(help, new RegExp(`--${name}\\s`), name);
  assert.match(
    help.replace(/\s+/g, ' '),
    /--authentication-token-webhook-cache-ttl duration The duration to cache responses from the webhook token authenticator\. \(default 2m0s\)/,
  );
  assert.equal(o.anonymousAuth.value, true);
  assert.deepEqual(o.oidcSigningAlgs.value, ['RS256']);
  assert.equal(o.oidcUsernameClaim.value, 'sub');
  const p = parsed([
    '--oidc-required-claim=hd=example.com',
    '--oidc-required-claim',
    'x=y=z',
    '--service-account-issuer=https://a',
    '--service-account-issuer=https://b',
  ]);
  assert.deepEqual(p.oidcRequiredClaim.value, { hd: 'example.com', x: 'y=z' });
  assert.deepEqual(p.serviceAccountIssuer.value, ['https://a', 'https://b']);
});

test('validation messages', () => {
  assert.deepEqual(parsed([]).validate(), []);
  assert.deepEqual(parsed(['--oidc-issuer-url=https://i']).validate(), [
    'oidc-issuer-url and oidc-client-id must be specified together',
  ]);
  assert.deepEqual(parsed(['--authentication-config=/a.yaml', '--oidc-client-id=x']).validate(), [
    'authentication-config file and oidc-* flags are mutually exclusive',
  ]);
  assert.deepEqual(
    parsed(['--oidc-issuer-url=http://i', '--oidc-client-id=c', '--oidc-signing-algs=HS256']).validate(),
    [
      'oidc-issuer-url: Invalid value: "http://i": URL scheme must be https',
      'oidc-signing-algs: Unsupported value: "HS256": supported values: "RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512"',
    ],
  );
  assert.deepEqual(parsed(['--service-account-jwks-uri=http://x/jwks']).validate(), [
    'service-account-jwks-uri requires https scheme, parsed as: http://x/jwks',
  ]);
  assert.deepEqual(parsed(['--service-account-signing-key-file=/k']).validate(), [
    '--service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together',
  ]);
  assert.deepEqual(parsed(['--requestheader-group-headers=a,,b']).validate(), [
    'empty value in "requestheader-group-headers"',
  ]);
  assert.deepEqual(parsed(['--service-account-issuer=https://a', '--service-account-issuer=https://a']).validate(), [
    'service-account-issuer "https://a" is already specified',
  ]);
});

test('applyTo: anonymous only, disabled, file errors', async () => {
  const ctx = { fileSystem: new MemoryFileSystem({ '/bad.csv': 'a,b\n', '/ca.pem': 'nope' }), logger: discardLogger };
  let c = newConfig();
  await parsed([]).applyTo(c, ctx);
  assert.equal(c.authentication.authenticator?.constructor.name, 'AnonymousAuthenticator');
  c = newConfig();
  await parsed(['--anonymous-auth=false']).applyTo(c, ctx);
  assert.equal(c.authentication.authenticator, undefined);
  await assert.rejects(parsed(['--token-auth-file=/bad.csv']).applyTo(newConfig(), ctx), {
    message: "/bad.csv:1: token file '/bad.csv' must have at least 3 columns (token, user name, user uid), found 2",
  });
  await assert.rejects(
    parsed(['--client-ca-file=/ca.pem']).applyTo(newConfig(), ctx),
    /unable to load client CA provider: error reading \/ca.pem/,
  );
  await assert.rejects(
    parsed(['--client-ca-file=/missing.pem']).applyTo(newConfig(), ctx),
    /unable to load client CA provider: open \/missing.pem/,
  );
  await assert.rejects(
    parsed(['--authentication-config=/missing.yaml']).applyTo(newConfig(), ctx),
    /failed to load authentication configuration from file "\/missing.yaml"/,
  );
});

const body401 =
  '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}\n';

test('kube-apiserver flags end to end: token file, SA token, client cert, front proxy, anonymous, OpenID routes', async () => {
  const issuer = 'https://kubernetes.default.svc.cluster.local';
  const sa = await generateKeyPair('RS256', { extractable: true });
  const ca = await makeCA('CN=client-ca');
  const proxyCA = await makeCA('CN=proxy-ca');
  const fileSystem = new MemoryFileSystem({
    '/etc/k/tokens.csv': 'admin-token,admin,1,"system:masters,dev"\n',
    '/etc/k/sa.key': await exportPKCS8(sa.privateKey),
    '/etc/k/ca.pem': ca.pem,
    '/etc/k/proxy-ca.pem': proxyCA.pem,
    '/etc/k/authn.yaml':
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n  conditions: [{path: /livez}, {path: /.well-known/openid-configuration}]\n',
  });
  let seenUser: unknown;
  const { server } = await buildServerFromFlags(
    [
      '--token-auth-file=/etc/k/tokens.csv',
      '--service-account-issuer',
      issuer,
      '--service-account-signing-key-file=/etc/k/sa.key',
      // The SA token below names an account that is not stored.
      '--service-account-lookup=false',
      '--client-ca-file=/etc/k/ca.pem',
      '--requestheader-client-ca-file=/etc/k/proxy-ca.pem',
      '--requestheader-allowed-names=front-proxy-client',
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      '--authentication-config=/etc/k/authn.yaml',
      '--authorization-mode=AlwaysAllow',
    ],
    {
      fileSystem,
      logger: discardLogger,
      configure: (c) => {
        c.externalAddress = '10.0.0.1:6443';
        c.routeInstallers.push((s) => {
          s.handler.nonGoRestfulMux.handle('/whoami', (ctx) => {
            seenUser = ctx.user;
            return new Response(JSON.stringify(ctx.user));
          });
        });
      },
    },
  );
  const who = async (headers: Record<string, string> | [string, string][], transport?: Transport, path = '/whoami') => {
    const res = await server.fetch(new Request(`https://h${path}`, { headers }), transport);
    return { status: res.status, body: await res.text() };
  };
  const admin = await who({ authorization: 'Bearer admin-token' });
  assert.equal(admin.status, 200);
  assert.deepEqual(JSON.parse(admin.body), {
    name: 'admin',
    uid: '1',
    groups: ['system:masters', 'dev', 'system:authenticated'],
  });
  const token = await mintServiceAccountToken({
    signingKey: await exportPKCS8(sa.privateKey),
    issuer,
    namespace: 'kube-system',
    name: 'ctrl',
    uid: 'u1',
  });
  const saRes = await who({ authorization: `Bearer ${token}` });
  assert.equal(JSON.parse(saRes.body).name, 'system:serviceaccount:kube-system:ctrl');
  assert.deepEqual(JSON.parse(saRes.body).groups, [
    'system:serviceaccounts',
    'system:serviceaccounts:kube-system',
    'system:authenticated',
  ]);
  const cert = await makeCert(ca, 'CN=carol, O=ops');
  const certRes = await who({}, { peerCertificates: [cert.der] });
  assert.equal(JSON.parse(certRes.body).name, 'carol');
  const proxy = await makeCert(proxyCA, 'CN=front-proxy-client');
  const proxied = await who(
    [
      ['x-remote-user', 'dan'],
      ['x-remote-group', 'g1'],
    ],
    { peerCertificates: [proxy.der] },
  );
  assert.deepEqual(JSON.parse(proxied.body), { name: 'dan', groups: ['g1', 'system:authenticated'] });
  // Forged front-proxy headers without a proxy certificate are ignored and stripped.
  await who({ authorization: 'Bearer admin-token', 'x-remote-user': 'root' });
  assert.equal((seenUser as { name: string }).name, 'admin');
  // Invalid credentials: 401 with the exact body even though anonymous is enabled.
  for (const h of [{ authorization: 'Bearer nope' }, { authorization: `Bearer ${token.slice(0, -4)}AAAA` }]) {
    const r = await who(h);
    assert.equal(r.status, 401);
    assert.equal(r.body, body401);
  }
  const foreign = await makeCert(await makeCA('CN=other'), 'CN=mallory, O=system:masters');
  assert.equal((await who({}, { peerCertificates: [foreign.der] })).status, 401);
  // `Bearer  tok` (two spaces) is no credential upstream, with a Warning.
  const spaced = await server.fetch(
    new Request('https://h/livez', { headers: { authorization: 'Bearer  admin-token' } }),
  );
  assert.equal(spaced.status, 200);
  assert.equal(
    spaced.headers.get('warning'),
    '299 - "the provided Authorization header contains extra space before the bearer token, and is ignored"',
  );
  // Anonymous only on the configured paths.
  assert.equal((await who({})).status, 401);
  const disc = await who({}, undefined, '/.well-known/openid-configuration');
  assert.equal(disc.status, 200);
  assert.equal(JSON.parse(disc.body).jwks_uri, 'https://10.0.0.1:6443/openid/v1/jwks');
  // The JWKS route exists (authenticated callers).
  const jwks = await who({ authorization: 'Bearer admin-token' }, undefined, '/openid/v1/jwks');
  assert.equal(jwks.status, 200);
  assert.equal(JSON.parse(jwks.body).keys[0].alg, 'RS256');
});

test('--authentication-config is reloaded when the file changes; an invalid file keeps the old issuers', async () => {
  const files = new Map<string, string>();
  const watchers = new Map<string, () => void>();
  const fileSystem = {
    async readFile(path: string) {
      const v = files.get(path);
      if (v === undefined) throw new Error(`open ${path}: no such file or directory`);
      return new TextEncoder().encode(v);
    },
    watch(path: string, onChange: () => void) {
      watchers.set(path, onChange);
      return () => watchers.delete(path);
    },
  };
  const doc = (url: string) =>
    `apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt:\n- issuer: {url: "${url}", audiences: [k]}\n  claimMappings:\n    username: {claim: sub, prefix: ""}\n`;
  files.set('/authn.yaml', doc('https://one.example'));
  const o = parsed(['--authentication-config=/authn.yaml']);
  const logs: string[] = [];
  const logger = {
    enabled: () => true,
    info: (m: string) => logs.push(m),
    warning: (m: string) => logs.push(m),
    error: (m: string) => logs.push(m),
  };
  await o.applyTo(newConfig(), { fileSystem, logger });
  assert.deepEqual(
    o.jwtAuthenticators.map((a) => a.config.issuer.url),
    ['https://one.example'],
  );
  files.set('/authn.yaml', doc('https://two.example'));
  watchers.get('/authn.yaml')!();
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(
    o.jwtAuthenticators.map((a) => a.config.issuer.url),
    ['https://two.example'],
  );
  files.set('/authn.yaml', doc('http://insecure.example'));
  watchers.get('/authn.yaml')!();
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(
    o.jwtAuthenticators.map((a) => a.config.issuer.url),
    ['https://two.example'],
  );
  assert.match(logs.at(-1)!, /Failed to reload authentication configuration, keeping the previous one/);
});
