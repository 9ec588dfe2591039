import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withAuthentication } from './authentication.ts';
import { complete, newConfig, type Config } from '../server/config.ts';
import { newRequestContext, type RequestContext, type Transport } from '../endpoints/request/context.ts';
import { discardLogger } from '../util/logger.ts';
import { requestFunc, tokenFunc, audiencesFrom, type RequestAuthenticator } from '../authentication/authenticator.ts';
import { BearerTokenAuthenticator } from '../authentication/bearertoken.ts';
import { AnonymousAuthenticator } from '../authentication/anonymous.ts';
import { AuthenticatedGroupAdder, UnionAuthenticator } from '../authentication/union.ts';

const body401 =
  '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}\n';
const pretty401 = `{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "Unauthorized",
  "reason": "Unauthorized",
  "code": 401
}`;

const tokens = tokenFunc(async (t) => (t === 'good' ? { user: { name: 'alice', groups: ['dev'] } } : null));
/** kube-apiserver's shape: group adder around the request union, then fail-on-error with anonymous. */
function kubeLike(anonymous: boolean): RequestAuthenticator {
  const chain = new AuthenticatedGroupAdder(new UnionAuthenticator([new BearerTokenAuthenticator(tokens)]));
  return anonymous ? new UnionAuthenticator([chain, new AnonymousAuthenticator()], true) : chain;
}

function chain(auth: RequestAuthenticator | undefined, overrides: Partial<Config> = {}) {
  let seen = undefined as RequestContext | undefined;
  const c = complete(
    newConfig({
      logger: discardLogger,
      ...overrides,
      authentication: { apiAudiences: [], authenticator: auth, ...overrides.authentication },
    }),
  );
  const h = withAuthentication((ctx) => {
    seen = ctx;
    return new Response('ok');
  }, c);
  return {
    async run(
      headers: Record<string, string> | [string, string][] = {},
      transport?: Transport,
      url = 'https://h/api/v1/pods',
    ) {
      seen = undefined;
      const res = await h(newRequestContext(new Request(url, { headers }), transport));
      const ctx = seen as RequestContext | undefined;
      return { res, body: await res.text(), ctx };
    },
  };
}

test('no authenticator: pass-through', async () => {
  const { res, ctx } = await chain(undefined).run({ authorization: 'Bearer whatever' });
  assert.equal(res.status, 200);
  assert.equal(ctx?.user, undefined);
});

test('success: user stored with system:authenticated, Authorization and front-proxy headers removed', async () => {
  const { res, ctx } = await chain(kubeLike(true)).run({
    authorization: 'Bearer good',
    'x-remote-user': 'mallory',
    'x-remote-group': 'system:masters',
    'X-Remote-Extra-Scopes': 'x',
    'x-remote-uid': '0',
    accept: 'application/json',
  });
  assert.equal(res.status, 200);
  assert.deepEqual(ctx!.user, { name: 'alice', groups: ['dev', 'system:authenticated'] });
  for (const h of ['authorization', 'x-remote-user', 'x-remote-group', 'x-remote-extra-scopes', 'x-remote-uid']) {
    assert.equal(ctx!.request.headers.get(h), null, h);
  }
  assert.equal(ctx!.request.headers.get('accept'), 'application/json');
  // Same with the runtime's raw header list (the Node listener provides it).
  const pairs: [string, string][] = [
    ['Authorization', 'Bearer good'],
    ['X-Remote-Extra-A', '1'],
    ['x-remote-extra-b', '2'],
    ['X-Remote-User', 'm'],
  ];
  const raw = await chain(kubeLike(true)).run(pairs, { rawHeaders: pairs.flat() });
  assert.equal(raw.ctx!.user!.name, 'alice');
  assert.deepEqual([...raw.ctx!.request.headers.keys()], []);
});

test('401 bodies are byte-exact: compact, pretty for curl, no WWW-Authenticate, no nosniff', async () => {
  const c = chain(kubeLike(false));
  for (const headers of [{}, { authorization: 'Bearer bad' }, { authorization: 'Basic Zm9vOmJhcg==' }] as Record<
    string,
    string
  >[]) {
    const { res, body } = await c.run(headers);
    assert.equal(res.status, 401);
    assert.equal(body, body401);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(res.headers.get('www-authenticate'), null);
    assert.equal(res.headers.get('x-content-type-options'), null);
  }
  const { body } = await c.run({ 'user-agent': 'curl/8.0' });
  assert.equal(body, pretty401);
  // Headers are untouched on failure (the failed-authentication audit reads them).
  const failedAware = withAuthentication(
    () => new Response('ok'),
    complete(
      newConfig({ logger: discardLogger, authentication: { apiAudiences: [], authenticator: kubeLike(false) } }),
    ),
  );
  const ctx = newRequestContext(new Request('https://h/', { headers: { authorization: 'Bearer bad' } }));
  await failedAware(ctx);
  const seenHeader = ctx.request.headers.get('authorization');
  assert.equal(seenHeader, 'Bearer bad');
});

test('anonymous: no credentials → system:anonymous; invalid credentials stay 401', async () => {
  const c = chain(kubeLike(true));
  const anon = await c.run({});
  assert.equal(anon.res.status, 200);
  assert.deepEqual(anon.ctx!.user, { name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] });
  const bad = await c.run({ authorization: 'Bearer bad' });
  assert.equal(bad.res.status, 401);
  assert.equal(bad.body, body401);
  // `Bearer ` with an empty token is "no credentials" upstream → anonymous.
  assert.equal((await c.run({ authorization: 'Bearer ' })).res.status, 200);
  // Two Authorization headers are joined into one invalid token: 401, not anonymous.
  assert.equal(
    (
      await c.run([
        ['authorization', 'Bearer good'],
        ['authorization', 'Bearer good'],
      ])
    ).res.status,
    401,
  );
});

test('audiences: stored for authenticators, mismatch is 401', async () => {
  let seenAuds: readonly string[] | undefined;
  const auth = requestFunc(async (ctx) => {
    seenAuds = audiencesFrom(ctx);
    const aud = ctx.request.headers.get('x-aud');
    return { user: { name: 'u' }, audiences: aud ? [aud] : [] };
  });
  const c = chain(auth, { authentication: { apiAudiences: ['https://kubernetes.default.svc'] } });
  assert.equal((await c.run({ 'x-aud': 'https://kubernetes.default.svc' })).res.status, 200);
  assert.deepEqual(seenAuds, ['https://kubernetes.default.svc']);
  assert.equal((await c.run({})).res.status, 200); // no audiences in the response: accepted
  const bad = await c.run({ 'x-aud': 'other' });
  assert.equal(bad.res.status, 401);
  assert.equal(bad.body, body401);
});

test('loopback token goes first when an authorizer is configured', async () => {
  const token = crypto.randomUUID();
  const authorizer = { authorize: async () => ({ decision: 'allow' as const, reason: '' }) };
  const c = chain(kubeLike(false), { loopbackToken: token, authorization: { authorizer: authorizer as never } });
  const { res, ctx } = await c.run({ authorization: `Bearer ${token}` });
  assert.equal(res.status, 200);
  assert.equal(ctx!.user!.name, 'system:apiserver');
  assert.deepEqual(ctx!.user!.groups, ['system:authenticated', 'system:masters']);
  assert.equal((await c.run({ authorization: 'Bearer good' })).ctx!.user!.name, 'alice');
  assert.equal((await c.run({ authorization: `Bearer ${token}x` })).res.status, 401);
  // Without an authorizer upstream does not install it.
  const noAuthz = chain(kubeLike(false), { loopbackToken: token });
  assert.equal((await noAuthz.run({ authorization: `Bearer ${token}` })).res.status, 401);
});

test('HTTP/2: anonymous and failures ask for GOAWAY', async () => {
  let goaways = 0;
  const t: Transport = { protocol: 'h2', goaway: () => goaways++ };
  const c = chain(kubeLike(true));
  await c.run({}, t);
  await c.run({ authorization: 'Bearer bad' }, t);
  await c.run({ authorization: 'Bearer good' }, t);
  assert.equal(goaways, 2);
});

test('loopback token and anonymous: a presented bearer token nobody accepts is 401, never anonymous', async () => {
  // kube-apiserver always has the service-account token authenticator, so a bad bearer token is an
  // error before NewFailOnError's anonymous fallback; the loopback token authenticator plays that part.
  const token = crypto.randomUUID();
  const authorizer = { authorize: async () => ({ decision: 'allow' as const, reason: '' }) };
  const withAuthz = { loopbackToken: token, authorization: { authorizer: authorizer as never } };
  const anonymousOnly = chain(new AnonymousAuthenticator(), withAuthz);
  for (const c of [anonymousOnly, chain(kubeLike(true), withAuthz)]) {
    for (const bad of ['garbage', `${token}x`, token.slice(0, 10), 'a.b.c']) {
      const r = await c.run({ authorization: `Bearer ${bad}` });
      assert.equal(r.res.status, 401, bad);
      assert.equal(r.body, body401);
    }
    assert.equal((await c.run({})).ctx!.user!.name, 'system:anonymous');
    assert.equal((await c.run({ authorization: 'Bearer ' })).ctx!.user!.name, 'system:anonymous');
    assert.equal((await c.run({ authorization: 'Basic Zm9vOmJhcg==' })).ctx!.user!.name, 'system:anonymous');
    assert.equal((await c.run({ authorization: `Bearer ${token}` })).ctx!.user!.name, 'system:apiserver');
  }
  assert.equal((await chain(kubeLike(true), withAuthz).run({ authorization: 'Bearer good' })).ctx!.user!.name, 'alice');
  // Anonymous limited to paths (AuthenticationConfiguration conditions) behaves the same.
  const paths = chain(
    new UnionAuthenticator([kubeLike(false), new AnonymousAuthenticator({ paths: ['/healthz'] })], true),
    withAuthz,
  );
  assert.equal((await paths.run({ authorization: 'Bearer garbage' }, undefined, 'https://h/healthz')).res.status, 401);
  assert.equal((await paths.run({}, undefined, 'https://h/healthz')).ctx!.user!.name, 'system:anonymous');
  // Another authenticator's success still wins over a bad token (union: the first success).
  const cert = requestFunc(async (ctx) => (ctx.request.headers.get('x-cert') ? { user: { name: 'cert-user' } } : null));
  const withCert = chain(
    new UnionAuthenticator(
      [new AuthenticatedGroupAdder(new UnionAuthenticator([cert])), new AnonymousAuthenticator()],
      true,
    ),
    withAuthz,
  );
  assert.equal((await withCert.run({ authorization: 'Bearer garbage', 'x-cert': '1' })).ctx!.user!.name, 'cert-user');
  assert.equal((await withCert.run({ authorization: 'Bearer garbage' })).res.status, 401);
});

test('withLoopbackToken: the error of a rejected bearer token is "invalid bearer token" once (TokenReview status.error)', async () => {
  const token = crypto.randomUUID();
  const authorizer = { authorize: async () => ({ decision: 'allow' as const, reason: '' }) };
  for (const auth of [new AnonymousAuthenticator(), kubeLike(true), kubeLike(false)]) {
    const c = complete(
      newConfig({
        logger: discardLogger,
        loopbackToken: token,
        authorization: { authorizer: authorizer as never },
        authentication: { apiAudiences: [], authenticator: auth },
      }),
    );
    const a = c.authentication.authenticator!; // complete() put the loopback token first (AuthorizeClientBearerToken)
    const ctx = newRequestContext(
      new Request('https://tokenreview.invalid/', { headers: { authorization: 'Bearer garbage' } }),
    );
    await assert.rejects(a.authenticateRequest(ctx), (err: Error) => err.message === 'invalid bearer token');
  }
});
