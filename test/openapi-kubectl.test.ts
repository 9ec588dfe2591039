// OpenAPI end to end: kubectl 1.32 and 1.33 (the pinned binaries) against the edge-apiserver CLI in
// its secure default, over TLS with the admin kubeconfig. `kubectl apply` with default validation
// (no --validate=false) reads /openapi/v3, finds fieldValidation on the PATCH operation and sends
// fieldValidation=Strict; an unknown field is the server's strict decoding error; `kubectl explain`
// prints fields from the served schemas (v3, and v2 in protobuf); the raw documents carry upstream's
// ETag and caching.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pinnedKubectl, rawRequest, runKubectl, startCLIServer, type CLIServer } from './kubectl-server.ts';

const versions = ['1.32', '1.33'];
const { bins, skip } = pinnedKubectl(...versions);
const kubectls = versions.map((v, i) => ({ v, bin: bins[i]! }));

const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-openapi-'));
let server: CLIServer;

before(async () => {
  if (!skip) server = await startCLIServer(join(dir, 'certs'), []);
});

after(() => {
  server?.kill();
  rmSync(dir, { recursive: true, force: true });
});

const k = (bin: string, ...args: string[]) => runKubectl(server, args, undefined, bin);

async function ok(bin: string, ...args: string[]): Promise<string> {
  const r = await k(bin, ...args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** A raw GET with the admin token. */
const raw = (path: string, headers: Record<string, string> = {}) => rawRequest(server, 'GET', path, { headers });

const manifest = (ns: string, value: string) => `apiVersion: v1
kind: Namespace
metadata:
  name: ${ns}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ${ns}
data:
  mode: ${value}
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: ${ns}
stringData:
  password: ${value}
`;

for (const { v, bin } of kubectls) {
  test(
    `kubectl ${v}: apply -f of a namespace, a ConfigMap and a Secret with default validation`,
    { skip },
    async () => {
      const ns = `apply-${v.replace('.', '-')}`;
      const file = join(dir, `${ns}.yaml`);
      writeFileSync(file, manifest(ns, 'one'));
      const created = await k(bin, 'apply', '-f', file, '-v=6');
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.stdout, new RegExp(`namespace/${ns} created`));
      assert.match(created.stdout, /configmap\/settings created/);
      assert.match(created.stdout, /secret\/creds created/);
      // kubectl found server-side field validation in the v3 document and asked for it.
      assert.match(
        created.stderr,
        /GET[^\n]*\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}&timeout=\d+s\W+(status=\W)?200 OK/,
      );
      assert.match(
        created.stderr,
        /POST[^\n]*\/configmaps\?fieldManager=kubectl-client-side-apply&fieldValidation=Strict&timeout=\d+s\W+(status=\W)?201/,
      );
      assert.doesNotMatch(created.stderr, /openapi\/v2/);

      writeFileSync(file, manifest(ns, 'two'));
      const configured = await ok(bin, 'apply', '-f', file);
      assert.match(configured, /configmap\/settings configured/);
      assert.equal(await ok(bin, 'get', 'cm', 'settings', '-n', ns, '-o', 'jsonpath={.data.mode}'), 'two');
      assert.equal(
        Buffer.from(
          await ok(bin, 'get', 'secret', 'creds', '-n', ns, '-o', 'jsonpath={.data.password}'),
          'base64',
        ).toString(),
        'two',
      );
    },
  );

  test(
    `kubectl ${v}: an unknown field is the server's strict decoding error; nothing is written`,
    { skip },
    async () => {
      const file = join(dir, `bad-${v}.yaml`);
      writeFileSync(
        file,
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n  namespace: default\nbogus: 1\ndata:\n  a: b\n',
      );
      const r = await k(bin, 'apply', '-f', file);
      assert.notEqual(r.code, 0);
      assert.match(
        r.stderr,
        /Error from server \(BadRequest\): error when creating ".*": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"/,
      );
      assert.match((await k(bin, 'get', 'cm', 'bad', '-n', 'default')).stderr, /configmaps "bad" not found/);
    },
  );

  test(`kubectl ${v}: explain configmap.data and lease.spec`, { skip }, async () => {
    const data = await ok(bin, 'explain', 'configmap.data');
    assert.match(data, /^KIND:\s+ConfigMap$/m);
    assert.match(data, /^FIELD:\s+data <map\[string\]string>$/m);
    assert.match(data, /Data contains the configuration data\./);
    const spec = await ok(bin, 'explain', 'lease.spec');
    assert.match(spec, /^GROUP:\s+coordination\.k8s\.io$/m);
    assert.match(spec, /^FIELD:\s+spec <LeaseSpec>$/m);
    assert.match(spec, /^\s+holderIdentity\s+<string>$/m);
    assert.match(spec, /^\s+leaseDurationSeconds\s+<integer>$/m);
    // The swagger 2.0 path: client-go's OpenAPISchema() reads /openapi/v2 in protobuf only.
    const v2 = await ok(bin, 'explain', 'configmap.data', '--output=plaintext-openapiv2');
    assert.match(v2, /^FIELD:\s+data <map\[string\]string>$/m);
    assert.match(v2, /Data contains the configuration data\./);
    const ns = await ok(bin, 'explain', 'namespace', '--recursive');
    assert.match(ns, /^\s+finalizers\s+<\[\]string>$/m);
  });
}

test('/openapi/v3: root, per group version document, ETag and 304, immutable caching', { skip }, async () => {
  const r = await raw('/openapi/v3');
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], 'application/json');
  const root = JSON.parse(r.body) as { paths: Record<string, { serverRelativeURL: string }> };
  for (const gv of ['api/v1', 'apis/coordination.k8s.io/v1', 'apis/authorization.k8s.io/v1'])
    assert.match(root.paths[gv]!.serverRelativeURL, new RegExp(`^/openapi/v3/${gv}\\?hash=[0-9A-F]{128}$`));
  assert.equal((await raw('/openapi/v3', { 'if-none-match': r.headers.etag as string })).status, 304);

  const u = root.paths['api/v1']!.serverRelativeURL;
  const d = await raw(u, { accept: 'application/json' });
  assert.equal(d.status, 200);
  assert.equal(d.headers['cache-control'], 'public, immutable');
  assert.equal(d.headers.etag, `"${u.split('hash=')[1]}"`);
  const doc = JSON.parse(d.body) as {
    paths: Record<
      string,
      Record<string, { parameters?: { name: string }[]; 'x-kubernetes-group-version-kind'?: object }>
    >;
    components: { schemas: Record<string, unknown> };
  };
  const patch = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}']!.patch!;
  assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: '', kind: 'ConfigMap', version: 'v1' });
  assert.ok(patch.parameters!.some((p) => p.name === 'fieldValidation'));
  assert.ok(doc.components.schemas['io.k8s.api.core.v1.Secret']);
  assert.equal((await raw(u, { 'if-none-match': d.headers.etag as string })).status, 304);
  assert.equal((await raw('/openapi/v3/api/v1?hash=stale')).status, 301);
});

test('/openapi/v2: swagger JSON and the protobuf kubectl asks for', { skip }, async () => {
  const j = await raw('/openapi/v2', { accept: 'application/json' });
  assert.equal(j.status, 200);
  const swagger = JSON.parse(j.body) as { swagger: string; definitions: Record<string, unknown> };
  assert.equal(swagger.swagger, '2.0');
  assert.ok(swagger.definitions['io.k8s.api.coordination.v1.Lease']);
  assert.equal((await raw('/openapi/v2', { 'if-none-match': j.headers.etag as string })).status, 304);
  const pb = await raw('/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
  assert.equal(pb.status, 200);
  assert.equal(pb.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
  assert.equal(pb.headers.etag, j.headers.etag);
  assert.equal((await raw('/openapi/v2', { accept: 'text/html' })).status, 406);
});
