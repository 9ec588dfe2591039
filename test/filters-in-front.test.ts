// examples/filters-in-front.ts as written: authentication, RBAC and audit alone in front of a
// plain Hono app — 401 without a token, 403 without a binding, 200 with one, and an audit event each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createFilteredApp } from '../examples/filters-in-front.ts';

const rbacYAML = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: widget-reader}
rules:
- apiGroups: [example.com]
  resources: [widgets]
  verbs: [get, list]
- nonResourceURLs: [/hello]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-reads, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: widget-reader}
subjects:
- {kind: User, apiGroup: rbac.authorization.k8s.io, name: alice}
`;

const auditPolicyYAML = `
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
`;

test('examples/filters-in-front.ts: authentication + RBAC + audit in front of Hono routes', async () => {
  const lines: string[] = [];
  const app = await createFilteredApp({
    tokensCSV: 'alice-token,alice,uid-1,dev\nbob-token,bob,uid-2\n',
    rbacYAML,
    auditPolicyYAML,
    auditLog: { write: (data) => void lines.push(...data.trimEnd().split('\n')) },
  });
  const get = (path: string, token?: string) =>
    app.request(path, token ? { headers: { authorization: `Bearer ${token}` } } : {});

  // No credentials: the 401 Status, audited as a failed authentication.
  let res = await get('/apis/example.com/v1/namespaces/team-a/widgets');
  assert.equal(res.status, 401);
  assert.equal((await res.json()).reason, 'Unauthorized');
  assert.ok(res.headers.get('audit-id'));

  // alice is bound in team-a only.
  res = await get('/apis/example.com/v1/namespaces/team-a/widgets', 'alice-token');
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { kind: 'WidgetList', items: [], user: 'alice' });
  res = await get('/apis/example.com/v1/namespaces/team-b/widgets', 'alice-token');
  assert.equal(res.status, 403);
  const forbidden = await res.json();
  assert.equal(forbidden.reason, 'Forbidden');
  assert.match(
    forbidden.message,
    /^widgets\.example\.com is forbidden: User "alice" cannot list resource "widgets" in API group "example\.com" in the namespace "team-b"/,
  );

  // bob has no binding at all; non-resource paths are authorized too.
  assert.equal((await get('/hello', 'bob-token')).status, 403);
  res = await get('/hello', 'alice-token');
  assert.equal(res.status, 403, 'a RoleBinding does not grant non-resource URLs');

  // One ResponseComplete event (RequestReceived omitted) per request, with the user and the code.
  const events = lines.map(
    (l) =>
      JSON.parse(l) as {
        stage: string;
        user: { username?: string };
        responseStatus?: { code: number };
        verb: string;
        requestURI: string;
      },
  );
  const complete = events.filter((e) => e.stage === 'ResponseComplete');
  assert.deepEqual(
    complete.map((e) => [e.user.username ?? '', e.verb, e.requestURI, e.responseStatus?.code]),
    [
      ['alice', 'list', '/apis/example.com/v1/namespaces/team-a/widgets', 200],
      ['alice', 'list', '/apis/example.com/v1/namespaces/team-b/widgets', 403],
      ['bob', 'get', '/hello', 403],
      ['alice', 'get', '/hello', 403],
    ],
  );
  const failedAuthn = events.filter((e) => e.stage === 'ResponseStarted');
  assert.equal(failedAuthn.length, 1);
  assert.equal(failedAuthn[0]!.responseStatus?.code, 401);
});
