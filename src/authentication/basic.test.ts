import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ctxFor } from './testing.ts';
import {
  parseBearerToken,
  BearerTokenAuthenticator,
  WebSocketProtocolAuthenticator,
  extraSpaceWarning,
} from './bearertoken.ts';
import { AuthenticatedGroupAdder, UnionAuthenticator, UnionTokenAuthenticator } from './union.ts';
import { AnonymousAuthenticator } from './anonymous.ts';
import { tokenFunc, requestFunc, withAudiences } from './authenticator.ts';
import { LoopbackTokenAuthenticator, StaticTokenAuthenticator, timingSafeEqual } from './static-token.ts';
import { CachedTokenAuthenticator } from './cache.ts';
import { wrapAudienceAgnosticToken } from './audiences.ts';

const alice = tokenFunc(async (t) => (t === 'tok' ? { user: { name: 'alice', groups: ['dev'] } } : null));

test('parseBearerToken: upstream SplitN(auth, " ", 3) semantics', () => {
  assert.equal(parseBearerToken(null), undefined);
  assert.equal(parseBearerToken(''), undefined);
  assert.equal(parseBearerToken('   '), undefined);
  assert.equal(parseBearerToken('Bearer'), undefined);
  assert.equal(parseBearerToken('Bearer '), undefined); // trimmed to "Bearer"
  assert.equal(parseBearerToken('Basic dXNlcjpwYXNz'), undefined);
  assert.equal(parseBearerToken('Bearer tok'), 'tok');
  assert.equal(parseBearerToken('bEaReR tok'), 'tok');
  assert.equal(parseBearerToken('  Bearer tok  '), 'tok');
  assert.equal(parseBearerToken('Bearer tok extra words'), 'tok');
  assert.equal(parseBearerToken('Bearer  tok'), '');
  assert.equal(parseBearerToken('Bearer\ttok'), undefined); // tab is not a separator
  // The scheme compares case-insensitively, letter by letter, and only as a whole word.
  assert.equal(parseBearerToken('BEARER tok'), 'tok');
  for (const other of ['Bearex tok', 'Bbarer tok', 'Beare tok', 'Bearers tok', 'Bea rer tok', 'B\u00c5arer tok'])
    assert.equal(parseBearerToken(other), undefined, other);
});

test('BearerTokenAuthenticator: unknown token is an error, no header no opinion, empty token warns', async () => {
  const warnings: string[] = [];
  const a = new BearerTokenAuthenticator(alice, (_c, w) => warnings.push(w));
  assert.equal((await a.authenticateRequest(ctxFor({ authorization: 'Bearer tok' })))?.user.name, 'alice');
  await assert.rejects(
    a.authenticateRequest(ctxFor({ authorization: 'Bearer nope' })),
    /^Error: invalid bearer token$/,
  );
  assert.equal(await a.authenticateRequest(ctxFor({})), null);
  assert.equal(await a.authenticateRequest(ctxFor({ authorization: 'Bearer ' })), null);
  assert.equal(await a.authenticateRequest(ctxFor({ authorization: 'Bearer  tok' })), null);
  assert.deepEqual(warnings, [extraSpaceWarning]);
  // Two Authorization lines arrive comma-joined ("Bearer tok, Bearer x"): the token is "tok," → invalid.
  const h = new Headers();
  h.append('authorization', 'Bearer tok');
  h.append('authorization', 'Bearer other');
  await assert.rejects(a.authenticateRequest(ctxFor([...h])), /invalid bearer token/);
  // With the raw header lines (Node), Go's Header.Get semantics: the first line counts.
  const raw = ['Authorization', 'Bearer tok', 'authorization', 'Bearer other'];
  assert.equal((await a.authenticateRequest(ctxFor([...h], { rawHeaders: raw })))?.user.name, 'alice');
  await assert.rejects(
    a.authenticateRequest(
      ctxFor([...h], { rawHeaders: ['Authorization', 'Bearer other', 'Authorization', 'Bearer tok'] }),
    ),
    /invalid bearer token/,
  );
});

test('WebSocket protocol token', async () => {
  const a = new WebSocketProtocolAuthenticator(alice);
  const proto = 'base64url.bearer.authorization.k8s.io.' + Buffer.from('tok').toString('base64url');
  const up = { connection: 'Upgrade', upgrade: 'websocket' };
  const wctx = ctxFor({ ...up, 'sec-websocket-protocol': `${proto}, v4.channel.k8s.io` });
  assert.equal((await a.authenticateRequest(wctx))?.user.name, 'alice');
  assert.equal(wctx.request.headers.get('sec-websocket-protocol'), 'v4.channel.k8s.io');
  await assert.rejects(
    a.authenticateRequest(ctxFor({ ...up, 'sec-websocket-protocol': proto })),
    /missing additional subprotocol/,
  );
  await assert.rejects(
    a.authenticateRequest(ctxFor({ ...up, 'sec-websocket-protocol': `${proto},${proto},x` })),
    /multiple base64.bearer/,
  );
  assert.equal(await a.authenticateRequest(ctxFor({ 'sec-websocket-protocol': `${proto}, x` })), null); // not an upgrade
});

test('union: first success wins, errors aggregate; fail-on-error stops before anonymous', async () => {
  const err = (m: string) =>
    requestFunc(async () => {
      throw new Error(m);
    });
  const none = requestFunc(async () => null);
  const ok = requestFunc(async () => ({ user: { name: 'bob' } }));
  assert.equal((await new UnionAuthenticator([err('a'), none, ok]).authenticateRequest(ctxFor()))?.user.name, 'bob');
  await assert.rejects(new UnionAuthenticator([err('a'), none, err('b')]).authenticateRequest(ctxFor()), {
    message: '[a, b]',
  });
  await assert.rejects(new UnionAuthenticator([err('a'), none]).authenticateRequest(ctxFor()), { message: 'a' });
  assert.equal(await new UnionAuthenticator([none, none]).authenticateRequest(ctxFor()), null);
  const withAnon = new UnionAuthenticator(
    [new UnionAuthenticator([none, err('bad token')]), new AnonymousAuthenticator()],
    true,
  );
  await assert.rejects(withAnon.authenticateRequest(ctxFor()), /bad token/);
  const cleanAnon = new UnionAuthenticator([none, new AnonymousAuthenticator()], true);
  assert.deepEqual((await cleanAnon.authenticateRequest(ctxFor()))?.user, {
    name: 'system:anonymous',
    uid: '',
    groups: ['system:unauthenticated'],
  });
  const tu = new UnionTokenAuthenticator([
    tokenFunc(async () => {
      throw new Error('x');
    }),
    alice,
  ]);
  assert.equal((await tu.authenticateToken('tok'))?.user.name, 'alice');
  await assert.rejects(tu.authenticateToken('zzz'), { message: 'x' });
});

test('anonymous conditions restrict paths; audiences echoed', async () => {
  const a = new AnonymousAuthenticator({ paths: ['/livez'] });
  assert.equal(await a.authenticateRequest(ctxFor({}, undefined, 'https://h/readyz')), null);
  const c = ctxFor({}, undefined, 'https://h/livez');
  withAudiences(c, ['api']);
  assert.deepEqual((await a.authenticateRequest(c))?.audiences, ['api']);
});

test('AuthenticatedGroupAdder', async () => {
  const mk = (user: { name: string; groups?: string[] }) =>
    new AuthenticatedGroupAdder(requestFunc(async () => ({ user })));
  assert.deepEqual((await mk({ name: 'a', groups: ['g'] }).authenticateRequest(ctxFor()))?.user.groups, [
    'g',
    'system:authenticated',
  ]);
  assert.deepEqual((await mk({ name: 'a' }).authenticateRequest(ctxFor()))?.user.groups, ['system:authenticated']);
  assert.deepEqual(
    (await mk({ name: 'a', groups: ['system:authenticated'] }).authenticateRequest(ctxFor()))?.user.groups,
    ['system:authenticated'],
  );
  assert.deepEqual(
    (await mk({ name: 'system:anonymous', groups: ['system:unauthenticated'] }).authenticateRequest(ctxFor()))?.user
      .groups,
    ['system:unauthenticated'],
  );
  assert.deepEqual(
    (await mk({ name: 'x', groups: ['system:unauthenticated'] }).authenticateRequest(ctxFor()))?.user.groups,
    ['system:unauthenticated'],
  );
});

test('static tokens and loopback token', async () => {
  assert.equal(timingSafeEqual('abc', 'abc'), true);
  assert.equal(timingSafeEqual('abc', 'abd'), false);
  assert.equal(timingSafeEqual('abc', 'abcd'), false);
  const s = await StaticTokenAuthenticator.create([['t1', { name: 'u1', uid: '1' }]]);
  assert.equal((await s.authenticateToken('t1'))?.user.name, 'u1');
  assert.equal(await s.authenticateToken('t2'), null);
  assert.equal(await s.authenticateToken('t1 '), null);
  const lb = new LoopbackTokenAuthenticator('9e3c0c47-2f4c-4d1a-8a0b-7b0b3f5f0e11');
  const r = await lb.authenticateToken('9e3c0c47-2f4c-4d1a-8a0b-7b0b3f5f0e11');
  assert.equal(r?.user.name, 'system:apiserver');
  assert.deepEqual(r?.user.groups, ['system:authenticated', 'system:masters']);
  assert.match(r!.user.uid!, /^[0-9a-f-]{36}$/);
  assert.equal(await lb.authenticateToken('9e3c0c47-2f4c-4d1a-8a0b-7b0b3f5f0e12'), null);
});

test('token cache: success TTL, failure TTL, singleflight, bounded', async () => {
  let now = 0;
  let calls = 0;
  const inner = tokenFunc(async (t) => {
    calls++;
    await new Promise((r) => setTimeout(r, 5));
    if (t === 'err') throw new Error('boom');
    return t.startsWith('ok') ? { user: { name: t } } : null;
  });
  const c = new CachedTokenAuthenticator(inner, { successTTL: 10_000, failureTTL: 0, maxEntries: 3, now: () => now });
  const [a, b] = await Promise.all([c.authenticateToken('ok1'), c.authenticateToken('ok1')]);
  assert.equal(a?.user.name, 'ok1');
  assert.equal(b?.user.name, 'ok1');
  assert.equal(calls, 1);
  await c.authenticateToken('ok1');
  assert.equal(calls, 1);
  now = 10_001;
  await c.authenticateToken('ok1');
  assert.equal(calls, 2);
  assert.equal(await c.authenticateToken('bad'), null);
  assert.equal(await c.authenticateToken('bad'), null);
  assert.equal(calls, 4); // failures not cached with failureTTL 0
  await assert.rejects(c.authenticateToken('err'), /boom/);
  for (const t of ['ok2', 'ok3', 'ok4', 'ok5']) await c.authenticateToken(t);
  assert.equal(c.size, 3);
  // Audiences are part of the key.
  const before = calls;
  await c.authenticateToken('ok5', ['x']);
  assert.equal(calls, before + 1);
  const f = new CachedTokenAuthenticator(inner, { successTTL: 10_000, failureTTL: 10_000, now: () => now });
  await assert.rejects(f.authenticateToken('err'), /boom/);
  await assert.rejects(f.authenticateToken('err'), /boom/);
  assert.equal(calls, before + 2);
});

test('audience-agnostic wrapper', async () => {
  const w = wrapAudienceAgnosticToken(['api'], alice);
  assert.equal((await w.authenticateToken('tok'))?.audiences, undefined);
  assert.deepEqual((await w.authenticateToken('tok', ['api', 'x']))?.audiences, ['api']);
  assert.equal(await w.authenticateToken('tok', ['other']), null);
});
