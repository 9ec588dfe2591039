import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newRequestContext, type RequestContext, type UserInfo } from '../endpoints/request/context.ts';
import { RequestInfoFactory } from '../endpoints/request/requestinfo.ts';
import { complete, newConfig } from '../server/config.ts';
import { discardLogger } from '../util/logger.ts';
import { auditContextFrom } from '../audit/context.ts';
import type { Attributes, Authorizer, AuthorizationResult } from '../authorization/authorizer.ts';
import { attributes } from '../authorization/authorizer.ts';
import { forbiddenStatus } from '../authorization/forbidden.ts';
import { encodeStatus } from '../endpoints/responsewriters/status.ts';
import { AlwaysDenyAuthorizer, PrivilegedGroupAuthorizer } from '../authorization/builtin.ts';
import { UnionAuthorizer } from '../authorization/union.ts';
import { withAuthorization } from './authorization.ts';

const factory = new RequestInfoFactory({ apiPrefixes: ['api', 'apis'], grouplessAPIPrefixes: ['api'] });

function ctxFor(method: string, path: string, user?: UserInfo, headers: Record<string, string> = {}): RequestContext {
  const ctx = newRequestContext(new Request('https://127.0.0.1' + path, { method, headers }));
  ctx.requestInfo = factory.newRequestInfo(ctx.request, ctx.url);
  if (user) ctx.user = user;
  return ctx;
}

const fixed = (r: AuthorizationResult): Authorizer => ({ authorize: async () => r });
const ok = () => new Response('ok');

function chain(authz: Authorizer | undefined) {
  const c = complete(newConfig({ logger: discardLogger, authorization: authz ? { authorizer: authz } : {} }));
  return withAuthorization(ok, c);
}

const alice = { name: 'alice', groups: ['system:authenticated'] };

test('403 bodies byte-for-byte: namespaced, cluster, named, grouped, subresource, non-resource', async () => {
  const h = chain(fixed({ decision: 'NoOpinion', reason: '' }));
  const cases: [string, string, string][] = [
    [
      'GET',
      '/api/v1/namespaces/default/pods',
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods is forbidden: User \\"alice\\" cannot list resource \\"pods\\" in API group \\"\\" in the namespace \\"default\\"","reason":"Forbidden","details":{"kind":"pods"},"code":403}\n',
    ],
    [
      'GET',
      '/api/v1/nodes',
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"nodes is forbidden: User \\"alice\\" cannot list resource \\"nodes\\" in API group \\"\\" at the cluster scope","reason":"Forbidden","details":{"kind":"nodes"},"code":403}\n',
    ],
    [
      'GET',
      '/api/v1/namespaces/default/pods/mypod',
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \\"mypod\\" is forbidden: User \\"alice\\" cannot get resource \\"pods\\" in API group \\"\\" in the namespace \\"default\\"","reason":"Forbidden","details":{"name":"mypod","kind":"pods"},"code":403}\n',
    ],
    [
      'DELETE',
      '/apis/apps/v1/namespaces/prod/deployments/web',
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"web\\" is forbidden: User \\"alice\\" cannot delete resource \\"deployments\\" in API group \\"apps\\" in the namespace \\"prod\\"","reason":"Forbidden","details":{"name":"web","group":"apps","kind":"deployments"},"code":403}\n',
    ],
    [
      'PUT',
      '/apis/apps/v1/namespaces/prod/deployments/web/scale',
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"web\\" is forbidden: User \\"alice\\" cannot update resource \\"deployments/scale\\" in API group \\"apps\\" in the namespace \\"prod\\"","reason":"Forbidden","details":{"name":"web","group":"apps","kind":"deployments"},"code":403}\n',
    ],
    [
      'GET',
      '/metrics',
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"alice\\" cannot get path \\"/metrics\\"","reason":"Forbidden","details":{},"code":403}\n',
    ],
    [
      'POST',
      '/%3Cscript%3E',
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"alice\\" cannot post path \\"/\\u0026lt;script\\u0026gt;\\"","reason":"Forbidden","details":{},"code":403}\n',
    ],
  ];
  for (const [method, path, body] of cases) {
    const r = await h(ctxFor(method, path, alice));
    assert.equal(r.status, 403, path);
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(await r.text(), body, `${method} ${path}`);
  }
});

test('403 upstream test vectors (forbiddenStatus) and the reason suffix', () => {
  const u = { name: 'NAME' };
  const vec: [Attributes, string][] = [
    [
      attributes({ user: u, verb: 'GET', path: '/whatever' }),
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"NAME\\" cannot GET path \\"/whatever\\"","reason":"Forbidden","details":{},"code":403}\n',
    ],
    [
      attributes({ user: u, verb: 'GET', path: '/<script>' }),
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"NAME\\" cannot GET path \\"/\\u0026lt;script\\u0026gt;\\"","reason":"Forbidden","details":{},"code":403}\n',
    ],
    [
      attributes({ user: u, verb: 'get', isResourceRequest: true, resource: 'pod' }),
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pod is forbidden: User \\"NAME\\" cannot get resource \\"pod\\" in API group \\"\\" at the cluster scope","reason":"Forbidden","details":{"kind":"pod"},"code":403}\n',
    ],
    [
      attributes({ user: u, verb: 'get', isResourceRequest: true, resource: 'pod', name: 'mypod' }),
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pod \\"mypod\\" is forbidden: User \\"NAME\\" cannot get resource \\"pod\\" in API group \\"\\" at the cluster scope","reason":"Forbidden","details":{"name":"mypod","kind":"pod"},"code":403}\n',
    ],
    [
      attributes({
        user: u,
        verb: 'get',
        isResourceRequest: true,
        namespace: 'test',
        apiGroup: 'v2',
        resource: 'pod',
        subresource: 'quota',
      }),
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pod.v2 is forbidden: User \\"NAME\\" cannot get resource \\"pod/quota\\" in API group \\"v2\\" in the namespace \\"test\\"","reason":"Forbidden","details":{"group":"v2","kind":"pod"},"code":403}\n',
    ],
  ];
  for (const [a, body] of vec) assert.equal(encodeStatus(forbiddenStatus(a, '')), body);
  // The reason is appended after sanitising the message, and not sanitised itself; no user → "".
  assert.equal(
    forbiddenStatus(attributes({ verb: 'get', path: '/x' }), 'a <b>').message,
    'forbidden: User "" cannot get path "/x": a <b>',
  );
});

test('AlwaysDeny reason, pretty output for curl, allow passes with audit annotations', async () => {
  const h = chain(new UnionAuthorizer([new PrivilegedGroupAuthorizer(['system:masters']), new AlwaysDenyAuthorizer()]));
  let ctx = ctxFor('GET', '/api/v1/pods', alice);
  let r = await h(ctx);
  assert.equal(
    await r.text(),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods is forbidden: User \\"alice\\" cannot list resource \\"pods\\" in API group \\"\\" at the cluster scope: Everything is forbidden.","reason":"Forbidden","details":{"kind":"pods"},"code":403}\n',
  );
  assert.deepEqual(
    [...auditContextFrom(ctx).annotations],
    [
      ['authorization.k8s.io/decision', 'forbid'],
      ['authorization.k8s.io/reason', 'Everything is forbidden.'],
    ],
  );
  r = await h(ctxFor('GET', '/api/v1/pods', alice, { 'user-agent': 'curl/8.0' }));
  assert.ok((await r.text()).startsWith('{\n  "kind": "Status",'));
  ctx = ctxFor('GET', '/api/v1/pods', { name: 'root', groups: ['system:masters'] });
  r = await h(ctx);
  assert.equal(await r.text(), 'ok');
  assert.deepEqual(
    [...auditContextFrom(ctx).annotations],
    [
      ['authorization.k8s.io/decision', 'allow'],
      ['authorization.k8s.io/reason', ''],
    ],
  );
});

test('an authorizer error without Allow is a 500 InternalError text; Allow with error still passes', async () => {
  let h = chain(fixed({ decision: 'NoOpinion', reason: 'x', error: new Error('webhook <down>') }));
  const ctx = ctxFor('GET', '/api/v1/pods?limit=1&x=<', alice);
  const r = await h(ctx);
  assert.equal(r.status, 500);
  assert.equal(r.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(await r.text(), 'Internal Server Error: "/api/v1/pods?limit=1&amp;x=%3C": webhook &lt;down&gt;\n');
  assert.deepEqual([...auditContextFrom(ctx).annotations], [['authorization.k8s.io/reason', 'internal error']]);
  h = chain(fixed({ decision: 'Allow', reason: '', error: new Error('partial') }));
  assert.equal(await (await h(ctxFor('GET', '/api/v1/pods', alice))).text(), 'ok');
  // Missing RequestInfo → 500.
  const bare = newRequestContext(new Request('https://127.0.0.1/x'));
  assert.equal(
    await (await chain(fixed({ decision: 'Allow', reason: '' }))(bare)).text(),
    'Internal Server Error: "/x": no RequestInfo found in the context\n',
  );
  // No authorizer: the filter is a pass-through.
  assert.equal(chain(undefined), ok);
});
