// Patch and server-side apply end to end: kubectl 1.32 and 1.33 (the pinned binaries) against the
// edge-apiserver CLI over TLS with the admin kubeconfig — patch --type strategic|merge|json,
// apply --server-side (create, update, conflict with its exit code and message,
// --force-conflicts), diff, get --show-managed-fields — and the bad inputs, each with upstream's
// Status and nothing written.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pinnedKubectl, rawRequest, runKubectl, startCLIServer, type CLIServer } from './kubectl-server.ts';

const {
  bins: [kubectl132, kubectl133],
  skip,
} = pinnedKubectl('1.32', '1.33');

const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-apply-'));
let server: CLIServer;

before(async () => {
  if (skip) return;
  server = await startCLIServer(join(dir, 'certs'), []);
  // The namespace the tests use (the system namespaces are created in the background).
  await ok('create', 'namespace', 'ssa');
});

after(() => {
  server?.kill();
  rmSync(dir, { recursive: true, force: true });
});

const run = (bin: string, ...args: string[]) => runKubectl(server, args, undefined, bin);
const k = (...args: string[]) => run(kubectl132!, ...args);

async function ok(...args: string[]): Promise<string> {
  const r = await k(...args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const raw = (method: string, path: string, body?: string, contentType?: string) =>
  rawRequest(server, method, path, { body, contentType, headers: { 'user-agent': 'apply-test/1.0' } });
const json = (r: { body: string }) => JSON.parse(r.body) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}
const cmYAML = (name: string, data: Record<string, string>) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ssa\ndata:\n${Object.entries(data)
    .map(([a, b]) => `  ${a}: "${b}"\n`)
    .join('')}`;

test(
  'kubectl patch: strategic merges finalizers (a set), merge replaces them, json patch, $deleteFromPrimitiveList',
  { skip },
  async () => {
    await ok('create', 'configmap', 'p', '-n', 'ssa', '--from-literal=a=1');
    const fin = () => ok('get', 'cm', 'p', '-n', 'ssa', '-o', 'jsonpath={.metadata.finalizers}');
    await ok('patch', 'cm', 'p', '-n', 'ssa', '--type=merge', '-p', '{"metadata":{"finalizers":["x.io/a"]}}');
    await ok('patch', 'cm', 'p', '-n', 'ssa', '--type=strategic', '-p', '{"metadata":{"finalizers":["x.io/b"]}}');
    // Upstream puts the patch's items first when the server order does not place them.
    assert.equal(await fin(), '["x.io/b","x.io/a"]');
    await ok('patch', 'cm', 'p', '-n', 'ssa', '-p', '{"metadata":{"$deleteFromPrimitiveList/finalizers":["x.io/a"]}}');
    assert.equal(await fin(), '["x.io/b"]');
    await ok('patch', 'cm', 'p', '-n', 'ssa', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]');
    assert.equal(await fin(), '');
    // `$patch: replace` on a map; null deletes a key.
    await ok('patch', 'cm', 'p', '-n', 'ssa', '-p', '{"data":{"$patch":"replace","z":"26"}}');
    await ok('patch', 'cm', 'p', '-n', 'ssa', '-p', '{"data":{"y":"25","z":null}}');
    assert.equal(await ok('get', 'cm', 'p', '-n', 'ssa', '-o', 'jsonpath={.data}'), '{"y":"25"}');
    // Every write recorded its manager: kubectl-create, then kubectl-patch (Update entries).
    const y = await ok('get', 'cm', 'p', '-n', 'ssa', '-o', 'yaml', '--show-managed-fields');
    assert.match(y, /manager: kubectl-create\n\s+operation: Update/);
    assert.match(y, /manager: kubectl-patch\n\s+operation: Update/);
    assert.doesNotMatch(await ok('get', 'cm', 'p', '-n', 'ssa', '-o', 'yaml'), /managedFields/);
  },
);

test(
  'kubectl apply --server-side: create, update, conflict (exit 1, message), --force-conflicts',
  { skip },
  async () => {
    const f = file('ssa.yaml', cmYAML('s', { k: 'v1', keep: 'x' }));
    let out = await ok('apply', '--server-side', '--validate=false', '-f', f);
    assert.match(out, /^configmap\/s serverside-applied$/m);
    let live = json(await raw('GET', '/api/v1/namespaces/ssa/configmaps/s'));
    assert.deepEqual(live.data, { k: 'v1', keep: 'x' });
    assert.deepEqual(
      live.metadata.managedFields.map((e: Record<string, unknown>) => [
        e.manager,
        e.operation,
        e.apiVersion,
        e.fieldsType,
        e.fieldsV1,
      ]),
      [['kubectl', 'Apply', 'v1', 'FieldsV1', { 'f:data': { 'f:k': {}, 'f:keep': {} } }]],
    );
    assert.match(live.metadata.managedFields[0].time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // Dropping a field from the configuration removes it.
    writeFileSync(f, cmYAML('s', { k: 'v1' }));
    out = await ok('apply', '--server-side', '--validate=false', '-f', f);
    assert.match(out, /^configmap\/s serverside-applied$/m);
    assert.equal(await ok('get', 'cm', 's', '-n', 'ssa', '-o', 'jsonpath={.data}'), '{"k":"v1"}');
    // Another manager changes the field; re-applying conflicts.
    await ok('patch', 'cm', 's', '-n', 'ssa', '--type=merge', '-p', '{"data":{"k":"edited"}}');
    const before = json(await raw('GET', '/api/v1/namespaces/ssa/configmaps/s')).metadata.resourceVersion;
    const r = await k('apply', '--server-side', '--validate=false', '-f', f);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: \.data\.k/);
    assert.equal(json(await raw('GET', '/api/v1/namespaces/ssa/configmaps/s')).metadata.resourceVersion, before);
    // The Status itself.
    const c = await raw(
      'PATCH',
      '/api/v1/namespaces/ssa/configmaps/s?fieldManager=kubectl',
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 's' }, data: { k: 'v1' } }),
      'application/apply-patch+yaml',
    );
    assert.equal(c.status, 409);
    assert.deepEqual(json(c), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: .data.k',
      reason: 'Conflict',
      details: {
        causes: [
          { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-patch" using v1', field: '.data.k' },
        ],
      },
      code: 409,
    });
    out = await ok('apply', '--server-side', '--force-conflicts', '--validate=false', '-f', f);
    assert.match(out, /^configmap\/s serverside-applied$/m);
    live = json(await raw('GET', '/api/v1/namespaces/ssa/configmaps/s'));
    assert.deepEqual(live.data, { k: 'v1' });
    const owners = Object.fromEntries(
      live.metadata.managedFields.map((e: Record<string, unknown>) => [e.manager, e.fieldsV1]),
    );
    assert.deepEqual(owners.kubectl, { 'f:data': { 'f:k': {} } });
    assert.equal(owners['kubectl-patch'], undefined);
    // --show-managed-fields is kubectl's own filter: the server always sends them.
    assert.match(
      await ok('get', 'cm', 's', '-n', 'ssa', '-o', 'yaml', '--show-managed-fields'),
      /manager: kubectl\n\s+operation: Apply/,
    );
    assert.doesNotMatch(await ok('get', 'cm', 's', '-n', 'ssa', '-o', 'yaml'), /managedFields/);
  },
);

test('kubectl 1.33: apply --server-side and client-side apply upgraded to server-side', { skip }, async () => {
  const f = file('csa.yaml', cmYAML('csa', { a: '1' }));
  let r = await run(kubectl133!, 'apply', '--validate=false', '-f', f);
  assert.equal(r.code, 0, r.stderr);
  writeFileSync(f, cmYAML('csa', { a: '2' }));
  r = await run(kubectl133!, 'apply', '--server-side', '--validate=false', '-f', f);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /configmap\/csa serverside-applied/);
  const live = json(await raw('GET', '/api/v1/namespaces/ssa/configmaps/csa'));
  assert.deepEqual(live.data, { a: '2' });
  // The server keeps kubectl's last-applied annotation in step with what was applied.
  const last = JSON.parse(live.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
  assert.deepEqual(last.data, { a: '2' });
});

test('kubectl diff: client-side and --server-side dry runs show the change and write nothing', { skip }, async () => {
  const f = file('diff.yaml', cmYAML('d', { k: 'one' }));
  await ok('apply', '--server-side', '--validate=false', '-f', f);
  const rv = json(await raw('GET', '/api/v1/namespaces/ssa/configmaps/d')).metadata.resourceVersion;
  writeFileSync(f, cmYAML('d', { k: 'two' }));
  for (const extra of [[], ['--server-side']]) {
    const r = await k('diff', ...extra, '-f', f);
    assert.equal(r.code, 1, `diff ${extra.join(' ')}: ${r.stderr}`);
    assert.match(r.stdout, /^-\s+k: one$/m);
    assert.match(r.stdout, /^\+\s+k: two$/m);
  }
  const now = json(await raw('GET', '/api/v1/namespaces/ssa/configmaps/d'));
  assert.equal(now.metadata.resourceVersion, rv);
  assert.deepEqual(now.data, { k: 'one' });
});

test('bad patches and applies: upstream Status, nothing written', { skip }, async () => {
  await ok('create', 'configmap', 'bad', '-n', 'ssa', '--from-literal=a=1');
  const path = '/api/v1/namespaces/ssa/configmaps/bad';
  const rv = json(await raw('GET', path)).metadata.resourceVersion;
  const smp = 'application/strategic-merge-patch+json';
  const cases: [string, string, string, number, string][] = [
    ['?fieldManager=x', '{"data":', smp, 400, 'invalid JSON patch'],
    ['', '[1]', smp, 400, 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['', '{"metadata":{"$retainKeys":"x"}}', smp, 400, 'invalid patch format of retainKeys'],
    ['', '{"metadata":{"$deleteFromPrimitiveList":["a"]}}', smp, 400, 'invalid patch format of primitive list'],
    ['', '{"data":{"$patch":"frob"}}', smp, 422, 'unknown patch type: frob in map: map[$patch:frob]'],
    [
      '',
      '{"metadata":{"$setElementOrder/finalizers":"x"}}',
      smp,
      422,
      'expected a []interface {}, but received a string',
    ],
    [
      '?force=true',
      '{}',
      smp,
      422,
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    ],
    [
      '',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad"}}',
      'application/apply-patch+yaml',
      422,
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    ],
    ['?fieldManager=t', 'a: [', 'application/apply-patch+yaml', 400, 'error decoding patch: yaml: '],
    [
      '?fieldManager=t',
      '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"bad"}}',
      'application/apply-patch+yaml',
      400,
      'invalid object type: /v1, Kind=Secret, expected /v1, Kind=ConfigMap',
    ],
    [
      '?fieldManager=t',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad","managedFields":[]}}',
      'application/apply-patch+yaml',
      400,
      'metadata.managedFields must be nil',
    ],
    [
      '?fieldManager=t',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other"}}',
      'application/apply-patch+yaml',
      400,
      'the name of the object (other) does not match the name on the URL (bad)',
    ],
    [
      '',
      'x',
      'text/plain',
      415,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    ],
  ];
  for (const [query, body, ct, code, message] of cases) {
    const r = await raw('PATCH', path + query, body, ct);
    assert.equal(r.status, code, `${body}: ${r.body}`);
    const s = json(r);
    assert.equal(s.kind, 'Status');
    assert.ok(String(s.message).startsWith(message), `${body}: ${s.message}`);
  }
  assert.equal(json(await raw('GET', path)).metadata.resourceVersion, rv);
  // Unknown fields in the patched object: 422 with Strict; otherwise dropped (with a warning).
  const strict = await raw(
    'PATCH',
    `${path}?fieldValidation=Strict`,
    '{"spec":{"x":1}}',
    'application/merge-patch+json',
  );
  assert.equal(strict.status, 422, strict.body);
  assert.match(
    json(strict).message,
    /^ "" is invalid: patch: Invalid value: .*: strict decoding error: unknown field "spec"$/,
  );
  const warned = await raw('PATCH', path, '{"spec":{"x":1},"data":{"w":"1"}}', 'application/merge-patch+json');
  assert.equal(warned.status, 200, warned.body);
  assert.equal(json(warned).spec, undefined);
  assert.equal(json(warned).data.w, '1');
  // An apply that would create in a missing namespace.
  const r = await raw(
    'PATCH',
    '/api/v1/namespaces/nope/configmaps/x?fieldManager=t',
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}',
    'application/apply-patch+yaml',
  );
  assert.equal(r.status, 404);
  assert.equal(json(r).message, 'namespaces "nope" not found');
  // A non-apply patch of a missing object.
  assert.equal((await raw('PATCH', '/api/v1/namespaces/ssa/configmaps/missing', '{}', smp)).status, 404);
  // An apply with dryRun=All creates nothing.
  const dry = await raw(
    'PATCH',
    '/api/v1/namespaces/ssa/configmaps/dry?fieldManager=t&dryRun=All',
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dry"},"data":{"a":"b"}}',
    'application/apply-patch+yaml',
  );
  assert.equal(dry.status, 201, dry.body);
  assert.equal((await raw('GET', '/api/v1/namespaces/ssa/configmaps/dry')).status, 404);
  // The User-Agent names the manager when fieldManager is absent.
  await raw('PATCH', path, '{"data":{"b":"2"}}', 'application/merge-patch+json');
  const managers = json(await raw('GET', path)).metadata.managedFields.map((e: { manager: string }) => e.manager);
  assert.ok(managers.includes('apply-test'), managers.join());
});
