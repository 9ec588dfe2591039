import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterRoleBindings, clusterRoles, roleBindings, roles } from './resources.ts';
import { checkRBACWrite, compactRules, confirmNoEscalation, covers, type RBACRuleResolver } from './escalation.ts';
import { reconciled, toObject } from './reconcile.ts';
import { bootstrapPolicy } from '../../authorization/rbac-bootstrap.ts';
import { RBACAuthorizer } from '../../authorization/rbac.ts';
import { parseManifests } from '../../authorization/rbac-policy.ts';
import { StatusError } from '../../endpoints/responsewriters/status.ts';
import type { KubeObject } from '../generic/store.ts';

const obj = (o: Record<string, unknown>) => ({ metadata: { name: 'x' }, ...o }) as KubeObject;
const messages = (errs: { toString(): string }[]) => errs.map(String);

test('validation: upstream messages for bad rules, subjects, roleRefs and selectors', () => {
  assert.deepEqual(messages(roles.strategy.validate!(obj({ rules: [{}] }))), [
    'rules[0].verbs: Required value: verbs must contain at least one value',
    'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
    'rules[0].resources: Required value: resource rules must supply at least one resource',
  ]);
  assert.deepEqual(messages(roles.strategy.validate!(obj({ rules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] }))), [
    'rules[0].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs',
  ]);
  assert.deepEqual(
    messages(
      clusterRoles.strategy.validate!(obj({ rules: [{ verbs: ['get'], nonResourceURLs: ['/x'], resources: ['a'] }] })),
    ),
    [
      'rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs',
    ],
  );
  assert.deepEqual(messages(clusterRoles.strategy.validate!(obj({ aggregationRule: {} }))), [
    'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
  ]);
  assert.deepEqual(
    messages(
      clusterRoles.strategy.validate!(
        obj({ aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Foo' }] }] } }),
      ),
    ),
    [
      'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator: Invalid value: "Foo": not a valid selector operator',
    ],
  );
  const rb = obj({
    roleRef: { apiGroup: 'x', kind: 'ClusterRole' },
    subjects: [{ kind: 'Robot', name: 'r' }, { kind: 'User' }],
  });
  roleBindings.strategy.prepareForCreate!(rb);
  assert.deepEqual(messages(roleBindings.strategy.validate!(rb)), [
    'roleRef.apiGroup: Unsupported value: "x": supported values: "rbac.authorization.k8s.io"',
    'roleRef.name: Required value',
    'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
    'subjects[1].name: Required value',
  ]);
  assert.deepEqual((rb.subjects as { apiGroup?: string }[])[1]!.apiGroup, 'rbac.authorization.k8s.io', 'defaulted');
  const crb = obj({ roleRef: { kind: 'Role', name: 'r' }, subjects: [{ kind: 'ServiceAccount', name: 'sa' }] });
  clusterRoleBindings.strategy.prepareForCreate!(crb);
  assert.deepEqual(messages(clusterRoleBindings.strategy.validate!(crb)), [
    'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
    'subjects[0].namespace: Required value',
  ]);
  const old = obj({ roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'a' } });
  const next = obj({ roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'b' } });
  assert.deepEqual(messages(clusterRoleBindings.strategy.validateUpdate!(next, old)), [
    'roleRef: Invalid value: {"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"b"}: cannot change roleRef',
  ]);
  // RBAC names are path segments: `system:` names are fine, `/` is not.
  assert.deepEqual(clusterRoles.strategy.validateName!('system:x', false), []);
  assert.deepEqual(clusterRoles.strategy.validateName!('a/b', false), ["may not contain '/'"]);
});

test('covers, compactRules and the escalation message', () => {
  const owner = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps', 'pods/*'] }];
  assert.deepEqual(covers(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]), [true, []]);
  assert.equal(
    covers(
      [{ verbs: ['get'], apiGroups: [''], resources: ['*/log'] }],
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }],
    )[0],
    true,
  );
  const [ok, missing] = covers(owner, [
    { verbs: ['get', 'delete'], apiGroups: [''], resources: ['configmaps', 'secrets'] },
  ]);
  assert.equal(ok, false);
  assert.equal(missing.length, 3);
  assert.deepEqual(compactRules(missing), [
    { verbs: ['delete'], apiGroups: [''], resources: ['configmaps'] },
    { verbs: ['get', 'delete'], apiGroups: [''], resources: ['secrets'] },
  ]);
  const resolver: RBACRuleResolver = {
    policyRulesFor: () => ({ rules: owner, errors: [] }),
    roleReferenceRules: () => [],
  };
  assert.equal(
    confirmNoEscalation(resolver, { name: 'alice', groups: ['devs', 'system:authenticated'] }, 'default', [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    ]),
    'user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}',
  );
});

test('checkRBACWrite: escalate and bind verbs, system:masters, aggregationRule needs full authority', async () => {
  const authz = new RBACAuthorizer(
    parseManifests(
      `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: role-writer}
rules:
- {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles, clusterrolebindings], verbs: [create]}
- {apiGroups: [""], resources: [configmaps], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: alice}
subjects: [{kind: User, apiGroup: rbac.authorization.k8s.io, name: alice}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: role-writer}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: binder}
rules: [{apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles], verbs: [bind], resourceNames: [cluster-admin]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: bob}
subjects: [{kind: User, apiGroup: rbac.authorization.k8s.io, name: bob}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: binder}
`,
      't.yaml',
    ),
  );
  const alice = { name: 'alice', groups: ['system:authenticated'] };
  const star = obj({ rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] });
  const write = (
    user: typeof alice,
    o: KubeObject,
    resource: 'clusterroles' | 'clusterrolebindings' = 'clusterroles',
  ) => checkRBACWrite({ resource, namespace: '', name: 'x', user, object: o }, authz, authz);
  await assert.rejects(write(alice, star), (err: unknown) => {
    assert.ok(err instanceof StatusError);
    assert.equal(err.status.code, 403);
    assert.equal(
      err.status.message,
      'clusterroles.rbac.authorization.k8s.io "x" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}',
    );
    return true;
  });
  await write(alice, obj({ rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }] }));
  await assert.rejects(
    write(alice, obj({ rules: [], aggregationRule: { clusterRoleSelectors: [{}] } })),
    /must have cluster-admin privileges to use the aggregationRule/,
  );
  await write({ name: 'root', groups: ['system:masters'] }, star);
  const toAdmin = obj({
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  });
  await assert.rejects(
    write(alice, toAdmin, 'clusterrolebindings'),
    /is attempting to grant RBAC permissions not currently held/,
  );
  await write({ name: 'bob', groups: ['system:authenticated'] }, toAdmin, 'clusterrolebindings');
  const toMissing = obj({ roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'nope' } });
  await assert.rejects(
    write(alice, toMissing, 'clusterrolebindings'),
    /clusterrole.rbac.authorization.k8s.io "nope" not found/,
  );
});

test('reconcile: union of rules, labels and subjects; autoupdate=false protects; roleRef change recreates', () => {
  const expected = parseManifests(
    `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: r, labels: {a: "1"}, annotations: {rbac.authorization.kubernetes.io/autoupdate: "true"}}
rules: [{apiGroups: [""], resources: [pods], verbs: [get, list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: b}
subjects: [{kind: Group, apiGroup: rbac.authorization.k8s.io, name: g}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r}
`,
    'e.yaml',
  );
  const existingRole = obj({
    metadata: { name: 'r', labels: { b: '2' } },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
  });
  const r = reconciled(existingRole, expected[0]!)!;
  assert.equal(r.op, 'update');
  assert.deepEqual(r.object.metadata.labels, { a: '1', b: '2' });
  assert.deepEqual(r.object.rules, [
    { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
  ]);
  assert.equal(reconciled(r.object, expected[0]!), undefined, 'stable');
  const protectedRole = obj({
    metadata: { name: 'r', annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } },
    rules: [],
  });
  assert.equal(reconciled(protectedRole, expected[0]!), undefined);
  const binding = obj({
    metadata: { name: 'b' },
    subjects: [],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'other' },
  });
  assert.equal(reconciled(binding, expected[1]!)!.op, 'recreate');
});

test("bootstrap policy: upstream's objects, each valid, bindings naming roles that exist, admin ⊇ edit ⊇ view", async () => {
  const policy = bootstrapPolicy();
  const count = (kind: string) => policy.filter((o) => o.kind === kind).length;
  assert.deepEqual(
    [count('ClusterRole'), count('ClusterRoleBinding'), count('Role'), count('RoleBinding')],
    [68, 49, 7, 7],
  );
  const strategies = {
    ClusterRole: clusterRoles,
    ClusterRoleBinding: clusterRoleBindings,
    Role: roles,
    RoleBinding: roleBindings,
  };
  const names = new Set(policy.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`));
  for (const o of policy) {
    assert.equal(o.metadata.annotations?.['rbac.authorization.kubernetes.io/autoupdate'], 'true', o.metadata.name);
    assert.equal(o.metadata.labels?.['kubernetes.io/bootstrapping'], 'rbac-defaults', o.metadata.name);
    const errs = strategies[o.kind].strategy.validate!(toObject(o));
    assert.deepEqual(messages(errs), [], `${o.kind} ${o.metadata.name}`);
    if (o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding') {
      const ns = o.roleRef.kind === 'Role' ? (o.metadata.namespace ?? '') : '';
      assert.ok(names.has(`${o.roleRef.kind}/${ns}/${o.roleRef.name}`), `${o.metadata.name} → ${o.roleRef.name}`);
    }
  }
  // Every controller role is bound to its ServiceAccount in kube-system (addControllerRole).
  for (const r of policy.filter((o) => o.kind === 'ClusterRole' && o.metadata.name.startsWith('system:controller:'))) {
    const b = policy.find((o) => o.kind === 'ClusterRoleBinding' && o.metadata.name === r.metadata.name);
    assert.deepEqual(b && 'subjects' in b && b.subjects, [
      { kind: 'ServiceAccount', name: r.metadata.name.slice('system:controller:'.length), namespace: 'kube-system' },
    ]);
  }
  // Aggregation (as the controller computes it) fills the user-facing roles.
  const authz = new RBACAuthorizer(
    ['view', 'edit', 'admin'].map((role) => ({
      kind: 'ClusterRoleBinding' as const,
      metadata: { name: `u-${role}` },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: `u-${role}` }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    })),
  );
  const can = async (user: string, verb: string, resource: string, apiGroup = '') =>
    (
      await authz.authorize({
        user: { name: user, groups: ['system:authenticated'] },
        verb,
        apiGroup,
        apiVersion: 'v1',
        resource,
        namespace: 'team',
        isResourceRequest: true,
      } as never)
    ).decision === 'Allow';
  assert.ok(await can('u-view', 'list', 'configmaps'));
  assert.ok(!(await can('u-view', 'list', 'secrets')));
  assert.ok(!(await can('u-view', 'create', 'configmaps')));
  assert.ok(await can('u-edit', 'list', 'configmaps'));
  assert.ok(await can('u-edit', 'create', 'secrets'));
  assert.ok(!(await can('u-edit', 'create', 'rolebindings', 'rbac.authorization.k8s.io')));
  assert.ok(await can('u-admin', 'create', 'rolebindings', 'rbac.authorization.k8s.io'));
  assert.ok(await can('u-admin', 'list', 'configmaps'));
  // A controller's identity holds its role.
  assert.ok(
    (
      await authz.authorize({
        user: { name: 'system:serviceaccount:kube-system:namespace-controller', groups: ['system:serviceaccounts'] },
        verb: 'deletecollection',
        apiGroup: '',
        apiVersion: 'v1',
        resource: 'configmaps',
        namespace: 'team',
        isResourceRequest: true,
      } as never)
    ).decision === 'Allow',
  );
});
