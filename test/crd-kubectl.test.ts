// CustomResourceDefinitions end to end over real TLS: the edge-apiserver CLI, kubectl 1.32 (the
// pinned binary) and @kubernetes/client-node's CustomObjectsApi and Watch. Bad CRDs first (with
// upstream's messages), then a CRD applied and Established, custom resources created with their
// defaults and pruning visible, 422s naming the field, printer columns, the status and scale
// subresources, `kubectl get all` through the category, a watch, and `kubectl delete crd`
// removing the objects.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { kubectlSkip as skip, runKubectl, startCLIServer, type CLIServer } from './kubectl-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-crd-'));
let server: CLIServer | undefined;
let url = '';
let config = '';
let token = '';

before(async () => {
  if (skip) return;
  server = await startCLIServer(join(dir, 'certs'), []);
  ({ url, kubeconfig: config, token } = server);
});

after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

// A fresh discovery and OpenAPI cache per call: CRDs change what the server serves between calls.
let cacheN = 0;
function k(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const cache = join(dir, `cache-${cacheN++}`);
  return runKubectl(server!, ['--cache-dir', cache, '--request-timeout=20s', ...args]);
}

async function ok(...args: string[]): Promise<string> {
  const r = await k(...args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function fails(...args: string[]): Promise<string> {
  const r = await k(...args);
  assert.notEqual(r.code, 0, `kubectl ${args.join(' ')} succeeded: ${r.stdout}`);
  return r.stderr;
}

async function raw(
  method: string,
  path: string,
  body?: string,
  contentType = 'application/json',
  extra: Record<string, string> = {},
) {
  const { request } = await import('node:https');
  return new Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }>(
    (resolve, reject) => {
      const req = request(`${url}${path}`, {
        method,
        rejectUnauthorized: false,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined ? { 'content-type': contentType } : {}),
          ...extra,
        },
      });
      req.on('response', (res) => {
        let b = '';
        res
          .setEncoding('utf8')
          .on('data', (d) => (b += d))
          .on('end', () => resolve({ status: res.statusCode!, body: b, headers: res.headers }));
      });
      req.on('error', reject);
      req.end(body);
    },
  );
}

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

const crdYAML = (extra = '') => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wd]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - name: Size
      type: string
      jsonPath: .spec.size
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Ready
      type: string
      jsonPath: .status.conditions[?(@.type=="Ready")].status
      priority: 1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [color]
            properties:
              size: {type: string, enum: [small, large], default: small}
              color: {type: string, pattern: '^[a-z]+$'}
              replicas: {type: integer, minimum: 0, default: 1}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    port: {type: integer}
          status:
            type: object
            properties:
              replicas: {type: integer}
              conditions:
                type: array
                items:
                  type: object
                  properties:
                    type: {type: string}
                    status: {type: string}
${extra}`;

test('bad CRDs are refused with upstream messages', { skip }, async () => {
  const nonStructural = crdYAML().replace('          spec:\n            type: object\n', '          spec:\n');
  let err = await fails('apply', '--validate=false', '-f', file('bad1.yaml', nonStructural));
  assert.match(
    err,
    /The CustomResourceDefinition "widgets\.example\.com" is invalid: spec\.validation\.openAPIV3Schema\.properties\[spec\]\.type: Required value: must not be empty for specified object fields/,
  );
  const twoStorage = crdYAML(`  - name: v2
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object}
`);
  err = await fails('apply', '--validate=false', '-f', file('bad2.yaml', twoStorage));
  assert.match(err, /spec\.versions: Invalid value: .*must have exactly one version marked as storage version/);
  const badName = crdYAML().replace('name: widgets.example.com', 'name: gadgets.example.com');
  err = await fails('apply', '--validate=false', '-f', file('bad3.yaml', badName));
  assert.match(
    err,
    /metadata\.name: Invalid value: "gadgets\.example\.com": must be spec\.names\.plural\+"\."\+spec\.group/,
  );
  const cel = crdYAML().replace(
    '              replicas: {type: integer, minimum: 0, default: 1}\n',
    '              replicas: {type: integer, minimum: 0, default: 1}\n            x-kubernetes-validations:\n            - rule: self.replicas < 10\n',
  );
  err = await fails('apply', '--validate=false', '-f', file('bad4.yaml', cel));
  assert.match(
    err,
    /x-kubernetes-validations\[0\]\.rule: Forbidden: CEL validation rules are not supported by this server: "self\.replicas < 10"/,
  );
  // Webhook conversion: upstream's check of its configuration, then this server's refusal.
  const webhook = (config: string) => crdYAML(`  conversion:\n    strategy: Webhook\n${config}`);
  err = await fails('apply', '--validate=false', '-f', file('bad5.yaml', webhook('')));
  assert.match(err, /spec\.conversion\.webhookClientConfig: Required value: required when strategy is set to Webhook/);
  err = await fails(
    'apply',
    '--validate=false',
    '-f',
    file(
      'bad6.yaml',
      webhook(
        '    webhook:\n      conversionReviewVersions: [v1]\n      clientConfig: {url: "https://convert.example.com"}\n',
      ),
    ),
  );
  assert.match(err, /spec\.conversion\.strategy: Forbidden: Webhook conversion is not supported by this server/);
  // Nothing was stored.
  assert.match(await fails('get', 'crd', 'widgets.example.com'), /NotFound|not found/);
});

test('a CRD is applied, becomes Established and its resources are served', { skip }, async () => {
  assert.match(
    await ok('apply', '--validate=false', '-f', file('crd.yaml', crdYAML())),
    /widgets\.example\.com created/,
  );
  assert.match(
    await ok('wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=20s'),
    /condition met/,
  );
  const crd = JSON.parse(await ok('get', 'crd', 'widgets.example.com', '-o', 'json')) as {
    status: { conditions: { type: string; status: string; reason: string }[]; acceptedNames: { kind: string } };
    metadata: { generation: number };
  };
  assert.deepEqual(
    crd.status.conditions.map((c) => [c.type, c.status, c.reason]),
    [
      ['NamesAccepted', 'True', 'NoConflicts'],
      ['Established', 'True', 'InitialNamesAccepted'],
    ],
  );
  assert.equal(crd.status.acceptedNames.kind, 'Widget');
  assert.equal(crd.metadata.generation, 1);
  // Stored where upstream keeps it (the key layout, visible as the RV-bearing object).
  assert.match(
    await ok('api-resources', '--api-group=example.com'),
    /^widgets\s+wd\s+example\.com\/v1\s+true\s+Widget$/m,
  );
  // A CRD whose short name another CRD of the group has: stored, its names not accepted, not served.
  const gadgets = crdYAML()
    .replace('name: widgets.example.com', 'name: gadgets.example.com')
    .replace('plural: widgets', 'plural: gadgets')
    .replace('singular: widget', 'singular: gadget')
    .replace('kind: Widget', 'kind: Gadget');
  await ok('apply', '--validate=false', '-f', file('gadgets.yaml', gadgets));
  await ok('wait', '--for=condition=NamesAccepted=false', 'crd/gadgets.example.com', '--timeout=20s');
  const g = JSON.parse(await ok('get', 'crd', 'gadgets.example.com', '-o', 'json')) as {
    status: { conditions: { type: string; status: string; reason: string; message: string }[] };
  };
  assert.deepEqual(
    g.status.conditions.map((c) => [c.type, c.status, c.reason, c.message]),
    [
      ['NamesAccepted', 'False', 'ShortNamesConflict', '"wd" is already in use'],
      ['Established', 'False', 'NotAccepted', 'not all names are accepted'],
    ],
  );
  assert.match(await fails('get', 'gadgets'), /the server doesn't have a resource type "gadgets"/);
  await ok('delete', 'crd', 'gadgets.example.com', '--timeout=30s');
});

test('custom resources: defaults, pruning, 422s, printer columns, subresources, get all', { skip }, async () => {
  const cr = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: one
  namespace: default
spec:
  color: blue
  unknownField: 1
status:
  replicas: 7
`;
  const created = await k('create', '--validate=false', '-f', file('cr.yaml', cr));
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, /widget\.example\.com\/one created/);
  // kubectl --validate=false sends fieldValidation=Ignore: the unknown field is pruned silently;
  // the default (Warn) answers a Warning header for it.
  const warned = await raw(
    'POST',
    '/apis/example.com/v1/namespaces/default/widgets?dryRun=All',
    JSON.stringify({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { color: 'a', zz: 1 },
    }),
  );
  assert.equal(warned.status, 201, warned.body);
  assert.equal(warned.headers.warning, '299 - "unknown field \\"spec.zz\\""');
  assert.equal((JSON.parse(warned.body) as { spec: Record<string, unknown> }).spec.zz, undefined);
  const got = JSON.parse(await ok('get', 'widget', 'one', '-n', 'default', '-o', 'json')) as Record<string, unknown>;
  assert.deepEqual(got.spec, { color: 'blue', size: 'small', replicas: 1 });
  assert.equal(got.status, undefined, 'status is ignored on the main resource');

  // Invalid objects: upstream's 422 messages naming the fields.
  const bad = cr
    .replace('name: one', 'name: two')
    .replace('color: blue', 'color: Blue\n  size: medium\n  replicas: -1');
  const err = await fails('create', '--validate=false', '-f', file('bad-cr.yaml', bad));
  assert.match(err, /The Widget "two" is invalid: /);
  assert.match(err, /spec\.size: Unsupported value: "medium": supported values: "small", "large"/);
  assert.match(err, /spec\.color: Invalid value: "Blue": spec\.color in body should match '\^\[a-z\]\+\$'/);
  assert.match(err, /spec\.replicas: Invalid value: -1: spec\.replicas in body should be greater than or equal to 0/);
  const missing = await fails(
    'create',
    '--validate=false',
    '-f',
    file('missing.yaml', cr.replace('name: one', 'name: three').replace('  color: blue\n', '')),
  );
  assert.match(missing, /spec\.color: Required value/);
  // The 422 body over the wire: Status with causes.
  const r = await raw(
    'POST',
    '/apis/example.com/v1/namespaces/default/widgets',
    JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x' }, spec: { color: 1 } }),
  );
  assert.equal(r.status, 422);
  assert.deepEqual(JSON.parse(r.body), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message:
      'Widget.example.com "x" is invalid: spec.color: Invalid value: "integer": spec.color in body must be of type string: "integer"',
    reason: 'Invalid',
    details: {
      name: 'x',
      group: 'example.com',
      kind: 'Widget',
      causes: [
        {
          reason: 'FieldValueTypeInvalid',
          message: 'Invalid value: "integer": spec.color in body must be of type string: "integer"',
          field: 'spec.color',
        },
      ],
    },
    code: 422,
  });
  // fieldValidation=Strict reports the pruned field as upstream's strict decoding error.
  const strict = await raw(
    'POST',
    '/apis/example.com/v1/namespaces/default/widgets?fieldValidation=Strict',
    JSON.stringify({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'y' },
      spec: { color: 'a', zz: 1 },
    }),
  );
  assert.equal(strict.status, 400);
  assert.equal(
    (JSON.parse(strict.body) as { message: string }).message,
    'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.zz"',
  );

  // Printer columns; priority 1 only with -o wide.
  assert.match(await ok('get', 'widgets', '-n', 'default'), /^NAME\s+SIZE\s+REPLICAS$\n^one\s+small\s+1$/m);
  // Status subresource, then -o wide shows the Ready column.
  await ok(
    'patch',
    'widget',
    'one',
    '-n',
    'default',
    '--subresource=status',
    '--type=merge',
    '-p',
    '{"status":{"replicas":2,"conditions":[{"type":"Ready","status":"True"}]},"spec":{"color":"ignored"}}',
  );
  const afterStatus = JSON.parse(await ok('get', 'wd', 'one', '-n', 'default', '-o', 'json')) as {
    spec: { color: string };
    status: { replicas: number };
    metadata: { generation: number };
  };
  assert.equal(afterStatus.spec.color, 'blue', 'spec is ignored on /status');
  assert.equal(afterStatus.status.replicas, 2);
  assert.equal(afterStatus.metadata.generation, 1, 'a status change does not bump the generation');
  assert.match(await ok('get', 'widgets', '-n', 'default', '-o', 'wide'), /^one\s+small\s+1\s+True$/m);
  // Scale subresource.
  assert.match(await ok('scale', 'widget', 'one', '-n', 'default', '--replicas=3'), /widget\.example\.com\/one scaled/);
  const scaled = JSON.parse(await ok('get', 'widget', 'one', '-n', 'default', '-o', 'json')) as {
    spec: { replicas: number };
    metadata: { generation: number };
  };
  assert.equal(scaled.spec.replicas, 3);
  assert.equal(scaled.metadata.generation, 2, 'a spec change bumps the generation');
  const scale = JSON.parse((await raw('GET', '/apis/example.com/v1/namespaces/default/widgets/one/scale')).body) as {
    kind: string;
    spec: { replicas: number };
    status: { replicas: number };
  };
  assert.deepEqual([scale.kind, scale.spec.replicas, scale.status.replicas], ['Scale', 3, 2]);
  // Categories: `kubectl get all` includes widgets (the only resource in `all` here).
  assert.match(
    await ok('get', 'all', '-n', 'default'),
    /^NAME\s+SIZE\s+REPLICAS$\n^widget\.example\.com\/one\s+small\s+3$/m,
  );
  // Merge patch of the main resource prunes and validates too.
  const p = await fails('patch', 'widget', 'one', '-n', 'default', '--type=merge', '-p', '{"spec":{"size":"huge"}}');
  assert.match(p, /spec\.size: Unsupported value: "huge"/);
  const smp = await raw(
    'PATCH',
    '/apis/example.com/v1/namespaces/default/widgets/one',
    '{}',
    'application/strategic-merge-patch+json',
  );
  assert.equal(smp.status, 415);
});

test('RBAC: a Role for the custom resource', { skip }, async () => {
  const rbac = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: widget-reader, namespace: default}
rules:
- apiGroups: [example.com]
  resources: [widgets]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: jane-reads-widgets, namespace: default}
subjects:
- {kind: User, name: jane, apiGroup: rbac.authorization.k8s.io}
roleRef: {kind: Role, name: widget-reader, apiGroup: rbac.authorization.k8s.io}
`;
  await ok('apply', '-f', file('rbac.yaml', rbac));
  assert.equal((await ok('auth', 'can-i', 'list', 'widgets.example.com', '-n', 'default', '--as=jane')).trim(), 'yes');
  assert.match(await ok('get', 'widgets', '-n', 'default', '--as=jane'), /^one\s+small\s+3$/m);
  assert.match(
    await fails('delete', 'widget', 'one', '-n', 'default', '--as=jane'),
    /Error from server \(Forbidden\): widgets\.example\.com "one" is forbidden: User "jane" cannot delete resource "widgets" in API group "example\.com" in the namespace "default"/,
  );
  assert.match(
    await fails('get', 'widgets', '-n', 'kube-system', '--as=jane'),
    /widgets\.example\.com is forbidden: User "jane" cannot list resource "widgets" in API group "example\.com" in the namespace "kube-system"/,
  );
});

test('OpenAPI of the CRD: kubectl explain, kubectl validation, documents follow CRD changes', { skip }, async () => {
  const explain = await ok('explain', 'widget.spec');
  assert.match(explain, /^KIND:\s+Widget$/m);
  assert.match(explain, /^VERSION:\s+v1$/m);
  assert.match(explain, /^ {2}color\t<string> -required-$/m);
  assert.match(explain, /^ {2}size\t<string>\n {2}enum: small, large$/m);
  assert.match(explain, /^ {2}replicas\t<integer>$/m);
  // kubectl's default --validate=strict finds fieldValidation among the CR's patch parameters, so
  // it leaves the check to the server, as against kube-apiserver: the unknown field is refused.
  const unknown = `apiVersion: example.com/v1
kind: Widget
metadata: {name: strict, namespace: default}
spec: {color: red, bogus: 1}
`;
  const err = await fails('create', '-f', file('unknown.yaml', unknown));
  assert.match(
    err,
    /Error from server \(BadRequest\): error when creating ".*unknown\.yaml": Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec\.bogus"/,
  );
  const warned = await k('create', '--validate=warn', '--dry-run=server', '-f', join(dir, 'unknown.yaml'));
  assert.equal(warned.code, 0, warned.stderr);
  assert.match(warned.stderr, /Warning: unknown field "spec\.bogus"/);

  // The group version's document and its ETag change when the CRD does.
  const gvPath = '/openapi/v3/apis/example.com/v1';
  const first = await raw('GET', gvPath);
  assert.equal(first.status, 200);
  const etag = first.headers.etag as string;
  const doc = JSON.parse(first.body) as { components: { schemas: Record<string, { properties?: object }> } };
  const widget = doc.components.schemas['com.example.v1.Widget']!;
  assert.deepEqual(Object.keys(widget.properties!), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
  assert.equal((await raw('GET', gvPath, undefined, undefined, { 'if-none-match': etag })).status, 304);
  const v2 = JSON.parse((await raw('GET', '/openapi/v2')).body) as { definitions: Record<string, unknown> };
  assert.ok(v2.definitions['com.example.v1.Widget'] && v2.definitions['com.example.v1.WidgetList']);
  const changed = crdYAML().replace(
    '              replicas: {type: integer, minimum: 0, default: 1}\n',
    '              replicas: {type: integer, minimum: 0, default: 1}\n              label: {type: string, description: A label added later.}\n',
  );
  await ok('apply', '-f', file('crd-changed.yaml', changed));
  let next = first;
  for (let i = 0; i < 50 && next.headers.etag === etag; i++) {
    await new Promise((r) => setTimeout(r, 100));
    next = await raw('GET', gvPath);
  }
  assert.notEqual(next.headers.etag, etag, 'the ETag follows the CRD');
  assert.match(next.body, /A label added later\./);
  assert.match(await ok('explain', 'widget.spec.label'), /A label added later\./);
  // The discovery document points at the new hash.
  const index = JSON.parse((await raw('GET', '/openapi/v3')).body) as {
    paths: Record<string, { serverRelativeURL: string }>;
  };
  assert.equal(
    index.paths['apis/example.com/v1']!.serverRelativeURL,
    `/openapi/v3/apis/example.com/v1?hash=${JSON.parse(next.headers.etag as string) as string}`,
  );
});

test('client-node: CustomObjectsApi CRUD and a watch', { skip }, async () => {
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(config);
  const api = kc.makeApiClient(k8s.CustomObjectsApi);
  const events: string[] = [];
  const watch = new k8s.Watch(kc);
  const req = await watch.watch(
    '/apis/example.com/v1/namespaces/default/widgets',
    {},
    (type: string, obj: { metadata: { name: string } }) => events.push(`${type} ${obj.metadata.name}`),
    () => {},
  );
  const body = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'cn' }, spec: { color: 'red' } };
  const made = (await api.createNamespacedCustomObject({
    group: 'example.com',
    version: 'v1',
    namespace: 'default',
    plural: 'widgets',
    body,
  })) as { spec: Record<string, unknown> };
  assert.deepEqual(made.spec, { color: 'red', size: 'small', replicas: 1 });
  const got = (await api.getNamespacedCustomObject({
    group: 'example.com',
    version: 'v1',
    namespace: 'default',
    plural: 'widgets',
    name: 'cn',
  })) as { metadata: { name: string } };
  assert.equal(got.metadata.name, 'cn');
  const list = (await api.listClusterCustomObject({ group: 'example.com', version: 'v1', plural: 'widgets' })) as {
    kind: string;
    items: { metadata: { name: string } }[];
  };
  assert.equal(list.kind, 'WidgetList');
  assert.deepEqual(list.items.map((i) => i.metadata.name).sort(), ['cn', 'one']);
  await assert.rejects(
    api.createNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      body: { ...body, metadata: { name: 'bad' }, spec: { color: 'red', size: 'x' } },
    }),
    (e: { code?: number; body?: string }) =>
      e.code === 422 && /spec\.size: Unsupported value: \\"x\\"/.test(String(e.body)),
  );
  await api.deleteNamespacedCustomObject({
    group: 'example.com',
    version: 'v1',
    namespace: 'default',
    plural: 'widgets',
    name: 'cn',
  });
  for (let i = 0; i < 50 && !events.includes('DELETED cn'); i++) await new Promise((r) => setTimeout(r, 100));
  (req as { abort(): void }).abort();
  assert.ok(events.includes('ADDED cn'), events.join(','));
  assert.ok(events.includes('DELETED cn'), events.join(','));
});

test(
  'client-node: an informer on a custom resource (list, then watch adds, updates and deletes)',
  { skip },
  async () => {
    const k8s = await import('@kubernetes/client-node');
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(config);
    const api = kc.makeApiClient(k8s.CustomObjectsApi);
    const gv = { group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets' };
    type Widget = KubernetesObject & { spec?: { color?: string } };
    const informer = k8s.makeInformer<Widget>(
      kc,
      '/apis/example.com/v1/namespaces/default/widgets',
      () => api.listNamespacedCustomObject(gv) as Promise<KubernetesListObject<Widget>>,
    );
    const seen: string[] = [];
    const errors: unknown[] = [];
    informer.on('add', (o) => seen.push(`add ${o.metadata!.name}`));
    informer.on('update', (o) => seen.push(`update ${o.metadata!.name} ${o.spec?.color}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata!.name}`));
    informer.on('error', (e) => errors.push(e));
    const until = async (want: string) => {
      for (let i = 0; i < 100 && !seen.includes(want); i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(seen.includes(want), `${want}: saw ${seen.join(', ')}; errors ${errors.map(String).join(', ')}`);
    };
    await informer.start();
    try {
      await until('add one');
      await api.createNamespacedCustomObject({
        ...gv,
        body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'inf' }, spec: { color: 'red' } },
      });
      await until('add inf');
      await api.patchNamespacedCustomObject(
        { ...gv, name: 'inf', body: { spec: { color: 'blue' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await until('update inf blue');
      // The cache holds the defaulted object.
      const cached = informer.get('inf', 'default') as Widget & { spec: Record<string, unknown> };
      assert.deepEqual(cached.spec, { color: 'blue', size: 'small', replicas: 1 });
      await api.deleteNamespacedCustomObject({ ...gv, name: 'inf' });
      await until('delete inf');
      assert.deepEqual(errors, []);
    } finally {
      await informer.stop();
    }
  },
);

test(
  'server-side apply of custom resources: managedFields by the schema, conflicts, force, pruning',
  { skip },
  async () => {
    // Creates and updates record their managers too.
    const one = JSON.parse(
      await ok('get', 'widget', 'one', '-n', 'default', '-o', 'json', '--show-managed-fields'),
    ) as {
      metadata: { managedFields: { manager: string; operation: string }[] };
    };
    assert.ok(
      one.metadata.managedFields.some((m) => m.manager === 'kubectl-create' && m.operation === 'Update'),
      JSON.stringify(one.metadata.managedFields),
    );

    const manifest = (ports: string) => `apiVersion: example.com/v1
kind: Widget
metadata: {name: ssa, namespace: default}
spec:
  color: green
  ports: [${ports}]
`;
    assert.match(
      await ok('apply', '--server-side', '-f', file('ssa.yaml', manifest('{name: a, port: 1}, {name: b, port: 2}'))),
      /widget\.example\.com\/ssa serverside-applied/,
    );
    type Got = {
      spec: { size: string; ports: { name: string; port: number }[] };
      metadata: { managedFields: { manager: string; operation: string; fieldsV1: Record<string, unknown> }[] };
    };
    const get = async () =>
      JSON.parse(await ok('get', 'widget', 'ssa', '-n', 'default', '-o', 'json', '--show-managed-fields')) as Got;
    let got = await get();
    assert.equal(got.spec.size, 'small', 'defaults apply to applied objects');
    const [entry] = got.metadata.managedFields;
    assert.equal(entry!.manager, 'kubectl');
    assert.equal(entry!.operation, 'Apply');
    // x-kubernetes-list-type: map keyed by name: each item is owned by its key.
    assert.deepEqual(entry!.fieldsV1, {
      'f:spec': {
        'f:color': {},
        'f:ports': {
          'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:port': {} },
          'k:{"name":"b"}': { '.': {}, 'f:name': {}, 'f:port': {} },
        },
      },
    });
    // Another manager changing kubectl's field conflicts, with upstream's message.
    const other = file(
      'ssa-other.yaml',
      manifest('{name: a, port: 5}, {name: c, port: 3}').replace('  color: green\n', ''),
    );
    const conflict = await fails('apply', '--server-side', '--field-manager=other', '-f', other);
    assert.match(conflict, /Apply failed with 1 conflict: conflict with "kubectl": \.spec\.ports\[name="a"\]\.port/);
    await ok('apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', other);
    got = await get();
    assert.deepEqual(
      got.spec.ports,
      [
        { name: 'a', port: 5 },
        { name: 'b', port: 2 },
        { name: 'c', port: 3 },
      ],
      'items merge by key (an atomic list would be replaced)',
    );
    // kubectl applies again without b: what it alone applied goes; what another manager owns stays.
    await ok('apply', '--server-side', '-f', file('ssa.yaml', manifest('{name: a}')));
    got = await get();
    assert.deepEqual(got.spec.ports, [
      { name: 'a', port: 5 },
      { name: 'c', port: 3 },
    ]);
    // A field the schema does not declare: structured-merge-diff's typed error (as a 422 here).
    const undeclared = await fails(
      'apply',
      '--server-side',
      '-f',
      file('ssa-bad.yaml', manifest('{name: a}').replace('  color: green\n', '  color: green\n  bogus: 1\n')),
    );
    assert.match(
      undeclared,
      /failed to create typed patch object \(default\/ssa; example\.com\/v1, Kind=Widget\): \.spec\.bogus: field not declared in schema/,
    );
    // Apply creates; invalid objects get the schema's 422.
    const invalid = await fails(
      'apply',
      '--server-side',
      '-f',
      file('ssa-invalid.yaml', manifest('{name: a}').replace('name: ssa', 'name: ssa2').replace('green', 'Green')),
    );
    assert.match(invalid, /spec\.color: Invalid value: "Green": spec\.color in body should match/);
    // Status in a main-resource apply is reset (the status subresource owns it): no conflict later.
    const mainStatus = await raw(
      'PATCH',
      '/apis/example.com/v1/namespaces/default/widgets/ssa?fieldManager=main',
      'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: ssa}\nstatus: {replicas: 9}\n',
      'application/apply-patch+yaml',
    );
    assert.equal(mainStatus.status, 200, mainStatus.body);
    assert.equal((JSON.parse(mainStatus.body) as { status?: unknown }).status, undefined);
    // Apply through /status owns status only, as its own subresource entry; spec there is reset,
    // so naming kubectl's spec.color is no conflict.
    const status = await raw(
      'PATCH',
      '/apis/example.com/v1/namespaces/default/widgets/ssa/status?fieldManager=ctl',
      'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: ssa}\nstatus: {replicas: 4}\nspec: {color: ignored}\n',
      'application/apply-patch+yaml',
    );
    assert.equal(status.status, 200, status.body);
    got = await get();
    assert.equal((got as unknown as { status: { replicas: number } }).status.replicas, 4);
    assert.equal((got as unknown as { spec: { color: string } }).spec.color, 'green');
    const ctl = got.metadata.managedFields.find((m) => m.manager === 'ctl');
    assert.equal((ctl as { subresource?: string } | undefined)?.subresource, 'status');
    assert.deepEqual(ctl!.fieldsV1, { 'f:status': { 'f:replicas': {} } });
    assert.ok(!got.metadata.managedFields.some((m) => m.manager === 'main'), 'nothing owned through the reset field');
    const missing = await raw(
      'PATCH',
      '/apis/example.com/v1/namespaces/default/widgets/nope/status?fieldManager=ctl',
      'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: nope}\nstatus: {replicas: 4}\n',
      'application/apply-patch+yaml',
    );
    assert.equal(missing.status, 404, missing.body);
    await ok('delete', 'widget', 'ssa', '-n', 'default');
  },
);

test('kubectl delete crd removes its custom resources and stops serving them', { skip }, async () => {
  assert.match(await ok('delete', 'crd', 'widgets.example.com', '--timeout=30s'), /deleted/);
  assert.match(await fails('get', 'widgets', '-n', 'default'), /the server doesn't have a resource type "widgets"/);
  const r = await raw('GET', '/apis/example.com/v1/namespaces/default/widgets');
  assert.equal(r.status, 404);
  // Its OpenAPI goes with it.
  const index = JSON.parse((await raw('GET', '/openapi/v3')).body) as { paths: Record<string, unknown> };
  assert.equal(index.paths['apis/example.com/v1'], undefined);
  assert.ok(index.paths['apis/apiextensions.k8s.io/v1']);
  const v2 = JSON.parse((await raw('GET', '/openapi/v2')).body) as { definitions: Record<string, unknown> };
  assert.equal(v2.definitions['com.example.v1.Widget'], undefined);
  // Re-created, the CRD starts empty: the objects went with the finalizer.
  await ok('apply', '--validate=false', '-f', join(dir, 'crd.yaml'));
  await ok('wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=20s');
  assert.match((await k('get', 'widgets', '-n', 'default')).stderr, /No resources found/);
});
