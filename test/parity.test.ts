// Parity with kube-apiserver over the real wire (Node TLS, the CLI in-process): the advertise
// address and external host (flags, defaults, discovery's serverAddressByClientCIDRs, the
// generated certificate's SANs, service-account OIDC discovery), discovery content negotiation
// (YAML, protobuf, 406), and HTTP/1.1 response heads byte for byte as Go's net/http writes them.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { parse as parseYAML } from 'yaml';
import { main } from '../adapters/node/cli.ts';
import { chooseHostInterface } from '../adapters/node/host-interface.ts';
import { decodeEnvelope, decodeMessage } from '../src/util/protobuf.ts';
import { rawRequest, startServer, type ParityServer } from './parity-server.ts';

const hostIP = chooseHostInterface();
/** `kubectl api-resources` rows from kube-apiserver v1.34 for the resources served here (columns split). */
const kubeAPIResources: Record<string, string[]> = {
  configmaps: ['configmaps', 'cm', 'v1', 'true', 'ConfigMap'],
  customresourcedefinitions: [
    'customresourcedefinitions',
    'crd,crds',
    'apiextensions.k8s.io/v1',
    'false',
    'CustomResourceDefinition',
  ],
  namespaces: ['namespaces', 'ns', 'v1', 'false', 'Namespace'],
  secrets: ['secrets', 'v1', 'true', 'Secret'],
  serviceaccounts: ['serviceaccounts', 'sa', 'v1', 'true', 'ServiceAccount'],
  endpoints: ['endpoints', 'ep', 'v1', 'true', 'Endpoints'],
  events: ['events', 'ev', 'v1', 'true', 'Event'],
  services: ['services', 'svc', 'v1', 'true', 'Service'],
  selfsubjectreviews: ['selfsubjectreviews', 'authentication.k8s.io/v1', 'false', 'SelfSubjectReview'],
  tokenreviews: ['tokenreviews', 'authentication.k8s.io/v1', 'false', 'TokenReview'],
  localsubjectaccessreviews: [
    'localsubjectaccessreviews',
    'authorization.k8s.io/v1',
    'true',
    'LocalSubjectAccessReview',
  ],
  selfsubjectaccessreviews: ['selfsubjectaccessreviews', 'authorization.k8s.io/v1', 'false', 'SelfSubjectAccessReview'],
  selfsubjectrulesreviews: ['selfsubjectrulesreviews', 'authorization.k8s.io/v1', 'false', 'SelfSubjectRulesReview'],
  subjectaccessreviews: ['subjectaccessreviews', 'authorization.k8s.io/v1', 'false', 'SubjectAccessReview'],
  leases: ['leases', 'coordination.k8s.io/v1', 'true', 'Lease'],
  flowschemas: ['flowschemas', 'flowcontrol.apiserver.k8s.io/v1', 'false', 'FlowSchema'],
  prioritylevelconfigurations: [
    'prioritylevelconfigurations',
    'flowcontrol.apiserver.k8s.io/v1',
    'false',
    'PriorityLevelConfiguration',
  ],
  clusterrolebindings: ['clusterrolebindings', 'rbac.authorization.k8s.io/v1', 'false', 'ClusterRoleBinding'],
  clusterroles: ['clusterroles', 'rbac.authorization.k8s.io/v1', 'false', 'ClusterRole'],
  rolebindings: ['rolebindings', 'rbac.authorization.k8s.io/v1', 'true', 'RoleBinding'],
  roles: ['roles', 'rbac.authorization.k8s.io/v1', 'true', 'Role'],
};
/** kube-apiserver's /apis group order (core first), for the groups above. */
// kubectl api-resources lists groups by name.
const kubeGroupOrder = [
  '',
  'apiextensions.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'coordination.k8s.io',
  'events.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'rbac.authorization.k8s.io',
];
const kubectlPath = '/usr/lib/google-cloud-sdk/bin/kubectl.1.32';
const kubectlSkip = existsSync(kubectlPath) ? false : `kubectl 1.32 not found at ${kubectlPath}`;

function kubectl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(kubectlPath, args, { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      {
        host: '127.0.0.1',
        port,
        path,
        rejectUnauthorized: false,
        headers: { authorization: 'Bearer alice-token', ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers as Record<string, string>,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    req.on('error', reject);
  });
}

function sans(certFile: string): string[] {
  return new X509Certificate(readFileSync(certFile)).subjectAltName!.split(', ');
}

async function runCLI(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await main(args, { signals: false, stdout: () => {}, stderr: (s) => void (stderr += s) });
  return { code, stderr };
}

describe('advertise address and external host', () => {
  let a: ParityServer;
  let b: ParityServer;
  before(async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pub = publicKey.export({ type: 'spki', format: 'pem' }) as string;
    a = await startServer([
      '--authorization-mode=AlwaysAllow',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${await writeTemp('sa.pub', pub)}`,
    ]);
    b = await startServer([
      '--authorization-mode=AlwaysAllow',
      '--advertise-address=10.11.12.13',
      '--external-hostname=api.example.test',
      '--service-account-issuer=https://issuer.example.test',
      `--service-account-key-file=${await writeTemp('sa2.pub', pub)}`,
    ]);
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
  });

  test('defaults: the host interface IP (bind address is loopback) and the secure port in /api and /apis', async () => {
    const addr = [{ clientCIDR: '0.0.0.0/0', serverAddress: `${hostIP}:${a.port}` }];
    const apis = JSON.parse((await get(a.port, '/apis')).body.toString());
    assert.ok(apis.groups.length >= 2);
    for (const g of apis.groups) assert.deepEqual(g.serverAddressByClientCIDRs, addr);
  });

  test('defaults: the generated certificate names the advertise address, the service IP, the bind address', () => {
    const names = sans(join(a.dir, 'certs', 'apiserver.crt'));
    for (const n of [
      `IP Address:${hostIP}`,
      'IP Address:10.0.0.1',
      'IP Address:127.0.0.1',
      'DNS:kubernetes.default.svc',
      'DNS:kubernetes.default',
      'DNS:kubernetes',
    ]) {
      assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);
    }
    assert.match(a.stderr(), new RegExp(`external host was not specified, using ${hostIP.replace(/\./g, '\\.')}`));
  });

  test('defaults: service-account OIDC discovery is served, JWKS URI from the external address', async () => {
    const r = await get(a.port, '/.well-known/openid-configuration');
    assert.equal(r.status, 200);
    const doc = JSON.parse(r.body.toString());
    assert.equal(doc.issuer, 'https://kubernetes.default.svc.cluster.local');
    assert.equal(doc.jwks_uri, `https://${hostIP}:${a.port}/openid/v1/jwks`);
    const jwks = await get(a.port, '/openid/v1/jwks');
    assert.equal(jwks.status, 200);
    assert.equal(JSON.parse(jwks.body.toString()).keys[0].kty, 'EC');
    assert.doesNotMatch(a.stderr(), /Could not set up OpenID discovery/);
  });

  test('--advertise-address and --external-hostname: discovery, SANs, JWKS URI', async () => {
    // /api exists only with a legacy group (none yet); /apis carries the addresses.
    const apis = JSON.parse((await get(b.port, '/apis')).body.toString());
    for (const g of apis.groups)
      assert.deepEqual(g.serverAddressByClientCIDRs, [
        { clientCIDR: '0.0.0.0/0', serverAddress: `api.example.test:${b.port}` },
      ]);
    const names = sans(join(b.dir, 'certs', 'apiserver.crt'));
    assert.ok(names.includes('IP Address:10.11.12.13'), names.join(', '));
    // Upstream signs the advertise address, not the external hostname.
    assert.ok(!names.some((n) => n.includes('api.example.test')));
    const doc = JSON.parse((await get(b.port, '/.well-known/openid-configuration')).body.toString());
    assert.equal(doc.jwks_uri, `https://api.example.test:${b.port}/openid/v1/jwks`);
  });

  test(
    'kubectl 1.32: get --raw /apis, api-resources and cluster-info against the same groups',
    { skip: kubectlSkip },
    async () => {
      const kubeconfig = await writeTemp(
        'kubeconfig',
        `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:${a.port}\n` +
          `    certificate-authority: ${join(a.dir, 'certs', 'apiserver.crt')}\nusers:\n- name: u\n  user:\n    token: alice-token\n` +
          'contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n',
      );
      const k = (...args: string[]) =>
        kubectl([`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(kubeconfig, '..', 'cache')}`, ...args]);
      const raw = await k('get', '--raw', '/apis');
      assert.equal(raw.code, 0, raw.stderr);
      const apis = JSON.parse(raw.stdout);
      assert.deepEqual(apis.groups[0].serverAddressByClientCIDRs, [
        { clientCIDR: '0.0.0.0/0', serverAddress: `${hostIP}:${a.port}` },
      ]);
      // kubectl prints /api exactly as it gets it; kube-apiserver's /api has this shape.
      const api = await k('get', '--raw', '/api');
      assert.equal(api.code, 0, api.stderr);
      assert.equal(
        api.stdout,
        `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"${hostIP}:${a.port}"}]}\n`,
      );
      // api-resources: every row this server has is kube-apiserver's row for that resource, the
      // review groups are all there, and groups come in kube-apiserver's order.
      const res = await k('api-resources');
      assert.equal(res.code, 0, res.stderr);
      const [header, ...rows] = res.stdout.trimEnd().split('\n');
      assert.match(header!, /^NAME +SHORTNAMES +APIVERSION +NAMESPACED +KIND$/);
      const got = rows.map((r) => r.trim().split(/ +/));
      for (const [name, row] of Object.entries(kubeAPIResources)) {
        const mine = got.find((g) => g[0] === name);
        if (!mine && !name.endsWith('reviews')) continue; // not served here yet
        assert.deepEqual(mine, row, `row of ${name}`);
      }
      for (const g of got) assert.ok(kubeAPIResources[g[0]!], `${g[0]} is one kube-apiserver has`);
      const order = got.map((g) =>
        kubeGroupOrder.indexOf(g[g.length === 5 ? 2 : 1]!.split('/').slice(0, -1).join('/')),
      );
      assert.deepEqual(
        order,
        [...order].sort((x, y) => x - y),
        'groups in kube-apiserver order',
      );
      // cluster-info lists kube-system services, as against kube-apiserver.
      const ci = await k('cluster-info');
      assert.equal(ci.code, 0, ci.stderr);
      assert.match(
        ci.stdout,
        new RegExp(`^Kubernetes control plane is running at https://127\\.0\\.0\\.1:${a.port}$`, 'm'),
      );
    },
  );

  test('--advertise-address validation and help text', async () => {
    const bad = await runCLI(['--advertise-address=nope']);
    assert.equal(bad.code, 1);
    assert.match(
      bad.stderr,
      /Error: invalid argument "nope" for "--advertise-address" flag: failed to parse IP: "nope"\n$/,
    );
    let help = '';
    await main(['--help'], { signals: false, stdout: (s) => void (help += s) });
    help = help.replace(/\s+/g, ' '); // usage wraps at the terminal width
    assert.match(
      help,
      /--advertise-address ip The IP address on which to advertise the apiserver to members of the cluster\. This address must be reachable by the rest of the cluster\. If blank, the --bind-address will be used\. If --bind-address is unspecified, the host's default interface will be used\./,
    );
    assert.match(
      help,
      /--external-hostname string The hostname to use when generating externalized URLs for this master \(e\.g\. Swagger API Docs or OpenID Discovery\)\./,
    );
  });
});

const tmpFiles: string[] = [];
async function writeTemp(name: string, content: string): Promise<string> {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const d = mkdtempSync(join(tmpdir(), 'parity-'));
  const p = join(d, name);
  writeFileSync(p, content);
  tmpFiles.push(d);
  return p;
}
after(async () => {
  const { rmSync } = await import('node:fs');
  for (const d of tmpFiles) rmSync(d, { recursive: true, force: true });
});

describe('discovery content negotiation and Go response heads', () => {
  let s: ParityServer;
  before(async () => {
    s = await startServer([]);
  });
  after(async () => {
    await s?.stop();
  });

  test('Accept: application/yaml answers YAML on /apis and /apis/<group>/<version>', async () => {
    const r = await get(s.port, '/apis', { accept: 'application/yaml' });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/yaml');
    const text = r.body.toString();
    // sigs.k8s.io/yaml: keys sorted, sequences at the parent's indentation.
    assert.match(
      text,
      /^groups:\n- name: ([a-z0-9.]+)\n  preferredVersion:\n    groupVersion: \1\/v1\n    version: v1\n  serverAddressByClientCIDRs:\n  - clientCIDR: 0\.0\.0\.0\/0\n/,
    );
    assert.match(text, /\nkind: APIGroupList\n$/);
    const gv = await get(s.port, '/apis/authorization.k8s.io/v1', { accept: 'application/yaml' });
    assert.equal(gv.headers['content-type'], 'application/yaml');
    const doc = parseYAML(gv.body.toString());
    assert.equal(doc.kind, 'APIResourceList');
    assert.equal(doc.groupVersion, 'authorization.k8s.io/v1');
    assert.ok(doc.resources.some((x: { name: string }) => x.name === 'selfsubjectaccessreviews'));
  });

  test('Accept: application/vnd.kubernetes.protobuf answers protobuf discovery kinds', async () => {
    const r = await get(s.port, '/apis/authentication.k8s.io/v1', { accept: 'application/vnd.kubernetes.protobuf' });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/vnd.kubernetes.protobuf');
    const u = decodeEnvelope(new Uint8Array(r.body));
    assert.deepEqual([u.apiVersion, u.kind], ['v1', 'APIResourceList']);
    const list = decodeMessage(u.raw, {
      1: { name: 'groupVersion', type: 'string' },
      2: {
        name: 'resources',
        type: 'message',
        repeated: true,
        schema: {
          1: { name: 'name', type: 'string' },
          3: { name: 'kind', type: 'string' },
          4: { name: 'verbs', type: 'message', schema: { 1: { name: 'items', type: 'strings' } } },
        },
      },
    });
    assert.equal(list.groupVersion, 'authentication.k8s.io/v1');
    assert.deepEqual(list.resources, [
      { name: 'selfsubjectreviews', kind: 'SelfSubjectReview', verbs: { items: ['create'] } },
      { name: 'tokenreviews', kind: 'TokenReview', verbs: { items: ['create'] } },
    ]);
    // The version-stripped root list, and aggregated discovery in protobuf.
    const root = decodeEnvelope(
      new Uint8Array((await get(s.port, '/apis', { accept: 'application/vnd.kubernetes.protobuf' })).body),
    );
    assert.deepEqual([root.apiVersion, root.kind], ['', 'APIGroupList']);
    const agg = await get(s.port, '/apis', {
      accept:
        'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
    });
    assert.equal(
      agg.headers['content-type'],
      'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    );
    const aggU = decodeEnvelope(new Uint8Array(agg.body));
    assert.deepEqual([aggU.apiVersion, aggU.kind], ['apidiscovery.k8s.io/v2', 'APIGroupDiscoveryList']);
  });

  test("Accept: text/html → 406 with upstream's Status (handler negotiation on /apis, go-restful on /apis/<g>/<v>)", async () => {
    const r = await get(s.port, '/apis', { accept: 'text/html' });
    assert.equal(r.status, 406);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(
      r.body.toString(),
      '{\n  "kind": "Status",\n  "apiVersion": "v1",\n  "metadata": {},\n  "status": "Failure",\n  "message": "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",\n  "reason": "NotAcceptable",\n  "code": 406\n}',
    );
    const gv = await get(s.port, '/apis/authentication.k8s.io/v1', { accept: 'text/html' });
    assert.equal(gv.status, 406);
    assert.equal(
      gv.body.toString(),
      '{\n  "kind": "Status",\n  "apiVersion": "v1",\n  "metadata": {},\n  "status": "Failure",\n  "message": "406: Not Acceptable",\n  "reason": "NotAcceptable",\n  "details": {},\n  "code": 406\n}',
    );
    // A Status error in YAML when asked.
    const nf = await get(s.port, '/apis/authentication.k8s.io/v1/nope', { accept: 'application/yaml' });
    assert.equal(nf.status, 404);
    assert.equal(nf.headers['content-type'], 'application/yaml');
    assert.equal(
      nf.body.toString(),
      'apiVersion: v1\ncode: 404\ndetails: {}\nkind: Status\nmessage: the server could not find the requested resource\nmetadata: {}\nreason: NotFound\nstatus: Failure\n',
    );
  });

  // Go's layout: status line, handler headers sorted by canonical name, then Date and
  // Content-Length; no Connection/Keep-Alive on HTTP/1.1 keep-alive. Values of Date, Audit-Id and
  // the APF UIDs vary and are masked.
  const mask = (head: string) =>
    head
      .replace(/\r\nDate: [^\r]+/, '\r\nDate: <date>')
      .replace(/\r\nAudit-Id: [0-9a-f-]{36}/, '\r\nAudit-Id: <id>')
      .replace(/\r\n(X-Kubernetes-Pf-(?:Flowschema|Prioritylevel)-Uid): [0-9a-f-]{36}/g, '\r\n$1: <uid>');
  const req = (path: string, auth = 'Bearer alice-token') =>
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: parity\r\nAuthorization: ${auth}\r\n\r\n`;

  test('raw HTTP/1.1 bytes: /healthz', async () => {
    const got = mask(await rawRequest(s.port, req('/healthz')));
    assert.equal(
      got,
      'HTTP/1.1 200 OK\r\nAudit-Id: <id>\r\nCache-Control: no-cache, private\r\nContent-Type: text/plain; charset=utf-8\r\n' +
        'X-Content-Type-Options: nosniff\r\nX-Kubernetes-Pf-Flowschema-Uid: <uid>\r\nX-Kubernetes-Pf-Prioritylevel-Uid: <uid>\r\n' +
        'Date: <date>\r\nContent-Length: 2\r\n\r\nok',
    );
  });

  test('raw HTTP/1.1 bytes: /version', async () => {
    const got = mask(await rawRequest(s.port, req('/version')));
    const head = got.slice(0, got.indexOf('\r\n\r\n') + 4);
    const body = got.slice(head.length);
    assert.equal(
      head,
      'HTTP/1.1 200 OK\r\nAudit-Id: <id>\r\nCache-Control: no-cache, private\r\nContent-Type: application/json\r\n' +
        'X-Kubernetes-Pf-Flowschema-Uid: <uid>\r\nX-Kubernetes-Pf-Prioritylevel-Uid: <uid>\r\n' +
        `Date: <date>\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    assert.match(body, /^\{\n {2}"major": "1",/);
  });

  test('raw HTTP/1.1 bytes: 401 and 403 Status', async () => {
    const unauthorized =
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}\n';
    assert.equal(
      mask(await rawRequest(s.port, req('/apis', 'Bearer wrong-token'))),
      'HTTP/1.1 401 Unauthorized\r\nAudit-Id: <id>\r\nCache-Control: no-cache, private\r\nContent-Type: application/json\r\n' +
        `Date: <date>\r\nContent-Length: ${unauthorized.length}\r\n\r\n${unauthorized}`,
    );
    const got = mask(await rawRequest(s.port, req('/metrics', 'Bearer bob-token')));
    const body = got.slice(got.indexOf('\r\n\r\n') + 4);
    assert.equal(
      got,
      'HTTP/1.1 403 Forbidden\r\nAudit-Id: <id>\r\nCache-Control: no-cache, private\r\nContent-Type: application/json\r\n' +
        'X-Content-Type-Options: nosniff\r\nX-Kubernetes-Pf-Flowschema-Uid: <uid>\r\nX-Kubernetes-Pf-Prioritylevel-Uid: <uid>\r\n' +
        `Date: <date>\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"bob\\" cannot get path \\"/metrics\\"","reason":"Forbidden","details":{},"code":403}\n',
    );
  });

  test('raw HTTP/1.1 bytes: /apis', async () => {
    const got = mask(await rawRequest(s.port, req('/apis')));
    const body = got.slice(got.indexOf('\r\n\r\n') + 4);
    assert.equal(
      got.slice(0, got.length - body.length),
      'HTTP/1.1 200 OK\r\nAudit-Id: <id>\r\nCache-Control: no-cache, private\r\nContent-Type: application/json\r\n' +
        'X-Kubernetes-Pf-Flowschema-Uid: <uid>\r\nX-Kubernetes-Pf-Prioritylevel-Uid: <uid>\r\n' +
        `Date: <date>\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    assert.equal(JSON.parse(body).kind, 'APIGroupList');
  });

  test("raw HTTP/1.1 bytes: a client asking to close gets Go's Connection: close after Content-Length", async () => {
    const got = mask(await rawRequest(s.port, `GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    assert.match(got, /\r\nDate: <date>\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok$/);
    assert.doesNotMatch(got, /Keep-Alive/i);
  });
});

test("raw HTTP/1.1 bytes with --disable-http2-serving (the https server) are Go's too", async () => {
  const s = await startServer(['--disable-http2-serving']);
  try {
    const got = await rawRequest(
      s.port,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer alice-token\r\n\r\n',
    );
    assert.match(
      got,
      /^HTTP\/1\.1 200 OK\r\nAudit-Id: [0-9a-f-]{36}\r\nCache-Control: no-cache, private\r\nContent-Type: text\/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nX-Kubernetes-Pf-Flowschema-Uid: [0-9a-f-]{36}\r\nX-Kubernetes-Pf-Prioritylevel-Uid: [0-9a-f-]{36}\r\nDate: [^\r]+ GMT\r\nContent-Length: 2\r\n\r\nok$/,
    );
  } finally {
    await s.stop();
  }
});
