import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPolicyFromBytes, loadPolicyFromFile, newPolicyRuleEvaluator, PolicyError } from './policy.ts';
import { MemoryFileSystem } from '../util/filesystem.ts';
import type { Attributes } from '../authorization/authorizer.ts';
import type { Logger } from '../util/logger.ts';

const head = 'apiVersion: audit.k8s.io/v1\nkind: Policy\n';

function warnings(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, enabled: () => false, info: () => {}, warning: (m) => lines.push(m), error: (m) => lines.push(m) };
}

function rejects(text: string, message: string) {
  assert.throws(
    () => loadPolicyFromBytes(text),
    (err: Error) => {
      assert.ok(err instanceof PolicyError);
      assert.equal(err.message, message);
      return true;
    },
  );
}

test('policy: an unknown level is rejected with upstream field error text', () => {
  rejects(
    head + 'rules:\n- level: Verbose\n',
    'rules[0].level: Unsupported value: "Verbose": supported values: "None", "Metadata", "Request", "RequestResponse"',
  );
  rejects(head + 'rules:\n- users: [a]\n', 'rules[0].level: Required value');
});

test('policy: several validation errors are aggregated', () => {
  rejects(
    head +
      'omitStages: [Sometimes]\nrules:\n- level: Metadata\n  nonResourceURLs: ["healthz", "/a*b"]\n  namespaces: [x]\n- level: Request\n  resources: [{group: "Apps_", resourceNames: [n]}]\n',
    '[omitStages[0]: Invalid value: "Sometimes": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic, ' +
      `rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a '/' character, ` +
      `rules[0].nonResourceURLs[1]: Invalid value: "/a*b": non-resource URL wildcards '*' must be the final character of the rule, ` +
      'rules[0].nonResourceURLs: Invalid value: []string{"healthz", "/a*b"}: rules cannot apply to both regular resources and non-resource URLs, ' +
      `rules[1].resources.group: Invalid value: "Apps_": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), ` +
      'rules[1].resources.resourceNames: Invalid value: []string{"n"}: using resourceNames requires at least one resource]',
  );
});

test('policy: bad YAML, wrong types, missing kind, wrong version, no rules', () => {
  assert.throws(
    () => loadPolicyFromBytes(head + 'rules:\n- level: [Metadata\n'),
    /^PolicyError: failed decoding: yaml: line 5: Flow sequence/,
  );
  rejects(
    head + 'rules:\n- level: Metadata\n  users: alice\n',
    'failed decoding: json: cannot unmarshal string into Go struct field PolicyRule.rules.users of type []string',
  );
  rejects(
    head + 'rules: {}\n',
    'failed decoding: json: cannot unmarshal object into Go struct field Policy.rules of type []v1.PolicyRule',
  );
  rejects(
    'apiVersion: audit.k8s.io/v1\nrules: []\n',
    `failed decoding: Object 'Kind' is missing in '{"apiVersion":"audit.k8s.io/v1","rules":[]}'`,
  );
  rejects(
    'apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: []\n',
    'failed decoding: no kind "Policy" is registered for version "audit.k8s.io/v1beta1" in scheme "pkg/audit/scheme.go:30"',
  );
  rejects(head + 'rules: []\n', 'loaded illegal policy with 0 rules');
  rejects(head, 'loaded illegal policy with 0 rules');
});

test('policy: unknown fields fall back to lenient decoding with a warning (as upstream)', () => {
  const log = warnings();
  const p = loadPolicyFromBytes(
    head +
      'metadata: {name: x}\nrules:\n- level: Metadata\n  verb: [get]\n  resources: [{group: "", resource: [pods]}]\n',
    log,
  );
  assert.equal(p.rules.length, 1);
  assert.deepEqual(log.lines, [
    'Audit policy contains errors, falling back to lenient decoding: strict decoding error: unknown field "rules[0].verb", unknown field "rules[0].resources[0].resource"',
  ]);
  // The misspelt field is ignored, so the rule matches everything.
  assert.equal(newPolicyRuleEvaluator(p).evaluatePolicyRule(attrs({ verb: 'delete' })).level, 'Metadata');
});

test('policy: JSON is accepted too', () => {
  const p = loadPolicyFromBytes('{"apiVersion":"audit.k8s.io/v1","kind":"Policy","rules":[{"level":"Request"}]}');
  assert.equal(p.rules[0]!.level, 'Request');
});

test('policy: errors from a file name the file', async () => {
  const fs = new MemoryFileSystem({ '/etc/audit/policy.yaml': head + 'rules:\n- level: Loud\n' });
  await assert.rejects(loadPolicyFromFile(fs, '/etc/audit/policy.yaml'), {
    message:
      'rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse": from file /etc/audit/policy.yaml',
  });
  await assert.rejects(loadPolicyFromFile(fs, '/nope.yaml'), {
    message: 'failed to read file path "/nope.yaml": open /nope.yaml: no such file or directory',
  });
});

function attrs(a: Partial<Attributes> & { user?: Attributes['user'] }): Attributes {
  return {
    verb: 'get',
    isResourceRequest: true,
    path: '/api/v1/namespaces/default/pods/p',
    namespace: 'default',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: '',
    name: 'p',
    user: { name: 'alice', groups: ['dev', 'system:authenticated'] },
    ...a,
  };
}

const nonResource = (path: string, verb = 'get'): Partial<Attributes> => ({
  isResourceRequest: false,
  path,
  verb,
  namespace: '',
  resource: '',
  name: '',
  apiVersion: '',
});

test('policy matching table (first matching rule wins; no match → None)', () => {
  const policy = loadPolicyFromBytes(
    head +
      `omitStages: [RequestReceived]
rules:
- level: None
  users: ["system:kube-proxy"]
  verbs: [watch]
- level: None
  userGroups: ["system:nodes"]
  verbs: [get]
  resources: [{group: "", resources: [nodes, nodes/status]}]
- level: RequestResponse
  resources: [{group: "", resources: [pods/log, "*/exec"]}]
- level: Request
  resources: [{group: "apps", resources: ["deployments/*"]}]
- level: Request
  resources: [{group: "*", resources: [configmaps], resourceNames: [special]}]
- level: Metadata
  namespaces: ["kube-system", ""]
  omitStages: [ResponseStarted]
- level: None
  nonResourceURLs: ["/healthz*", "/version"]
- level: Metadata
  nonResourceURLs: ["/api*"]
- level: RequestResponse
  verbs: [delete]
  resources: [{group: rbac.authorization.k8s.io}]
`,
  );
  const ev = newPolicyRuleEvaluator(policy);
  const level = (a: Partial<Attributes>) => ev.evaluatePolicyRule(attrs(a)).level;
  const rows: [Partial<Attributes>, string][] = [
    [{ user: { name: 'system:kube-proxy' }, verb: 'watch' }, 'None'],
    [{ user: { name: 'system:kube-proxy' }, verb: 'list' }, 'None'], // falls to the end: no rule
    [{ user: { name: 'kubelet', groups: ['system:nodes'] }, resource: 'nodes', namespace: '', name: 'n1' }, 'None'],
    [
      { user: { name: 'kubelet', groups: ['system:nodes'] }, resource: 'nodes', subresource: 'status', namespace: '' },
      'None',
    ],
    [
      { user: { name: 'kubelet', groups: ['system:nodes'] }, resource: 'nodes', subresource: 'proxy', namespace: '' },
      'Metadata',
    ],
    [{ resource: 'pods', subresource: 'log' }, 'RequestResponse'],
    [{ resource: 'pods', subresource: 'exec' }, 'RequestResponse'],
    [{ resource: 'nodes', subresource: 'exec', namespace: '' }, 'RequestResponse'],
    [{ apiGroup: 'apps', resource: 'deployments', subresource: 'scale' }, 'Request'],
    [{ apiGroup: 'apps', resource: 'deployments' }, 'Request'], // res/* matches the bare resource
    [{ apiGroup: 'extensions', resource: 'deployments' }, 'None'],
    [{ apiGroup: 'x.io', resource: 'configmaps', name: 'special' }, 'Request'],
    [{ resource: 'configmaps', name: 'other' }, 'None'],
    [{ resource: 'configmaps', name: 'other', namespace: 'kube-system' }, 'Metadata'],
    [{ resource: 'namespaces', name: 'x', namespace: '' }, 'Metadata'],
    [nonResource('/healthz'), 'None'],
    [nonResource('/healthz/etcd'), 'None'],
    [nonResource('/version'), 'None'],
    [nonResource('/version/x'), 'None'],
    [nonResource('/apis'), 'Metadata'],
    [nonResource('/openapi/v2'), 'None'],
    [{ apiGroup: 'rbac.authorization.k8s.io', resource: 'roles', verb: 'delete' }, 'RequestResponse'],
    [{ apiGroup: 'rbac.authorization.k8s.io', resource: 'roles', verb: 'get' }, 'None'],
    [{ user: undefined, resource: 'secrets' }, 'None'],
  ];
  for (const [a, want] of rows) assert.equal(level(a), want, JSON.stringify(a));
  // omitStages: policy-level unioned into each rule; no match keeps the policy's.
  assert.deepEqual([...ev.evaluatePolicyRule(attrs({ resource: 'namespaces', namespace: '' })).omitStages].sort(), [
    'RequestReceived',
    'ResponseStarted',
  ]);
  assert.deepEqual(ev.evaluatePolicyRule(attrs({ resource: 'secrets' })).omitStages, ['RequestReceived']);
});

test('policy: omitManagedFields — rule value overrides the policy default', () => {
  const ev = newPolicyRuleEvaluator(
    loadPolicyFromBytes(
      head +
        'omitManagedFields: true\nrules:\n- level: Request\n  verbs: [create]\n  omitManagedFields: false\n- level: Request\n',
    ),
  );
  assert.equal(ev.evaluatePolicyRule(attrs({ verb: 'create' })).omitManagedFields, false);
  assert.equal(ev.evaluatePolicyRule(attrs({ verb: 'update' })).omitManagedFields, true);
});
