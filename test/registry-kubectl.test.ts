// The API side end to end: kubectl 1.32 (the pinned binary; 1.33 by registry-kubectl-1.33.test.ts) against the edge-apiserver CLI in its
// secure default, over TLS with the admin kubeconfig: namespaces, configmaps, secrets, leases —
// create / get (-o yaml, name, -l, --field-selector, --chunk-size) / apply / label / patch (json,
// merge, strategic) / replace / delete / get -w — and the bad inputs, each with upstream's Status.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pinnedKubectl, rawRequest, runKubectl, startCLIServer, type CLIServer } from './kubectl-server.ts';

// registry-kubectl-1.33.test.ts runs the same cases with kubectl 1.33.
const version = (globalThis as { registryKubectlVersion?: string }).registryKubectlVersion ?? '1.32';
const { bins, skip } = pinnedKubectl(version);
const kubectl = bins[0]!;

const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-registry-'));
let server: CLIServer;

before(async () => {
  if (!skip) server = await startCLIServer(join(dir, 'certs'), []);
});

after(() => {
  server?.kill();
  rmSync(dir, { recursive: true, force: true });
});

const k = (...args: string[]) => runKubectl(server, args, undefined, kubectl);

async function ok(...args: string[]): Promise<string> {
  const r = await k(...args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const raw = (method: string, path: string, body?: string, contentType?: string) =>
  rawRequest(server, method, path, { body, contentType });

test('the system namespaces exist; kubectl get namespaces shows them with their status', { skip }, async () => {
  let out = '';
  for (let i = 0; i < 50 && !out.includes('kube-node-lease'); i++) {
    out = await ok('get', 'namespaces');
    if (!out.includes('kube-node-lease')) await new Promise((r) => setTimeout(r, 100));
  }
  assert.match(out, /^NAME\s+STATUS\s+AGE$/m);
  for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
    assert.match(out, new RegExp(`^${ns}\\s+Active\\s+\\d+s$`, 'm'));
});

test('create, get, label, patch and delete a ConfigMap', { skip }, async () => {
  assert.match(await ok('create', 'namespace', 'apps'), /namespace\/apps created/);
  assert.match(await ok('create', 'configmap', 'one', '-n', 'apps', '--from-literal=a=1'), /configmap\/one created/);
  assert.match(await ok('get', 'cm', '-n', 'apps'), /^one\s+1\s+\d+s$/m);
  const y = await ok('get', 'cm', 'one', '-n', 'apps', '-o', 'yaml');
  assert.match(y, /^kind: ConfigMap$/m);
  assert.match(y, /^ {2}uid: [0-9a-f-]{36}$/m);
  assert.match(y, /^ {2}resourceVersion: "\d+"$/m);
  await ok('label', 'cm', 'one', '-n', 'apps', 'tier=web');
  assert.match(await ok('get', 'cm', '-n', 'apps', '-l', 'tier=web', '-o', 'name'), /^configmap\/one$/m);
  assert.equal(await ok('get', 'cm', '-n', 'apps', '-l', 'tier=db', '-o', 'name'), '');
  await ok('patch', 'cm', 'one', '-n', 'apps', '--type=merge', '-p', '{"data":{"b":"2"}}');
  await ok('patch', 'cm', 'one', '-n', 'apps', '--type=json', '-p', '[{"op":"replace","path":"/data/a","value":"9"}]');
  await ok('patch', 'cm', 'one', '-n', 'apps', '-p', '{"data":{"c":"3"}}');
  assert.equal(await ok('get', 'cm', 'one', '-n', 'apps', '-o', 'jsonpath={.data}'), '{"a":"9","b":"2","c":"3"}');
  assert.match(await ok('delete', 'cm', 'one', '-n', 'apps'), /configmap "one" deleted/);
  const r = await k('get', 'cm', 'one', '-n', 'apps');
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /configmaps "one" not found/);
});

test('apply (client-side, last-applied annotation), replace, chunked list and field selector', { skip }, async () => {
  const file = join(dir, 'cm.yaml');
  const doc = (v: string) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: apps\ndata:\n  k: ${v}\n`;
  writeFileSync(file, doc('v1'));
  assert.match(await ok('apply', '-f', file), /configmap\/applied created/);
  writeFileSync(file, doc('v2'));
  assert.match(await ok('apply', '-f', file), /configmap\/applied configured/);
  assert.equal(await ok('get', 'cm', 'applied', '-n', 'apps', '-o', 'jsonpath={.data.k}'), 'v2');
  assert.match(
    await ok('get', 'cm', 'applied', '-n', 'apps', '-o', 'yaml'),
    /kubectl.kubernetes.io\/last-applied-configuration/,
  );
  writeFileSync(file, doc('v3'));
  assert.match(await ok('replace', '-f', file), /configmap\/applied replaced/);
  for (const n of ['c1', 'c2', 'c3']) await ok('create', 'cm', n, '-n', 'apps');
  assert.equal(
    await ok('get', 'cm', '-n', 'apps', '-o', 'name', '--chunk-size=1'),
    'configmap/applied\nconfigmap/c1\nconfigmap/c2\nconfigmap/c3\n',
  );
  assert.equal(
    await ok('get', 'cm', '-n', 'apps', '-o', 'name', '--field-selector', 'metadata.name=c2'),
    'configmap/c2\n',
  );
});

test('get -w sees a change made by another client', { skip }, async () => {
  const w = spawn(kubectl, [
    '--kubeconfig',
    server.kubeconfig,
    '--cache-dir',
    join(dir, 'cache-watch'),
    'get',
    'cm',
    '-n',
    'apps',
    '-w',
    '--request-timeout=20s',
  ]);
  let out = '';
  w.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  try {
    for (let i = 0; i < 100 && !out.includes('applied'); i++) await new Promise((r) => setTimeout(r, 50));
    await ok('create', 'cm', 'watched', '-n', 'apps', '--from-literal=x=y');
    for (let i = 0; i < 100 && !out.includes('watched'); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(out, /^watched\s+1\s+\d+s$/m);
  } finally {
    w.kill();
  }
});

test('secrets: stringData is folded into base64 data; leases in coordination.k8s.io', { skip }, async () => {
  await ok('create', 'secret', 'generic', 's1', '-n', 'apps', '--from-literal=password=hunter2');
  assert.equal(
    await ok('get', 'secret', 's1', '-n', 'apps', '-o', 'jsonpath={.data.password}'),
    Buffer.from('hunter2').toString('base64'),
  );
  const created = await raw(
    'POST',
    '/api/v1/namespaces/apps/secrets',
    JSON.stringify({ metadata: { name: 's2' }, stringData: { u: 'é' } }),
  );
  assert.equal(created.status, 201);
  assert.deepEqual(JSON.parse(created.body).data, { u: Buffer.from('é').toString('base64') });
  assert.equal(JSON.parse(created.body).type, 'Opaque');
  const lease = await raw(
    'POST',
    '/apis/coordination.k8s.io/v1/namespaces/apps/leases',
    JSON.stringify({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'leader' },
      spec: { holderIdentity: 'me', leaseDurationSeconds: 15 },
    }),
  );
  assert.equal(lease.status, 201, lease.body);
  assert.match(await ok('get', 'leases', '-n', 'apps'), /^leader\s+me\s+\d+s$/m);
  assert.match(await ok('api-resources'), /^leases\s+coordination.k8s.io\/v1\s+true\s+Lease$/m);
});

test('bad input: upstream Status, nothing written', { skip }, async () => {
  const post = (body: string, ct?: string) => raw('POST', '/api/v1/namespaces/apps/configmaps', body, ct);
  const status = (r: { body: string }) =>
    JSON.parse(r.body) as { reason: string; message: string; code: number; details?: { causes?: unknown[] } };
  // A name that is not DNS-1123.
  let r = await post(JSON.stringify({ metadata: { name: 'Bad_Name' } }));
  assert.equal(r.status, 422);
  assert.equal(status(r).reason, 'Invalid');
  assert.match(
    status(r).message,
    /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
  );
  assert.equal(status(r).details?.causes?.length, 1);
  // Malformed JSON, wrong kind, unknown media type.
  r = await post('{"metadata": ');
  assert.equal(r.status, 400);
  r = await post(JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }));
  assert.equal(r.status, 400);
  assert.match(status(r).message, /Secret in version "v1" cannot be handled as a ConfigMap/);
  r = await post('x', 'text/plain');
  assert.equal(r.status, 415);
  // Already exists.
  r = await post(JSON.stringify({ metadata: { name: 'applied' } }));
  assert.equal(r.status, 409);
  assert.equal(status(r).message, 'configmaps "applied" already exists');
  // The namespace must exist.
  r = await raw('POST', '/api/v1/namespaces/nope/configmaps', JSON.stringify({ metadata: { name: 'x' } }));
  assert.equal(r.status, 404);
  assert.equal(status(r).message, 'namespaces "nope" not found');
  // A stale resourceVersion on update is a conflict; a name that differs from the URL a bad request.
  r = await raw(
    'PUT',
    '/api/v1/namespaces/apps/configmaps/applied',
    JSON.stringify({ metadata: { name: 'applied', resourceVersion: '1' } }),
  );
  assert.equal(r.status, 409);
  assert.equal(
    status(r).message,
    'Operation cannot be fulfilled on configmaps "applied": the object has been modified; please apply your changes to the latest version and try again',
  );
  r = await raw('PUT', '/api/v1/namespaces/apps/configmaps/applied', JSON.stringify({ metadata: { name: 'other' } }));
  assert.equal(r.status, 400);
  assert.equal(status(r).message, 'the name of the object (other) does not match the name on the URL (applied)');
  // A JSON patch that does not apply.
  r = await raw(
    'PATCH',
    '/api/v1/namespaces/apps/configmaps/applied',
    '[{"op":"test","path":"/data/k","value":"nope"}]',
    'application/json-patch+json',
  );
  assert.equal(r.status, 422);
  assert.equal(status(r).message, 'testing value /data/k failed: test failed');
  // Over the body limit (3 MiB).
  r = await post(JSON.stringify({ metadata: { name: 'huge' }, data: { k: 'x'.repeat(3 * 1024 * 1024 + 10) } }));
  assert.equal(r.status, 413);
  // A bad label selector.
  r = await raw('GET', '/api/v1/namespaces/apps/configmaps?labelSelector=a%3D%3D%3Db');
  assert.equal(r.status, 400);
  // dryRun=All never writes.
  r = await post(JSON.stringify({ metadata: { name: 'dry' } }), 'application/json');
  assert.equal(r.status, 201);
  r = await raw(
    'POST',
    '/api/v1/namespaces/apps/configmaps?dryRun=All',
    JSON.stringify({ metadata: { name: 'drier' } }),
  );
  assert.equal(r.status, 201);
  r = await raw('GET', '/api/v1/namespaces/apps/configmaps/drier');
  assert.equal(r.status, 404);
  r = await raw('DELETE', '/api/v1/namespaces/apps/configmaps/dry?dryRun=All');
  assert.equal(r.status, 200);
  assert.equal((await raw('GET', '/api/v1/namespaces/apps/configmaps/dry')).status, 200);
  // Nothing of the failures above was written.
  assert.equal(
    await ok('get', 'cm', '-n', 'apps', '-o', 'name', '-l', 'none!=x'),
    'configmap/applied\nconfigmap/c1\nconfigmap/c2\nconfigmap/c3\nconfigmap/dry\nconfigmap/watched\n',
  );
});

test('kubectl cluster-info; services: create, get (wide), the kubernetes service', { skip }, async () => {
  const info = await ok('cluster-info');
  assert.equal(
    info.replace(/\x1b\[[0-9;]*m/g, ''),
    `Kubernetes control plane is running at ${server.url}\n\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n`,
  );
  assert.match(
    await ok('create', 'service', 'clusterip', 'web', '-n', 'apps', '--tcp=80:8080'),
    /service\/web created/,
  );
  const wide = await ok('get', 'svc', '-n', 'apps', '-o', 'wide');
  assert.match(wide, /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\s+SELECTOR$/m);
  assert.match(wide, /^web\s+ClusterIP\s+10\.0\.0\.\d+\s+<none>\s+80\/TCP\s+\d+s\s+app=web$/m);
  assert.match(
    await ok('get', 'svc', 'kubernetes'),
    /^kubernetes\s+ClusterIP\s+10\.0\.0\.1\s+<none>\s+443\/TCP\s+\d+s$/m,
  );
  assert.equal(
    await ok('get', 'svc', 'kubernetes', '-o', 'jsonpath={.spec.ports[0].targetPort}'),
    server.url.split(':').pop(),
  );
  assert.match(await ok('get', 'endpoints', 'kubernetes'), /^kubernetes\s+[\d.]+:\d+\s+\d+s$/m);
});

test('delete --cascade=foreground waits for the owner, which waits for its blocking dependents', { skip }, async () => {
  const owner = JSON.parse(await ok('create', 'cm', 'fg-owner', '-n', 'apps', '-o', 'json'));
  const dep = await raw(
    'POST',
    '/api/v1/namespaces/apps/configmaps',
    JSON.stringify({
      metadata: {
        name: 'fg-dep',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'fg-owner', uid: owner.metadata.uid, blockOwnerDeletion: true },
        ],
      },
    }),
  );
  assert.equal(dep.status, 201, dep.body);
  assert.match(
    await ok('delete', 'cm', 'fg-owner', '-n', 'apps', '--cascade=foreground'),
    /configmap "fg-owner" deleted/,
  );
  // kubectl returned once the owner was gone; the blocking dependent went first.
  assert.equal((await raw('GET', '/api/v1/namespaces/apps/configmaps/fg-owner')).status, 404);
  assert.equal((await raw('GET', '/api/v1/namespaces/apps/configmaps/fg-dep')).status, 404);
});

test('deleting a namespace removes its contents, then the namespace', { skip }, async () => {
  assert.match(await ok('delete', 'namespace', 'apps', '--wait=false'), /namespace "apps" deleted/);
  let r = await k('get', 'namespace', 'apps');
  for (let i = 0; i < 100 && r.code === 0; i++) {
    await new Promise((res) => setTimeout(res, 50));
    r = await k('get', 'namespace', 'apps');
  }
  assert.match(r.stderr, /namespaces "apps" not found/);
  assert.equal(await ok('get', 'cm', '-A', '-o', 'name'), '');
});
