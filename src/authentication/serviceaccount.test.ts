import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportPKCS8, exportSPKI, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { parsePrivateKeyPEM, parsePublicKeysPEM } from './keys.ts';
import { mintServiceAccountToken, ServiceAccountTokenAuthenticator } from './serviceaccount.ts';
import { newOpenIDMetadata, openIDMetadataInstaller } from './openid.ts';
import { complete, newConfig, newServer } from '../server/config.ts';
import { discardLogger } from '../util/logger.ts';
import { withAuthentication } from '../filters/authentication.ts';
import { BearerTokenAuthenticator } from './bearertoken.ts';
import { newRequestContext } from '../endpoints/request/context.ts';

const issuer = 'https://kubernetes.default.svc.cluster.local';
const rsa = await generateKeyPair('RS256', { extractable: true });
const rsaPEM = await exportPKCS8(rsa.privateKey);
const ec = await generateKeyPair('ES256', { extractable: true });
const ecPEM = await exportPKCS8(ec.privateKey);
const signing = await parsePrivateKeyPEM(rsaPEM);
const keys = [...(await parsePublicKeysPEM(await exportSPKI(rsa.publicKey))), ...(await parsePublicKeysPEM(ecPEM))];
const sa = new ServiceAccountTokenAuthenticator({
  issuers: [issuer, 'https://old.example'],
  keys,
  implicitAudiences: [issuer],
});
const base = { signingKey: signing, issuer, namespace: 'default', name: 'builder', uid: 'sa-uid' };

test('keys: PKCS#8, SPKI, PKCS#1 and SEC1 forms give the same kid', async () => {
  const pub = await parsePublicKeysPEM(await exportSPKI(rsa.publicKey));
  assert.equal(pub[0]!.kid, signing.kid);
  assert.equal(pub[0]!.alg, 'RS256');
  assert.match(signing.kid, /^[A-Za-z0-9_-]{43}$/);
  const ecKey = await parsePrivateKeyPEM(ecPEM);
  assert.equal(ecKey.alg, 'ES256');
  // SEC1 "EC PRIVATE KEY" (what openssl ecparam -genkey writes), via node's crypto for the fixture.
  const { createPrivateKey } = await import('node:crypto');
  const sec1 = createPrivateKey(ecPEM).export({ format: 'pem', type: 'sec1' }).toString();
  assert.equal((await parsePrivateKeyPEM(sec1)).kid, ecKey.kid);
  const pkcs1 = createPrivateKey(rsaPEM).export({ format: 'pem', type: 'pkcs1' }).toString();
  assert.equal((await parsePrivateKeyPEM(pkcs1)).kid, signing.kid);
  const { createPublicKey } = await import('node:crypto');
  const pkcs1pub = createPublicKey(rsaPEM).export({ format: 'pem', type: 'pkcs1' }).toString();
  assert.equal((await parsePublicKeysPEM(pkcs1pub))[0]!.kid, signing.kid);
  await assert.rejects(parsePublicKeysPEM('garbage'), /does not contain any valid/);
});

test('minted token authenticates with upstream identity, groups, extra and audiences', async () => {
  const token = await mintServiceAccountToken({
    ...base,
    pod: { name: 'p', uid: 'pu' },
    node: { name: 'n1', uid: 'nu' },
    jti: 'j1',
  });
  const r = await sa.authenticateToken(token, [issuer]);
  assert.deepEqual(r, {
    user: {
      name: 'system:serviceaccount:default:builder',
      uid: 'sa-uid',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default'],
      extra: {
        'authentication.kubernetes.io/pod-name': ['p'],
        'authentication.kubernetes.io/pod-uid': ['pu'],
        'authentication.kubernetes.io/credential-id': ['JTI=j1'],
        'authentication.kubernetes.io/node-name': ['n1'],
        'authentication.kubernetes.io/node-uid': ['nu'],
      },
    },
    audiences: [issuer],
  });
  const ecToken = await mintServiceAccountToken({
    ...base,
    signingKey: ecPEM,
    issuer: 'https://old.example',
    audiences: [issuer],
  });
  assert.equal((await sa.authenticateToken(ecToken))!.user.name, 'system:serviceaccount:default:builder');
});

test('service-account token failures', async () => {
  // Another issuer, not a JWT, garbage: no opinion (other authenticators may know it).
  assert.equal(await sa.authenticateToken(await mintServiceAccountToken({ ...base, issuer: 'https://other' })), null);
  assert.equal(await sa.authenticateToken('not-a-jwt'), null);
  assert.equal(await sa.authenticateToken('a.!!!.c'), null);
  assert.equal(await sa.authenticateToken('x'.repeat(300_000)), null);
  // alg none and HS256 signed with the public key (algorithm confusion): never accepted.
  const none = new UnsecuredJWT({
    iss: issuer,
    sub: 'system:serviceaccount:default:x',
    'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'x' } },
  }).encode();
  assert.equal(await sa.authenticateToken(none), null);
  const spkiBytes = new TextEncoder().encode(await exportSPKI(rsa.publicKey));
  const hs = await new SignJWT({
    iss: issuer,
    aud: [issuer],
    'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'x' } },
  })
    .setProtectedHeader({ alg: 'HS256', kid: signing.kid })
    .sign(spkiBytes);
  assert.equal(await sa.authenticateToken(hs), null);
  // Our issuer but a bad signature, wrong audience, expiry: errors.
  const good = await mintServiceAccountToken(base);
  const [h, p, s] = good.split('.');
  const tampered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), sub: 'system:serviceaccount:kube-system:admin' })).toString('base64url')}.${s}`;
  await assert.rejects(sa.authenticateToken(tampered), /error in cryptographic primitive/);
  const other = await generateKeyPair('RS256', { extractable: true });
  const foreign = await mintServiceAccountToken({ ...base, signingKey: await exportPKCS8(other.privateKey) });
  await assert.rejects(sa.authenticateToken(foreign), /error in cryptographic primitive/);
  await assert.rejects(
    sa.authenticateToken(await mintServiceAccountToken({ ...base, audiences: ['vault'] }), [issuer]),
    {
      message: `token audiences ["vault"] is invalid for the target audiences ["${issuer}"]`,
    },
  );
  const past = Date.now() - 7200_000;
  await assert.rejects(sa.authenticateToken(await mintServiceAccountToken({ ...base, now: past })), {
    message: 'service account token has expired',
  });
  // Within the 60s leeway: accepted.
  assert.ok(await sa.authenticateToken(await mintServiceAccountToken({ ...base, now: Date.now() - 3630_000 })));
  await assert.rejects(sa.authenticateToken(await mintServiceAccountToken({ ...base, now: Date.now() + 600_000 })), {
    message: 'service account token is not valid yet',
  });
  const noPrivate = await new SignJWT({ iss: issuer, aud: [issuer], sub: 'x' })
    .setProtectedHeader({ alg: 'RS256', kid: signing.kid })
    .setExpirationTime('1h')
    .sign(signing.privateKey);
  await assert.rejects(sa.authenticateToken(noPrivate), /unexpected private claim/);
  // Unknown kid falls back to trying every key of the algorithm.
  const unknownKid = await new SignJWT({
    iss: issuer,
    aud: [issuer],
    'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'a', uid: 'u' } },
  })
    .setProtectedHeader({ alg: 'RS256', kid: 'nope' })
    .setExpirationTime('1h')
    .sign(signing.privateKey);
  assert.equal((await sa.authenticateToken(unknownKid))!.user.name, 'system:serviceaccount:ns:a');
});

test('OpenID discovery documents', async () => {
  assert.throws(() => newOpenIDMetadata('http://insecure', '', 'h', keys), {
    message: 'issuer URL must use https scheme, got: http://insecure',
  });
  assert.throws(() => newOpenIDMetadata(issuer, '', '', keys), /either the JWKS URI/);
  const md = newOpenIDMetadata(issuer, '', '10.0.0.1:6443', keys);
  const c = complete(newConfig({ logger: discardLogger, routeInstallers: [openIDMetadataInstaller(md)] }));
  const server = newServer(c, 'test');
  const res = await server.fetch(new Request('https://h/.well-known/openid-configuration'));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/json');
  assert.equal(res.headers.get('cache-control'), 'public, max-age=3600');
  assert.equal(
    await res.text(),
    `{"issuer":"${issuer}","jwks_uri":"https://10.0.0.1:6443/openid/v1/jwks","response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256","RS256"]}`,
  );
  const jwks = await server.fetch(new Request('https://h/openid/v1/jwks'));
  assert.equal(jwks.headers.get('content-type'), 'application/jwk-set+json');
  const set = (await jwks.json()) as { keys: Record<string, string>[] };
  assert.deepEqual(Object.keys(set.keys[0]!), ['use', 'kty', 'kid', 'alg', 'n', 'e']);
  assert.deepEqual(Object.keys(set.keys[1]!), ['use', 'kty', 'kid', 'crv', 'alg', 'x', 'y']);
  assert.equal(set.keys[0]!.kid, signing.kid);
});

test('end to end through the filter: SA token in, Authorization stripped', async () => {
  const c = complete(
    newConfig({
      logger: discardLogger,
      authentication: { apiAudiences: [issuer], authenticator: new BearerTokenAuthenticator(sa) },
    }),
  );
  let user;
  const h = withAuthentication((ctx) => {
    user = ctx.user;
    return new Response('ok');
  }, c);
  const token = await mintServiceAccountToken(base);
  const res = await h(
    newRequestContext(new Request('https://h/api', { headers: { authorization: `Bearer ${token}` } })),
  );
  assert.equal(res.status, 200);
  assert.equal((user as unknown as { name: string }).name, 'system:serviceaccount:default:builder');
});
