import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, exportSPKI } from 'jose';
import { JWTAuthenticator, type JWTAuthenticatorConfig } from './jwt.ts';
import { parseAuthenticationConfiguration, legacyOIDCConfig } from './authentication-config.ts';

// A real OIDC issuer on loopback: discovery + JWKS, with knobs for failures.
const rsa = await generateKeyPair('RS256', { extractable: true });
const es = await generateKeyPair('ES256', { extractable: true });
const stranger = await generateKeyPair('RS256', { extractable: true });
const jwks = {
  keys: [
    { ...(await exportJWK(rsa.publicKey)), kid: 'rsa1', alg: 'RS256', use: 'sig' },
    { ...(await exportJWK(es.publicKey)), kid: 'es1', alg: 'ES256', use: 'sig' },
  ],
};
const knobs = { jwksDelay: 0, jwksDown: false, discoveryIssuer: '' };
let jwksFetches = 0;
let discoveryFetches = 0;
const app = new Hono();
app.get('/.well-known/openid-configuration', (c) => {
  discoveryFetches++;
  return c.json({ issuer: knobs.discoveryIssuer || issuer, jwks_uri: `${issuer}/jwks` });
});
app.get('/jwks', async (c) => {
  jwksFetches++;
  if (knobs.jwksDown) return c.text('down', 503);
  if (knobs.jwksDelay) await new Promise((r) => setTimeout(r, knobs.jwksDelay));
  return c.json(jwks);
});
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise((r) => server.once('listening', r));
const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
after(() => server.close());

const config = (over: Partial<JWTAuthenticatorConfig['claimMappings']> = {}): JWTAuthenticatorConfig => ({
  issuer: { url: issuer, audiences: ['kubernetes', 'other'], audienceMatchPolicy: 'MatchAny' },
  claimValidationRules: [{ claim: 'hd', requiredValue: 'example.com' }],
  claimMappings: {
    username: { claim: 'sub', prefix: 'oidc:' },
    groups: { claim: 'groups', prefix: 'oidc:' },
    uid: { claim: 'uid' },
    ...over,
  },
});

function sign(
  claims: Record<string, unknown>,
  opts: { kid?: string; alg?: string; key?: CryptoKey; exp?: number | string; nbf?: number } = {},
) {
  const j = new SignJWT({ iss: issuer, aud: 'kubernetes', sub: 'alice', hd: 'example.com', ...claims })
    .setProtectedHeader({ alg: opts.alg ?? 'RS256', kid: opts.kid ?? 'rsa1' })
    .setIssuedAt()
    .setExpirationTime(opts.exp ?? '1h');
  if (opts.nbf) j.setNotBefore(opts.nbf);
  return j.sign(opts.key ?? rsa.privateKey);
}

test('OIDC: discovery + JWKS from a real issuer; claims mapped with prefixes; keys cached', async () => {
  const a = new JWTAuthenticator(config());
  const r = await a.authenticateToken(await sign({ groups: ['dev', 'ops'], uid: 'u-1' }));
  assert.deepEqual(r, { user: { name: 'oidc:alice', groups: ['oidc:dev', 'oidc:ops'], uid: 'u-1' } });
  const r2 = await a.authenticateToken(
    await sign({ groups: 'solo' }, { alg: 'ES256', kid: 'es1', key: es.privateKey }),
  );
  assert.deepEqual(r2!.user.groups, ['oidc:solo']);
  const before = jwksFetches;
  for (let i = 0; i < 3; i++) await a.authenticateToken(await sign({}));
  assert.equal(jwksFetches, before, 'JWKS cached');
  assert.equal(discoveryFetches, 1);
});

test('OIDC: bad tokens are errors (401), other issuers no opinion', async () => {
  const a = new JWTAuthenticator(config());
  await a.authenticateToken(await sign({})); // warm
  assert.equal(
    await a.authenticateToken(
      await new SignJWT({ iss: 'https://elsewhere', aud: 'kubernetes' })
        .setProtectedHeader({ alg: 'RS256' })
        .sign(rsa.privateKey),
    ),
    null,
  );
  assert.equal(await a.authenticateToken('abc.def.ghi'), null); // payload is not JSON: no issuer
  // Oversized tokens are not parsed at all (→ "invalid bearer token" upstream of here).
  assert.equal(await a.authenticateToken(await sign({ pad: 'x'.repeat(300_000) })), null);
  await assert.rejects(a.authenticateToken(await sign({ aud: 'nope' })), {
    message: 'oidc: verify token: oidc: expected audience in ["kubernetes" "other"] got ["nope"]',
  });
  await assert.rejects(
    a.authenticateToken(await sign({}, { exp: Math.floor(Date.now() / 1000) - 120 })),
    /^Error: oidc: verify token: oidc: token is expired \(Token Expiry: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000 UTC\)$/,
  );
  // Within the small clock skew: accepted.
  assert.ok(await a.authenticateToken(await sign({}, { exp: Math.floor(Date.now() / 1000) - 3 })));
  await assert.rejects(
    a.authenticateToken(await sign({}, { nbf: Math.floor(Date.now() / 1000) + 600 })),
    /before the nbf \(not before\) time/,
  );
  await assert.rejects(a.authenticateToken(await sign({}, { key: stranger.privateKey })), {
    message: 'oidc: verify token: failed to verify signature: failed to verify id token signature',
  });
  await assert.rejects(a.authenticateToken(await sign({}, { kid: 'unknown' })), /failed to verify id token signature/);
  const none = new UnsecuredJWT({ iss: issuer, aud: 'kubernetes', sub: 'root', hd: 'example.com' })
    .setExpirationTime('1h')
    .encode();
  await assert.rejects(a.authenticateToken(none), {
    message: `oidc: verify token: oidc: id token signed with unsupported algorithm, expected ["RS256" "RS384" "RS512" "ES256" "ES384" "ES512" "PS256" "PS384" "PS512"] got "none"`,
  });
  const hmacWithPublicKey = await new SignJWT({ iss: issuer, aud: 'kubernetes', sub: 'root', hd: 'example.com' })
    .setProtectedHeader({ alg: 'HS256', kid: 'rsa1' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(await exportSPKI(rsa.publicKey)));
  await assert.rejects(a.authenticateToken(hmacWithPublicKey), /unsupported algorithm.*got "HS256"/);
  const good = await sign({});
  const [, p, s] = good.split('.');
  await assert.rejects(a.authenticateToken(`!!!.${p}.${s}`), /oidc: malformed jwt/);
  await assert.rejects(a.authenticateToken(await sign({ hd: 'evil.com' })), {
    message: 'oidc: required claim hd value does not match. Got = evil.com, want = example.com',
  });
  await assert.rejects(a.authenticateToken(await sign({ hd: undefined })), /required claim hd not present/);
  await assert.rejects(a.authenticateToken(await sign({ groups: 7 })), /parse groups claim "groups"/);
  await assert.rejects(
    a.authenticateToken(await sign({ sub: undefined })),
    /parse username claims "sub": claim not present/,
  );
});

test('OIDC: email claim requires email_verified when present', async () => {
  const a = new JWTAuthenticator(config({ username: { claim: 'email', prefix: '' } }));
  assert.equal(
    (await a.authenticateToken(await sign({ email: 'a@example.com', email_verified: true })))!.user.name,
    'a@example.com',
  );
  assert.equal((await a.authenticateToken(await sign({ email: 'b@example.com' })))!.user.name, 'b@example.com');
  await assert.rejects(a.authenticateToken(await sign({ email: 'c@example.com', email_verified: false })), {
    message: 'oidc: email not verified',
  });
});

test('OIDC: JWKS down, JWKS slow, discovery mismatch', async () => {
  try {
    knobs.jwksDown = true;
    const down = new JWTAuthenticator(config(), { jwksCooldown: 0 });
    await assert.rejects(down.authenticateToken(await sign({})), /failed to verify signature: fetching keys/);
    knobs.jwksDown = false;
    knobs.jwksDelay = 300;
    const slow = new JWTAuthenticator(config(), { jwksTimeout: 50 });
    await assert.rejects(slow.authenticateToken(await sign({})), /request timed out/);
    knobs.jwksDelay = 0;
    knobs.discoveryIssuer = 'https://impostor';
    const mism = new JWTAuthenticator(config(), { initRetry: 60_000 });
    await assert.rejects(
      mism.authenticateToken(await sign({})),
      /is not initialized: oidc: issuer did not match the issuer returned by provider, expected ".*" got "https:\/\/impostor"/,
    );
    knobs.discoveryIssuer = '';
    // Inside the retry window the failure is remembered without refetching.
    const n = discoveryFetches;
    await assert.rejects(mism.authenticateToken(await sign({})), /is not initialized/);
    assert.equal(discoveryFetches, n);
    const unreachable = new JWTAuthenticator({
      ...config(),
      issuer: { url: 'http://127.0.0.1:1', audiences: ['kubernetes'] },
    });
    const t = await new SignJWT({ iss: 'http://127.0.0.1:1', aud: 'kubernetes', sub: 'x' })
      .setProtectedHeader({ alg: 'RS256' })
      .setExpirationTime('1h')
      .sign(rsa.privateKey);
    await assert.rejects(unreachable.authenticateToken(t), /is not initialized: oidc: fetch discovery document/);
  } finally {
    knobs.jwksDown = false;
    knobs.jwksDelay = 0;
    knobs.discoveryIssuer = '';
  }
});

test('AuthenticationConfiguration: parse, validate, reject CEL clearly', () => {
  const ok = parseAuthenticationConfiguration(`
apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: https://issuer.example.com
    audiences: [a, b]
    audienceMatchPolicy: MatchAny
  claimValidationRules:
  - claim: hd
    requiredValue: example.com
  claimMappings:
    username: {claim: email, prefix: ""}
    groups: {claim: groups, prefix: "oidc:"}
    uid: {claim: sub}
anonymous:
  enabled: true
  conditions: [{path: /livez}, {path: /readyz}]
`);
  assert.deepEqual(ok.jwt[0], {
    issuer: { url: 'https://issuer.example.com', audiences: ['a', 'b'], audienceMatchPolicy: 'MatchAny' },
    claimValidationRules: [{ claim: 'hd', requiredValue: 'example.com' }],
    claimMappings: {
      username: { claim: 'email', prefix: '' },
      groups: { claim: 'groups', prefix: 'oidc:' },
      uid: { claim: 'sub' },
    },
  });
  assert.deepEqual(ok.anonymous, { enabled: true, conditions: [{ path: '/livez' }, { path: '/readyz' }] });
  assert.throws(() => parseAuthenticationConfiguration('apiVersion: v1\nkind: Pod\n'), {
    message: 'no kind "Pod" is registered for version "v1"',
  });
  assert.throws(
    () =>
      parseAuthenticationConfiguration(
        `
apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer: {url: "http://insecure", audiences: [a, b]}
  claimMappings:
    username: {claim: sub}
- issuer: {url: "https://x", audiences: [a]}
  claimValidationRules: [{expression: 'claims.hd == "x"', message: m}]
  claimMappings:
    username: {expression: 'claims.sub'}
    extra: [{key: k, valueExpression: 'claims.x'}]
  userValidationRules: [{expression: 'true'}]
`,
        ['https://x'],
      ),
    {
      message:
        '[jwt[0].issuer.url: Invalid value: "http://insecure": URL scheme must be https, ' +
        'jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences, ' +
        'jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing, ' +
        'jwt[1].issuer.url: Invalid value: "https://x": URL must not overlap with disallowed issuers: [https://x], ' +
        'jwt[1].claimValidationRules[0].expression: Invalid value: "claims.hd == \\"x\\"": CEL expressions are not supported by edge-apiserver yet; use claim-based mappings and rules, ' +
        'jwt[1].claimMappings.username.expression: Invalid value: "claims.sub": CEL expressions are not supported by edge-apiserver yet; use claim-based mappings and rules, ' +
        'jwt[1].claimMappings.extra: Invalid value: 1 mapping(s): CEL expressions are not supported by edge-apiserver yet; use claim-based mappings and rules, ' +
        'jwt[1].userValidationRules: Invalid value: 1 rule(s): CEL expressions are not supported by edge-apiserver yet; use claim-based mappings and rules]',
    },
  );
});

test('legacy --oidc-* flags: username prefix rules', () => {
  const base = {
    issuerURL: 'https://i',
    clientID: 'c',
    usernameClaim: 'sub',
    usernamePrefix: '',
    groupsClaim: '',
    groupsPrefix: '',
    requiredClaims: {},
  };
  assert.equal(legacyOIDCConfig(base).claimMappings.username.prefix, 'https://i#');
  assert.equal(legacyOIDCConfig({ ...base, usernameClaim: 'email' }).claimMappings.username.prefix, '');
  assert.equal(legacyOIDCConfig({ ...base, usernamePrefix: '-' }).claimMappings.username.prefix, '');
  assert.equal(legacyOIDCConfig({ ...base, usernamePrefix: 'p:' }).claimMappings.username.prefix, 'p:');
  assert.deepEqual(legacyOIDCConfig({ ...base, requiredClaims: { hd: 'x' } }).claimValidationRules, [
    { claim: 'hd', requiredValue: 'x' },
  ]);
});
