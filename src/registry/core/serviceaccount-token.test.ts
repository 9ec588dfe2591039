import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { completeMaxTokenExpiration, createTokenRequest, type TokenIssuer } from './serviceaccount-token.ts';
import {
  ServiceAccountTokenAuthenticator,
  type ServiceAccountTokenGetter,
} from '../../authentication/serviceaccount.ts';
import { parsePrivateKeyPEM } from '../../authentication/keys.ts';
import { StatusError } from '../../endpoints/responsewriters/status.ts';
import { newNotFound } from '../../endpoints/apierrors.ts';
import type { KubeObject } from '../generic/store.ts';

const pem = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const signingKey = await parsePrivateKeyPEM(pem);
const issuer: TokenIssuer = {
  issuer: 'https://edge.test',
  signingKey,
  apiAudiences: ['https://edge.test'],
  maxExpirationSeconds: 7200,
  extendExpiration: true,
};
const objects = new Map<string, KubeObject>([
  ['serviceaccounts/ns/sa', { metadata: { name: 'sa', namespace: 'ns', uid: 'sa-uid' } } as KubeObject],
  ['secrets/ns/s', { metadata: { name: 's', namespace: 'ns', uid: 's-uid' } } as KubeObject],
]);
const lookups = {
  getServiceAccount: async (ns: string, name: string) => {
    const o = objects.get(`serviceaccounts/${ns}/${name}`);
    if (!o) throw newNotFound({ group: '', resource: 'serviceaccounts' }, name);
    return o;
  },
  getSecret: async (ns: string, name: string) => {
    const o = objects.get(`secrets/${ns}/${name}`);
    if (!o) throw newNotFound({ group: '', resource: 'secrets' }, name);
    return o;
  },
};
const status = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    if (err instanceof StatusError) return `${err.status.code} ${err.status.message}`;
    throw err;
  }
  return 'ok';
};
const create = (body: Record<string, unknown>, name = 'sa', warn: (t: string) => void = () => {}) =>
  createTokenRequest(body, 'ns', name, issuer, lookups, warn);

test('TokenRequest bad input: upstream Status for every case', async () => {
  assert.equal(
    await status(create({ spec: { expirationSeconds: 599 } })),
    '422 TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes',
  );
  assert.equal(
    await status(create({ spec: { expirationSeconds: 2 ** 32 + 1 } })),
    '422 TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds',
  );
  assert.equal(
    await status(create({ metadata: { name: 'other' } })),
    '422 TokenRequest.authentication.k8s.io "sa" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified',
  );
  assert.equal(await status(create({}, 'nobody')), '404 serviceaccounts "nobody" not found');
  assert.equal(
    await status(create({ spec: { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'c' } } })),
    '400 cannot bind token to object of type /v1, Kind=ConfigMap',
  );
  assert.equal(
    await status(create({ spec: { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's', uid: 'old' } } })),
    '409 Operation cannot be fulfilled on Secret "s": the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated',
  );
  assert.equal(
    await status(create({ spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } } })),
    '404 pods "p" not found',
  );
});

test('TokenRequest mints a bound token, capped by the maximum; lookup rejects it once its objects are gone', async () => {
  const warnings: string[] = [];
  const out = (await create(
    { spec: { expirationSeconds: 18000, boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's' } } },
    'sa',
    (t) => warnings.push(t),
  )) as {
    spec: { expirationSeconds: number; audiences: string[] };
    status: { token: string; expirationTimestamp: string };
  };
  assert.deepEqual(warnings, ['requested expiration of 18000 seconds shortened to 7200 seconds']);
  assert.equal(out.spec.expirationSeconds, 7200);
  assert.deepEqual(out.spec.audiences, ['https://edge.test']);
  const getter: ServiceAccountTokenGetter = {
    getServiceAccount: async (ns, name) => {
      const o = objects.get(`serviceaccounts/${ns}/${name}`);
      return o && { uid: o.metadata.uid! };
    },
    getSecret: async (ns, name) => {
      const o = objects.get(`secrets/${ns}/${name}`);
      return o && { uid: o.metadata.uid! };
    },
    getPod: async () => undefined,
  };
  const authn = new ServiceAccountTokenAuthenticator({
    issuers: [issuer.issuer],
    keys: [signingKey],
    implicitAudiences: issuer.apiAudiences,
    lookup: () => getter,
  });
  const r = await authn.authenticateToken(out.status.token);
  assert.equal(r?.user.name, 'system:serviceaccount:ns:sa');
  objects.delete('secrets/ns/s');
  await assert.rejects(authn.authenticateToken(out.status.token), /service account token has been invalidated/);
  objects.set('serviceaccounts/ns/sa', { metadata: { name: 'sa', namespace: 'ns', uid: 'new-uid' } } as KubeObject);
  await assert.rejects(
    authn.authenticateToken(out.status.token),
    /service account UID \(new-uid\) does not match claim \(sa-uid\)/,
  );
  objects.delete('serviceaccounts/ns/sa');
  await assert.rejects(authn.authenticateToken(out.status.token), /serviceaccounts "sa" not found/);
});

test('--service-account-max-token-expiration: 0 is no limit, else [1h, 2^32 s] (upstream error); extension warnings', () => {
  const h = 3600e9;
  const warnings: string[] = [];
  const complete = (nanos: number, extend = true) => completeMaxTokenExpiration(nanos, extend, (m) => warnings.push(m));
  assert.equal(complete(0), 0);
  assert.deepEqual(warnings, []);
  for (const bad of [1e9, 59 * 60e9, (2 ** 32 + 1) * 1e9])
    assert.throws(
      () => complete(bad),
      new Error('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds'),
    );
  assert.equal(complete(h), 3600);
  assert.deepEqual(warnings, [
    'service-account-extend-token-expiration is true, in order to correctly trigger safe transition logic, service-account-max-token-expiration must be set longer than 3607 seconds (currently 1h0m0s)',
    'service-account-extend-token-expiration is true, enabling tokens valid up to 31536000 seconds, which is longer than service-account-max-token-expiration set to 1h0m0s',
  ]);
  warnings.length = 0;
  assert.equal(complete(2 * h), 7200);
  assert.equal(warnings.length, 1);
  warnings.length = 0;
  assert.equal(complete(2 * h, false), 7200);
  assert.equal(complete(2 ** 32 * 1e9), 2 ** 32);
  assert.deepEqual(warnings, []);
});
