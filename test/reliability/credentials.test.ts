// Credentials against the real command: the secure default (no authentication flags: the admin
// kubeconfig token and the loopback token are its only bearer-token authenticators) and a server
// with a token file, service-account keys, an OIDC issuer and a front-proxy CA. A credential that
// is presented and not accepted is 401 (never anonymous); TokenReview says why; spoofed
// front-proxy and impersonation headers give an unauthenticated client nothing; no credential
// reaches the log, even at --v=10.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, importPKCS8 } from 'jose';
import { startServer, type ServerUnderTest } from './server.ts';
import { baseline, group, type Baseline, type GroupContext } from './harness.ts';
import { h2Request } from './probe.ts';
import { exchange } from './h1-client.ts';
import { RawH2 } from './h2-client.ts';
import { generateSelfSignedCertKey } from '../../src/server/dynamiccertificates/generate.ts';

const saIssuer = 'https://kubernetes.default.svc';
const oidcIssuer = 'https://127.0.0.1:1';
const keyDir = mkdtempSync(join(tmpdir(), 'edge-apiserver-reliability-keys-'));
const pem = (k: ReturnType<typeof generateKeyPairSync>['privateKey']) =>
  k.export({ type: 'pkcs8', format: 'pem' }) as string;
const saKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const otherKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });

let secure: ServerUnderTest;
let full: ServerUnderTest;
const bases = new Map<ServerUnderTest, Baseline>();

before(async () => {
  writeFileSync(join(keyDir, 'sa.key'), pem(saKeys.privateKey));
  writeFileSync(join(keyDir, 'sa.pub'), saKeys.publicKey.export({ type: 'spki', format: 'pem' }) as string);
  const proxyCA = await generateSelfSignedCertKey({ host: 'front-proxy-ca' });
  writeFileSync(join(keyDir, 'front-proxy-ca.crt'), proxyCA.cert);
  [secure, full] = await Promise.all([
    startServer([], { tokenFile: false }),
    startServer([
      `--service-account-issuer=${saIssuer}`,
      `--service-account-key-file=${join(keyDir, 'sa.pub')}`,
      `--service-account-signing-key-file=${join(keyDir, 'sa.key')}`,
      // The test mints its own token for default/default; no such object is stored with that UID.
      '--service-account-lookup=false',
      `--api-audiences=${saIssuer}`,
      `--oidc-issuer-url=${oidcIssuer}`,
      '--oidc-client-id=edge',
      `--requestheader-client-ca-file=${join(keyDir, 'front-proxy-ca.crt')}`,
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      '--v=10',
    ]),
  ]);
  for (const s of [secure, full]) bases.set(s, await baseline(s));
});
after(async () => {
  await Promise.all([secure?.stop(), full?.stop()]);
  rmSync(keyDir, { recursive: true, force: true });
});

const status401 =
  '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}\n';

function b64url(s: string): string {
  return Buffer.from(s).toString('base64url');
}

async function saToken(key: string, claims: { exp?: number; iss?: string; aud?: string } = {}): Promise<string> {
  const k = await importPKCS8(key, 'RS256');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ 'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'default', uid: '3f1a' } } })
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer(claims.iss ?? saIssuer)
    .setSubject('system:serviceaccount:default:default')
    .setAudience(claims.aud ?? saIssuer)
    .setIssuedAt(now - 7200)
    .setExpirationTime(claims.exp ?? now + 3600)
    .sign(k);
}

/** The tokens no authenticator of `s` accepts, by name. */
async function badTokens(s: ServerUnderTest): Promise<[string, string, boolean][]> {
  const now = Math.floor(Date.now() / 1000);
  const saClaims = {
    iss: saIssuer,
    sub: 'system:serviceaccount:default:default',
    aud: [saIssuer],
    exp: now + 3600,
    iat: now,
  };
  // [name, token, looks like a JWT (its error names the JWT check, not "invalid bearer token")]
  return [
    ['garbage', 'garbage', false],
    ['truncated', s.token.slice(0, -4), false],
    ['extended', `${s.token}x`, false],
    ['non-ASCII', 'tökén-ünïcode', false],
    ['60 KB', 'x'.repeat(60_000), false],
    ['alg none', `${b64url('{"alg":"none","typ":"JWT"}')}.${b64url(JSON.stringify(saClaims))}.`, true],
    [
      'HS256 with the public key as secret',
      `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(JSON.stringify(saClaims))}.${b64url('sig')}`,
      true,
    ],
    ['service account, wrong key', await saToken(pem(otherKeys.privateKey)), true],
    ['service account, expired', await saToken(pem(saKeys.privateKey), { exp: now - 3600 }), true],
    ['service account, other audience', await saToken(pem(saKeys.privateKey), { aud: 'https://elsewhere' }), true],
    ['OIDC issuer (unreachable)', await saToken(pem(otherKeys.privateKey), { iss: oidcIssuer, aud: 'edge' }), true],
    ['not a JWT: three dots', 'a.b.c', true],
  ];
}

async function tokenReview(
  s: ServerUnderTest,
  token: string,
): Promise<{ authenticated?: boolean; error?: string; user?: { username?: string } }> {
  const r = await h2Request(
    s.port,
    {
      ':method': 'POST',
      ':path': '/apis/authentication.k8s.io/v1/tokenreviews',
      'content-type': 'application/json',
      authorization: `Bearer ${s.token}`,
    },
    JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } }),
  );
  assert.equal(r.status, 201, r.body);
  return JSON.parse(r.body).status;
}

async function rejectedEverywhere(g: GroupContext, s: ServerUnderTest): Promise<void> {
  for (const [name, token, jwt] of await badTokens(s)) {
    g.secret(token.length > 12 ? token : `Bearer ${token}`);
    // HTTP/2 and HTTP/1.1, /version (open to anonymous) and /apis: 401 with upstream's Status.
    for (const path of ['/version', '/apis']) {
      const r = await h2Request(s.port, { ':path': path, authorization: `Bearer ${token}` });
      assert.equal(r.status, 401, `${name} ${path}: ${r.status} ${r.body}`);
      assert.equal(r.body, status401);
    }
    const h1 = await exchange(
      s.port,
      Buffer.from(
        `GET /version HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
        'utf8',
      ),
    );
    assert.equal(h1.responses[0]?.status, 401, `${name} HTTP/1.1`);
    const review = await tokenReview(s, token);
    assert.notEqual(review.authenticated, true, `${name}: ${JSON.stringify(review)}`);
    if (jwt) assert.ok(review.error, `${name}: no error`);
    else assert.equal(review.error, 'invalid bearer token', name);
    g.count();
  }
}

for (const which of ['secure default', 'token file, service accounts, OIDC, front proxy'] as const) {
  test(`bad bearer tokens are 401 and TokenReview says unauthenticated (${which})`, async (t) => {
    const s = which === 'secure default' ? secure : full;
    await group(t, s, bases.get(s)!, `bad-tokens (${which})`, async (g) => {
      await rejectedEverywhere(g, s);
      // Control: the accepted credential and no credential at all.
      assert.equal((await h2Request(s.port, { ':path': '/apis', authorization: `Bearer ${s.token}` })).status, 200);
      assert.equal((await h2Request(s.port, { ':path': '/version' })).status, 200);
      if (s === full) {
        const good = await saToken(pem(saKeys.privateKey));
        g.secret(good);
        const review = await tokenReview(s, good);
        assert.equal(review.authenticated, true);
        assert.equal(review.user?.username, 'system:serviceaccount:default:default');
      }
      g.count();
    });
  });
}

test('tokens with CR, LF or NUL, and huge tokens: refused, nothing injected', async (t) => {
  for (const s of [secure, full]) {
    await group(t, s, bases.get(s)!, `token-bytes (${s === secure ? 'secure default' : 'full'})`, async (g) => {
      g.secret(s.token);
      // HTTP/1.1: the parser refuses CR and NUL in a value (Go's 400); an LF ends the line, so the
      // rest is a header of its own (here an invalid one: 400).
      for (const bad of [`${s.token}\rX-Injected: 1`, `${s.token}\0`, `${s.token}\n X-Injected: 1`]) {
        const r = await exchange(s.port, `GET /apis HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${bad}\r\n\r\n`);
        assert.equal(r.responses[0]?.status, 400, JSON.stringify(r.raw.slice(0, 100)));
        assert.ok(!/x-injected/i.test(r.raw));
        g.count();
      }
      // HTTP/2: Node drops a field with CR, LF or NUL before the chain sees it (Go resets the
      // stream): the request is anonymous, never the token's user, and nothing is injected.
      for (const bad of [`${s.token}\r\nx-injected: 1`, `${s.token}\0`, `${s.token}\n`]) {
        const c = await RawH2.connect({ port: s.port });
        try {
          c.request(1, 'GET', '/apis', { authorization: `Bearer ${bad}` });
          const r = await c.response(1);
          assert.equal(r.status, 403, JSON.stringify(r));
          assert.ok(!r.body.toString('latin1').includes('injected'));
        } finally {
          c.close();
        }
        g.count();
      }
      // 900 KB over HTTP/1.1 (under the 1 MiB header limit): 401; 1.1 MB: 431.
      const huge = 'h'.repeat(900 << 10);
      const r = await exchange(
        s.port,
        `GET /version HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${huge}\r\nConnection: close\r\n\r\n`,
      );
      assert.equal(r.responses[0]?.status, 401);
      const tooBig = await exchange(
        s.port,
        `GET /version HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'h'.repeat(1100 << 10)}\r\n\r\n`,
      );
      assert.equal(tooBig.responses[0]?.status, 431);
      g.count(2);
    });
  }
});

test('spoofed front-proxy and impersonation headers from clients that are not authenticated', async (t) => {
  for (const s of [secure, full]) {
    await group(t, s, bases.get(s)!, `spoofing (${s === secure ? 'secure default' : 'full'})`, async (g) => {
      const ssr = (headers: Record<string, string>) =>
        h2Request(
          s.port,
          {
            ':method': 'POST',
            ':path': '/apis/authentication.k8s.io/v1/selfsubjectreviews',
            'content-type': 'application/json',
            ...headers,
          },
          '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}',
        );
      const spoof = {
        'x-remote-user': 'kubernetes-admin',
        'x-remote-group': 'system:masters',
        'x-remote-extra-scopes': 'all',
      };
      const impersonate = { 'impersonate-user': 'kubernetes-admin', 'impersonate-group': 'system:masters' };
      // Without a client certificate the front-proxy headers are not credentials: anonymous, 403.
      for (const headers of [spoof, impersonate, { ...spoof, ...impersonate }]) {
        const r = await ssr(headers);
        assert.equal(r.status, 403, r.body);
        assert.match(r.body, /system:anonymous/);
        g.count();
      }
      // With a bad token they change nothing: 401.
      for (const headers of [spoof, impersonate]) {
        assert.equal((await ssr({ ...headers, authorization: 'Bearer garbage' })).status, 401);
        g.count();
      }
      // An authenticated user's front-proxy headers are ignored (and stripped); impersonation by
      // system:masters works (the control).
      const me = JSON.parse((await ssr({ ...spoof, authorization: `Bearer ${s.token}` })).body);
      assert.notEqual(me.status.userInfo.username, 'x');
      assert.ok(me.status.userInfo.groups.includes('system:masters'));
      assert.equal(me.status.userInfo.extra, undefined);
      const alice = JSON.parse((await ssr({ 'impersonate-user': 'alice', authorization: `Bearer ${s.token}` })).body);
      assert.equal(alice.status.userInfo.username, 'alice');
      g.count(2);
    });
  }
});
