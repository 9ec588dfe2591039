import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attributes, type Attributes } from './authorizer.ts';
import { RBACAuthorizer, ruleAllows } from './rbac.ts';
import { parseManifests, ManifestError, type PolicyRule } from './rbac-policy.ts';
import { ManifestLoader, readManifests } from './rbac-loader.ts';
import { UnionRuleResolver } from './union.ts';
import type { FileSystem } from '../util/filesystem.ts';
import { discardLogger } from '../util/logger.ts';

const res = (verb: string, resource: string, extra: Partial<Attributes> = {}): Attributes =>
  attributes({ verb, resource, isResourceRequest: true, ...extra });
const nonRes = (verb: string, path: string): Attributes => attributes({ verb, path });

test('RuleAllows: resource rules (verbs, groups, resources, subresources, names)', () => {
  const cases: [PolicyRule, Attributes, boolean][] = [
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('get', 'pods'), true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('list', 'pods'), false],
    [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }, res('delete', 'pods'), true],
    [{ verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] }, res('get', 'pods'), false],
    [
      { verbs: ['get'], apiGroups: ['*'], resources: ['deployments'] },
      res('get', 'deployments', { apiGroup: 'apps' }),
      true,
    ],
    [{ verbs: ['get'], apiGroups: [''], resources: ['*'] }, res('get', 'pods', { subresource: 'log' }), true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('get', 'pods', { subresource: 'log' }), false],
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, res('get', 'pods', { subresource: 'log' }), true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, res('get', 'pods'), false],
    [{ verbs: ['get'], apiGroups: [''], resources: ['*/log'] }, res('get', 'pods', { subresource: 'log' }), true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['*/log'] }, res('get', 'pods'), false],
    [{ verbs: ['get'], apiGroups: [''], resources: ['*/status'] }, res('get', 'pods', { subresource: 'log' }), false],
    // pods/* is not a wildcard in RBAC.
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods/*'] }, res('get', 'pods', { subresource: 'log' }), false],
    [
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      res('get', 'pods', { name: 'a' }),
      true,
    ],
    [
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      res('get', 'pods', { name: 'b' }),
      false,
    ],
    [{ verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }, res('list', 'pods'), false],
    // Case-sensitive, exact.
    [{ verbs: ['GET'], apiGroups: [''], resources: ['pods'] }, res('get', 'pods'), false],
    // A resource rule never matches a non-resource request.
    [{ verbs: ['get'], apiGroups: ['*'], resources: ['*'] }, nonRes('get', '/healthz'), false],
  ];
  for (const [rule, a, want] of cases)
    assert.equal(ruleAllows(a, rule), want, `${JSON.stringify(rule)} ${JSON.stringify(a)}`);
});

test('RuleAllows: non-resource URLs (exact, *, trailing-* prefixes)', () => {
  const cases: [string[], string, boolean][] = [
    [['/healthz'], '/healthz', true],
    [['/healthz'], '/healthz/ping', false],
    [['/healthz*'], '/healthz/ping', true],
    [['/healthz/*'], '/healthz', false],
    [['/apis/*'], '/apis/apps/v1', true],
    [['/api**'], '/apis', true],
    [['*'], '/anything', true],
    [['/version/'], '/version', false],
  ];
  for (const [urls, path, want] of cases) {
    assert.equal(ruleAllows(nonRes('get', path), { verbs: ['get'], nonResourceURLs: urls }), want, `${urls} ${path}`);
  }
  assert.equal(ruleAllows(nonRes('post', '/healthz'), { verbs: ['get'], nonResourceURLs: ['*'] }), false);
});

const manifests = `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-reader, namespace: team}
rules:
- apiGroups: [""]
  resources: [pods, pods/log]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: read-pods, namespace: team}
subjects:
- {kind: User, apiGroup: rbac.authorization.k8s.io, name: alice}
- {kind: ServiceAccount, name: builder}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: deploy-viewer
  labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}
rules:
- {apiGroups: [apps], resources: [deployments], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: viewers}
subjects: [{kind: Group, apiGroup: rbac.authorization.k8s.io, name: viewers}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: dangling, namespace: other}
subjects: [{kind: User, apiGroup: rbac.authorization.k8s.io, name: bob}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: missing}
`;

test('RBAC authorizer: bindings, service accounts, reasons, aggregation, bootstrap policy', async () => {
  const authz = new RBACAuthorizer(parseManifests(manifests, 'policy.yaml'));
  const alice = { name: 'alice', groups: ['system:authenticated'] };
  let r = await authz.authorize(res('get', 'pods', { user: alice, namespace: 'team' }));
  assert.deepEqual(r, {
    decision: 'Allow',
    reason: 'RBAC: allowed by RoleBinding "read-pods/team" of Role "pod-reader" to User "alice"',
  });
  r = await authz.authorize(res('get', 'pods', { user: alice, namespace: 'default' }));
  assert.deepEqual(r, { decision: 'NoOpinion', reason: '' });
  r = await authz.authorize(res('delete', 'pods', { user: alice, namespace: 'team' }));
  assert.equal(r.decision, 'NoOpinion');
  // A ServiceAccount subject without namespace takes the binding's.
  const sa = {
    name: 'system:serviceaccount:team:builder',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'],
  };
  r = await authz.authorize(res('list', 'pods', { user: sa, namespace: 'team', subresource: 'log' }));
  assert.equal(
    r.reason,
    'RBAC: allowed by RoleBinding "read-pods/team" of Role "pod-reader" to ServiceAccount "builder/team"',
  );
  // Aggregation: view gets deploy-viewer's rules.
  r = await authz.authorize(
    res('get', 'deployments', { user: { name: 'carol', groups: ['viewers'] }, apiGroup: 'apps', namespace: 'x' }),
  );
  assert.deepEqual(r, {
    decision: 'Allow',
    reason: 'RBAC: allowed by ClusterRoleBinding "viewers" of ClusterRole "view" to Group "viewers"',
  });
  // Missing role: NoOpinion with the resolution error as reason.
  r = await authz.authorize(res('get', 'pods', { user: { name: 'bob' }, namespace: 'other' }));
  assert.deepEqual(r, { decision: 'NoOpinion', reason: 'RBAC: role.rbac.authorization.k8s.io "missing" not found' });
  // Bootstrap: masters do everything, authenticated users discover and self-review, everyone sees health and version.
  r = await authz.authorize(
    res('delete', 'secrets', { user: { name: 'root', groups: ['system:masters'] }, namespace: 'x' }),
  );
  assert.equal(
    r.reason,
    'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"',
  );
  const anon = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
  for (const p of ['/healthz', '/livez', '/readyz', '/version', '/version/'])
    assert.equal((await authz.authorize(attributes({ verb: 'get', path: p, user: anon }))).decision, 'Allow', p);
  for (const p of ['/apis', '/api/v1', '/metrics', '/openapi/v3', '/healthz/ping'])
    assert.equal((await authz.authorize(attributes({ verb: 'get', path: p, user: anon }))).decision, 'NoOpinion', p);
  assert.equal((await authz.authorize(attributes({ verb: 'get', path: '/apis', user: alice }))).decision, 'Allow');
  assert.equal(
    (
      await authz.authorize(
        res('create', 'selfsubjectaccessreviews', { apiGroup: 'authorization.k8s.io', user: alice }),
      )
    ).decision,
    'Allow',
  );
  assert.equal(
    (await authz.authorize(res('create', 'selfsubjectreviews', { apiGroup: 'authentication.k8s.io', user: alice })))
      .decision,
    'Allow',
  );
  assert.equal(
    (await authz.authorize(res('create', 'subjectaccessreviews', { apiGroup: 'authorization.k8s.io', user: alice })))
      .decision,
    'NoOpinion',
  );
});

test('RBAC rulesFor: cluster and namespace rules, errors reported', async () => {
  const authz = new RBACAuthorizer(parseManifests(manifests, 'policy.yaml'));
  const r = await authz.rulesFor({ name: 'alice', groups: ['system:authenticated'] }, 'team');
  assert.equal(r.incomplete, false);
  assert.deepEqual(r.resourceRules.at(-1), {
    verbs: ['get', 'list'],
    apiGroups: [''],
    resources: ['pods', 'pods/log'],
    resourceNames: [],
  });
  assert.ok(r.nonResourceRules.some((n) => n.nonResourceURLs.includes('/healthz')));
  const bob = await authz.rulesFor({ name: 'bob' }, 'other');
  assert.equal(bob.error?.message, 'role.rbac.authorization.k8s.io "missing" not found');
});

test('RBAC: user manifests with bootstrap names merge unless autoupdate=false', async () => {
  const m = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: system:public-info-viewer, annotations: {rbac.authorization.kubernetes.io/autoupdate: "false"}}
subjects: [{kind: Group, apiGroup: rbac.authorization.k8s.io, name: system:authenticated}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:public-info-viewer}
`;
  const authz = new RBACAuthorizer(parseManifests(m, 'm.yaml'));
  const anon = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
  assert.equal(
    (await authz.authorize(attributes({ verb: 'get', path: '/healthz', user: anon }))).decision,
    'NoOpinion',
  );
  const merged = new RBACAuthorizer(parseManifests(m.replace('"false"', '"true"'), 'm.yaml'));
  assert.equal((await merged.authorize(attributes({ verb: 'get', path: '/healthz', user: anon }))).decision, 'Allow');
});

test('manifests: errors name file and line; JSON and List accepted', () => {
  const bad = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r}
rules:
- apiGroups: [""]
  resources: [pods]
  verbs: []
- nonResourceURLs: [/x]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: b}
subjects:
- {kind: Robot, name: r2}
- {kind: ServiceAccount, name: sa}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}
`;
  assert.throws(
    () => parseManifests(bad, 'bad.yaml'),
    (err: Error) => {
      assert.ok(err instanceof ManifestError);
      assert.equal(
        err.message,
        [
          'bad.yaml:7: Role "r": rules[0].verbs: Required value: verbs must contain at least one value',
          'bad.yaml:8: Role "r": rules[1].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs',
          'bad.yaml:17: ClusterRoleBinding "b": roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
          'bad.yaml:15: ClusterRoleBinding "b": subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
          'bad.yaml:16: ClusterRoleBinding "b": subjects[1].namespace: Required value',
        ].join('\n'),
      );
      return true;
    },
  );
  assert.throws(() => parseManifests('kind: Role\nrules: [\n', 'syntax.yaml'), /^ManifestError: syntax\.yaml:\d+: /);
  assert.throws(
    () => parseManifests('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n', 'cm.yaml'),
    /cm\.yaml:2: ConfigMap "x": kind: Unsupported value: "ConfigMap"/,
  );
  assert.throws(
    () =>
      parseManifests(
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: x}\nrulez: []\n',
        'u.yaml',
      ),
    /u\.yaml:4: ClusterRole "x": unknown field "rulez"/,
  );
  const json = JSON.stringify({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'j' },
        rules: [{ verbs: ['get'], nonResourceURLs: ['/j'] }],
      },
    ],
  });
  const objs = parseManifests(json, 'list.json');
  assert.equal(objs.length, 1);
  assert.equal(objs[0]!.metadata.name, 'j');
});

class WatchableFS implements FileSystem {
  texts: Record<string, string>;
  listeners = new Map<string, () => void>();
  constructor(files: Record<string, string>) {
    this.texts = files;
  }
  async readFile(path: string): Promise<Uint8Array> {
    const v = this.texts[path];
    if (v === undefined) throw new Error(`open ${path}: no such file or directory`);
    return new TextEncoder().encode(v);
  }
  async readDir(path: string): Promise<string[] | undefined> {
    const prefix = path + '/';
    const names = Object.keys(this.texts)
      .filter((k) => k.startsWith(prefix))
      .map((k) => k.slice(prefix.length));
    return names.length ? names : undefined;
  }
  watch(path: string, onChange: () => void): () => void {
    this.listeners.set(path, onChange);
    return () => this.listeners.delete(path);
  }
  change(path: string, text: string): void {
    this.texts[path] = text;
    for (const [p, l] of this.listeners) if (path.startsWith(p)) l();
  }
}

const readerRole = (verb: string) => `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
rules: [{apiGroups: [""], resources: [pods], verbs: [${verb}]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: reader}
subjects: [{kind: User, apiGroup: rbac.authorization.k8s.io, name: dana}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: reader}
`;

test('loader: folders, reload on change, a bad edit keeps the last good policy', async () => {
  const fs = new WatchableFS({
    '/rbac/a.yaml': readerRole('get'),
    '/rbac/notes.txt': 'ignored',
    '/rbac/b.json': '{"apiVersion":"v1","kind":"List","items":[]}',
  });
  assert.equal((await readManifests(fs, ['/rbac'])).length, 2);
  const authz = new RBACAuthorizer();
  const loader = new ManifestLoader({
    fileSystem: fs,
    paths: ['/rbac'],
    authorizer: authz,
    logger: discardLogger,
    debounceMs: 5,
  });
  await loader.load();
  const dana = (verb: string) => authz.authorize(res(verb, 'pods', { user: { name: 'dana' }, namespace: 'x' }));
  assert.equal((await dana('get')).decision, 'Allow');
  loader.watch();
  const waitGen = async (g: number) => {
    for (let i = 0; i < 200 && loader.generation < g && !loader.lastError; i++)
      await new Promise((r) => setTimeout(r, 5));
  };
  fs.change('/rbac/a.yaml', readerRole('list'));
  await waitGen(2);
  assert.equal((await dana('get')).decision, 'NoOpinion');
  assert.equal((await dana('list')).decision, 'Allow');
  fs.change('/rbac/a.yaml', readerRole('list').replace('verbs: [list]', 'verbs: []'));
  for (let i = 0; i < 200 && !loader.lastError; i++) await new Promise((r) => setTimeout(r, 5));
  assert.match(
    loader.lastError!.message,
    /^\/rbac\/a\.yaml:4: ClusterRole "reader": rules\[0\]\.verbs: Required value/,
  );
  assert.equal((await dana('list')).decision, 'Allow', 'last good policy stays');
  await assert.rejects(
    new ManifestLoader({ fileSystem: fs, paths: ['/nope.yaml'], authorizer: authz, logger: discardLogger }).load(),
    /open \/nope\.yaml/,
  );
  loader.stop();
});

test('loader: polling picks up a new file in a folder where the file system cannot watch', async () => {
  const files: Record<string, string> = { '/p/a.yaml': readerRole('get') };
  const fs: FileSystem = {
    readFile: async (p) =>
      files[p] === undefined
        ? Promise.reject(new Error(`open ${p}: no such file or directory`))
        : new TextEncoder().encode(files[p]),
    readDir: async (p) =>
      Object.keys(files)
        .filter((k) => k.startsWith(p + '/'))
        .map((k) => k.slice(p.length + 1)),
  };
  const authz = new RBACAuthorizer();
  const loader = new ManifestLoader({
    fileSystem: fs,
    paths: ['/p'],
    authorizer: authz,
    logger: discardLogger,
    debounceMs: 1,
    pollMs: 10,
  });
  await loader.load();
  loader.watch();
  files['/p/b.yaml'] = readerRole('delete').replace(/name: reader/g, 'name: deleter');
  for (let i = 0; i < 200 && loader.generation < 2; i++) await new Promise((r) => setTimeout(r, 5));
  loader.stop();
  assert.equal(
    (await authz.authorize(res('delete', 'pods', { user: { name: 'dana' }, namespace: 'x' }))).decision,
    'Allow',
  );
});

// More rules than one call takes arguments (V8: ~125k), through the union every server builds.
test('rulesFor through the union: a role with 130,000 rules', async () => {
  const rules = Array.from({ length: 130_000 }, (_, i) => `{verbs: [get], apiGroups: [""], resources: [r${i}]}`);
  const m = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: many}
rules: [${rules.join(',')}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: many}
subjects: [{kind: User, apiGroup: rbac.authorization.k8s.io, name: carol}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: many}
`;
  const union = new UnionRuleResolver([new RBACAuthorizer(parseManifests(m, 'many.yaml'))]);
  const r = await union.rulesFor({ name: 'carol' }, 'default');
  assert.equal(r.resourceRules.length, 130_000);
  assert.deepEqual(r.resourceRules.at(-1)?.resources, ['r129999']);
});
