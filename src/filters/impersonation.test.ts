import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newRequestContext, type RequestContext, type UserInfo } from '../endpoints/request/context.ts';
import { complete, newConfig } from '../server/config.ts';
import { discardLogger } from '../util/logger.ts';
import type { Attributes, Authorizer } from '../authorization/authorizer.ts';
import { RBACAuthorizer } from '../authorization/rbac.ts';
import { parseManifests } from '../authorization/rbac-policy.ts';
import { withImpersonation, unescapeExtraKey, splitServiceAccountUsername } from './impersonation.ts';

const policy = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: impersonator}
rules:
- {apiGroups: [""], resources: [users, groups, serviceaccounts], verbs: [impersonate]}
- {apiGroups: [authentication.k8s.io], resources: [uids, userextras/scopes], verbs: [impersonate]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: impersonator}
subjects: [{kind: User, apiGroup: rbac.authorization.k8s.io, name: admin}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: impersonator}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: bob-only}
rules: [{apiGroups: [""], resources: [users], resourceNames: [bob], verbs: [impersonate]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: bob-only}
subjects: [{kind: User, apiGroup: rbac.authorization.k8s.io, name: limited}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: bob-only}
`;

const rbac = new RBACAuthorizer(parseManifests(policy, 'policy.yaml'));

function setup(authz: Authorizer = rbac) {
  let seen: RequestContext | undefined;
  const c = complete(newConfig({ logger: discardLogger, authorization: { authorizer: authz } }));
  const h = withImpersonation((ctx) => {
    seen = ctx;
    return new Response('ok');
  }, c);
  return { h, seen: () => seen };
}

/** A context whose transport carries the raw header lines (one value per line, as on Node). */
function ctxWith(user: UserInfo | undefined, lines: [string, string][]): RequestContext {
  const headers = new Headers();
  for (const [k, v] of lines) headers.append(k, v);
  const ctx = newRequestContext(new Request('https://127.0.0.1/api/v1/pods', { headers }), {
    rawHeaders: lines.flat(),
  });
  if (user) ctx.user = user;
  return ctx;
}

const admin = { name: 'admin', groups: ['system:authenticated', 'admins'], extra: { mine: ['x'] } };

test('no impersonation headers: pass through untouched', async () => {
  const { h, seen } = setup();
  const ctx = ctxWith(admin, [['Accept', 'application/json']]);
  assert.equal(await (await h(ctx)).text(), 'ok');
  assert.equal(seen()!.user, admin);
});

test('user, groups (one per line), extras and uid: the impersonated user replaces ctx.user; headers removed', async () => {
  const { h, seen } = setup();
  const ctx = ctxWith(admin, [
    ['Impersonate-User', 'jane'],
    ['Impersonate-Group', 'devs'],
    ['Impersonate-Group', 'ops, qa'],
    ['Impersonate-Extra-Scopes', 'view'],
    ['Impersonate-Extra-Scopes', 'edit'],
    ['Impersonate-Uid', 'u-1'],
    ['X-Other', 'kept'],
  ]);
  assert.equal(await (await h(ctx)).text(), 'ok');
  const s = seen()!;
  assert.deepEqual(s.user, {
    name: 'jane',
    groups: ['devs', 'ops, qa', 'system:authenticated'],
    extra: { scopes: ['view', 'edit'] },
    uid: 'u-1',
  });
  for (const n of ['impersonate-user', 'impersonate-group', 'impersonate-uid', 'impersonate-extra-scopes'])
    assert.equal(s.request.headers.get(n), null, n);
  assert.equal(s.request.headers.get('x-other'), 'kept');
});

test('service accounts get their groups unless groups are given; anonymous gets system:unauthenticated', async () => {
  const { h, seen } = setup();
  await h(ctxWith(admin, [['Impersonate-User', 'system:serviceaccount:ci:builder']]));
  assert.deepEqual(seen()!.user, {
    name: 'system:serviceaccount:ci:builder',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:ci', 'system:authenticated'],
    extra: {},
  });
  await h(
    ctxWith(admin, [
      ['Impersonate-User', 'system:serviceaccount:ci:builder'],
      ['Impersonate-Group', 'g'],
    ]),
  );
  assert.deepEqual(seen()!.user!.groups, ['g', 'system:authenticated']);
  await h(ctxWith(admin, [['Impersonate-User', 'system:anonymous']]));
  assert.deepEqual(seen()!.user!.groups, ['system:unauthenticated']);
  await h(
    ctxWith(admin, [
      ['Impersonate-User', 'x'],
      ['Impersonate-Group', 'system:unauthenticated'],
    ]),
  );
  assert.deepEqual(seen()!.user!.groups, ['system:unauthenticated']);
  // An invalid service-account name is a plain user.
  assert.equal(splitServiceAccountUsername('system:serviceaccount:Bad:x'), undefined);
  assert.deepEqual(splitServiceAccountUsername('system:serviceaccount:ns:a.b'), { namespace: 'ns', name: 'a.b' });
});

test('403s: each requested identity is authorized with verb impersonate; first failure wins', async () => {
  const { h } = setup();
  const cases: [UserInfo, [string, string][], string][] = [
    [
      { name: 'alice' },
      [['Impersonate-User', 'bob']],
      'users \\"bob\\" is forbidden: User \\"alice\\" cannot impersonate resource \\"users\\" in API group \\"\\" at the cluster scope',
    ],
    [
      { name: 'alice' },
      [['Impersonate-User', 'system:serviceaccount:kube-system:default']],
      'serviceaccounts \\"default\\" is forbidden: User \\"alice\\" cannot impersonate resource \\"serviceaccounts\\" in API group \\"\\" in the namespace \\"kube-system\\"',
    ],
    [
      { name: 'limited' },
      [
        ['Impersonate-User', 'bob'],
        ['Impersonate-Group', 'admins'],
      ],
      'groups \\"admins\\" is forbidden: User \\"limited\\" cannot impersonate resource \\"groups\\" in API group \\"\\" at the cluster scope',
    ],
    [
      { name: 'limited' },
      [
        ['Impersonate-User', 'bob'],
        ['Impersonate-Extra-Scopes', 'scope-a'],
      ],
      'userextras.authentication.k8s.io \\"scope-a\\" is forbidden: User \\"limited\\" cannot impersonate resource \\"userextras/scopes\\" in API group \\"authentication.k8s.io\\" at the cluster scope',
    ],
    [
      { name: 'limited' },
      [
        ['Impersonate-User', 'bob'],
        ['Impersonate-Uid', '42'],
      ],
      'uids.authentication.k8s.io \\"42\\" is forbidden: User \\"limited\\" cannot impersonate resource \\"uids\\" in API group \\"authentication.k8s.io\\" at the cluster scope',
    ],
  ];
  for (const [user, lines, message] of cases) {
    const r = await h(ctxWith(user, lines));
    assert.equal(r.status, 403);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    const body = await r.text();
    assert.ok(body.includes(`"message":"${message}"`), body);
  }
  // limited may impersonate bob alone.
  assert.equal((await h(ctxWith({ name: 'limited' }, [['Impersonate-User', 'bob']]))).status, 200);
});

test('400: groups, extras or uid without a user (an empty Impersonate-User counts as none)', async () => {
  const { h } = setup();
  let r = await h(ctxWith(admin, [['Impersonate-Group', 'admins']]));
  assert.equal(r.status, 400);
  assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(
    await r.text(),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"requested [{Group  admins    }] without impersonating a user","reason":"BadRequest","code":400}\n',
  );
  r = await h(
    ctxWith(admin, [
      ['Impersonate-User', ''],
      ['Impersonate-Group', 'a'],
      ['Impersonate-Extra-Foo', 'v'],
      ['Impersonate-Uid', 'u'],
    ]),
  );
  assert.equal(
    JSON.parse(await r.text()).message,
    'requested [{Group  a    } {UserExtra  v  authentication.k8s.io/v1  foo} {UID  u  authentication.k8s.io/v1  }] without impersonating a user',
  );
});

test('extra keys: lower-cased and path-unescaped (invalid escapes kept); attributes passed to the authorizer', async () => {
  assert.equal(unescapeExtraKey('example.com%2fescaped%e1%9b%84scopes'), 'example.com/escapedᛄscopes');
  assert.equal(unescapeExtraKey('almost%zzpercent%xxencoded'), 'almost%zzpercent%xxencoded');
  const calls: Attributes[] = [];
  const { h, seen } = setup({ authorize: async (a) => (calls.push(a), { decision: 'Allow', reason: '' }) });
  await h(
    ctxWith(admin, [
      ['Impersonate-User', 'u'],
      ['Impersonate-Extra-Example.com%2fKey', 'v'],
    ]),
  );
  assert.deepEqual(seen()!.user!.extra, { 'example.com/key': ['v'] });
  assert.deepEqual(
    calls.map((a) => [a.verb, a.apiGroup, a.apiVersion, a.resource, a.subresource, a.name, a.user?.name]),
    [
      ['impersonate', '', '', 'users', '', 'u', 'admin'],
      ['impersonate', 'authentication.k8s.io', 'v1', 'userextras', 'example.com/key', 'v', 'admin'],
    ],
  );
});

test('without raw header lines (Fetch Headers only): detected and applied', async () => {
  const { h, seen } = setup();
  const ctx = newRequestContext(
    new Request('https://127.0.0.1/api', { headers: { 'Impersonate-User': 'jane', 'Impersonate-Group': 'devs' } }),
  );
  ctx.user = admin;
  assert.equal(await (await h(ctx)).text(), 'ok');
  assert.deepEqual(seen()!.user, { name: 'jane', groups: ['devs', 'system:authenticated'], extra: {} });
});
