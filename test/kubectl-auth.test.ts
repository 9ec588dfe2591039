// kubectl 1.32 (the pinned binary, not gcloud's dispatcher) against the edge-apiserver CLI over
// TLS: version, get --raw, api-versions, api-resources, auth whoami / can-i / can-i --list, and
// impersonation. Server A runs with no auth flags (the secure default: RBAC, bootstrap policy,
// admin kubeconfig); server B with a token file, service-account keys and RBAC manifests.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import https from 'node:https';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintServiceAccountToken } from '../src/authentication/serviceaccount.ts';
import { kubectlSkip, runKubectl, startCLIServer, type CLIServer, type KubectlResult } from './kubectl-server.ts';

const skip = kubectlSkip;
const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-kubectl-'));
after(() => {
  a?.kill();
  b?.kill();
  rmSync(dir, { recursive: true, force: true });
});

type Server = CLIServer;
const start = (name: string, args: string[], adminToken?: string) => startCLIServer(join(dir, name), args, adminToken);

/** A client of `server` with its own kubeconfig (the server's CA; a bearer token or no credentials). */
function kubeconfig(server: Server, name: string, token?: string): CLIServer {
  const ca = Buffer.from(readFileSync(join(server.certDir, 'apiserver.crt'))).toString('base64');
  const path = join(dir, `${name}.kubeconfig`);
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server.url}", certificate-authority-data: ${ca}}}]
users: [{name: u, user: ${token ? `{token: "${token}"}` : '{}'}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`,
  );
  return { ...server, kubeconfig: path };
}

/** kubectl with the client's kubeconfig and a cold discovery cache (the case kubectl must handle). */
const run = (client: CLIServer, ...args: string[]): Promise<KubectlResult> => runKubectl(client, args);

// --- server A: the secure default ---

let a: Server;
let adminConfig: CLIServer;

test('secure default: admin kubeconfig written (0600) and announced', { skip }, async () => {
  a = await start('a', []);
  adminConfig = a; // its kubeconfig is the secure default's admin.kubeconfig
  assert.equal(a.kubeconfig, join(a.certDir, 'admin.kubeconfig'));
  assert.ok(existsSync(a.kubeconfig));
  assert.equal(statSync(a.kubeconfig).mode & 0o777, 0o600);
  assert.match(readFileSync(a.kubeconfig, 'utf8'), new RegExp(`server: ${a.url.replace(/\./g, '\\.')}`));
  assert.match(
    a.stderr(),
    /Admin credential \(user \\"kubernetes-admin\\", group system:masters\) written to .*admin\.kubeconfig/,
  );
});

test('kubectl version, get --raw /readyz?verbose, api-versions, api-resources (admin)', { skip }, async () => {
  let r = await run(adminConfig, 'version');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Server Version: v1\.34\.0\+edge-apiserver/);
  r = await run(adminConfig, 'get', '--raw', '/readyz?verbose');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /\[\+\]poststarthook\/rbac\/bootstrap-roles ok/);
  assert.match(r.stdout, /readyz check passed/);
  r = await run(adminConfig, 'api-versions');
  assert.equal(r.code, 0, r.stderr);
  const versions = r.stdout.trim().split('\n');
  for (const gv of ['authentication.k8s.io/v1', 'authorization.k8s.io/v1']) assert.ok(versions.includes(gv), r.stdout);
  r = await run(adminConfig, 'api-resources');
  assert.equal(r.code, 0, r.stderr);
  for (const res of [
    'selfsubjectreviews',
    'tokenreviews',
    'localsubjectaccessreviews',
    'selfsubjectaccessreviews',
    'selfsubjectrulesreviews',
    'subjectaccessreviews',
  ]) {
    assert.match(r.stdout, new RegExp(`^${res}\\s`, 'm'), res);
  }
  assert.match(r.stdout, /^selfsubjectaccessreviews\s+authorization\.k8s\.io\/v1\s+false\s+SelfSubjectAccessReview$/m);
});

test('kubectl auth whoami / can-i / can-i --list as the admin', { skip }, async () => {
  let r = await run(adminConfig, 'auth', 'whoami');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Username\s+kubernetes-admin/);
  assert.match(r.stdout, /Groups\s+\[system:masters system:authenticated\]/);
  r = await run(adminConfig, 'auth', 'can-i', 'get', 'pods');
  assert.equal(r.stdout.trim(), 'yes');
  assert.equal(r.code, 0);
  r = await run(adminConfig, 'auth', 'can-i', '--list');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
});

/** An HTTPS request without credentials (kubectl would prompt for a username). */
function anonymous(server: Server, path: string, method = 'GET'): Promise<{ status: number; body: string }> {
  const ca = readFileSync(join(server.certDir, 'apiserver.crt'));
  return new Promise((resolve, reject) => {
    const req = https.request(
      server.url + path,
      { method, ca, headers: { 'content-type': 'application/json' } },
      (res) => {
        let body = '';
        res
          .setEncoding('utf8')
          .on('data', (d) => (body += d))
          .on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

test('anonymous: health and version only', { skip }, async () => {
  for (const p of ['/healthz', '/livez', '/readyz', '/version']) assert.equal((await anonymous(a, p)).status, 200, p);
  let r = await anonymous(a, '/metrics');
  assert.equal(r.status, 403);
  assert.equal(
    r.body,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"system:anonymous\\" cannot get path \\"/metrics\\"","reason":"Forbidden","details":{},"code":403}\n',
  );
  r = await anonymous(a, '/apis/authentication.k8s.io/v1/selfsubjectreviews', 'POST');
  assert.equal(r.status, 403);
  assert.match(
    r.body,
    /selfsubjectreviews.authentication.k8s.io is forbidden: User \\"system:anonymous\\" cannot create resource \\"selfsubjectreviews\\"/,
  );
});

// --- server B: token file, service accounts, RBAC manifests ---

let b: Server;
let saKey: string;
const issuer = 'https://edge.test';

before(() => {
  if (skip) return;
  writeFileSync(
    join(dir, 'tokens.csv'),
    'admin-token,admin,1,"system:masters"\nalice-token,alice,2,"devs"\nbob-token,bob,3\n',
  );
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  saKey = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  writeFileSync(join(dir, 'sa.key'), saKey);
  writeFileSync(join(dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }).toString());
  writeFileSync(
    join(dir, 'rbac.yaml'),
    `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-reader, namespace: default}
rules: [{apiGroups: [""], resources: [pods], verbs: [get, list, watch]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: devs-read-pods, namespace: default}
subjects:
- {kind: Group, apiGroup: rbac.authorization.k8s.io, name: devs}
- {kind: ServiceAccount, name: builder}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: impersonate-bob}
rules: [{apiGroups: [""], resources: [users], resourceNames: [bob], verbs: [impersonate]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: alice-impersonates-bob}
subjects: [{kind: User, apiGroup: rbac.authorization.k8s.io, name: alice}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: impersonate-bob}
`,
  );
});

test(
  'server B starts with token file, service-account keys and RBAC manifests; no admin kubeconfig',
  { skip },
  async () => {
    b = await start(
      'b',
      [
        `--token-auth-file=${join(dir, 'tokens.csv')}`,
        `--authorization-rbac-manifests=${join(dir, 'rbac.yaml')}`,
        `--service-account-key-file=${join(dir, 'sa.pub')}`,
        `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
        `--service-account-issuer=${issuer}`,
        // Tokens minted here name accounts that are not stored (the lookup is test/rbac-kubectl.test.ts's).
        '--service-account-lookup=false',
      ],
      'admin-token',
    );
    assert.ok(!existsSync(join(b.certDir, 'admin.kubeconfig')));
  },
);

test('auth whoami: token-file user, service account, admin', { skip }, async () => {
  let r = await run(kubeconfig(b, 'alice', 'alice-token'), 'auth', 'whoami', '-o', 'json');
  assert.equal(r.code, 0, r.stderr);
  const who = JSON.parse(r.stdout);
  assert.equal(who.kind, 'SelfSubjectReview');
  assert.deepEqual(who.status.userInfo, { username: 'alice', uid: '2', groups: ['devs', 'system:authenticated'] });
  const saToken = await mintServiceAccountToken({
    signingKey: saKey,
    issuer,
    namespace: 'default',
    name: 'builder',
    uid: 'sa-uid',
  });
  r = await run(kubeconfig(b, 'sa', saToken), 'auth', 'whoami');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Username\s+system:serviceaccount:default:builder/);
  assert.match(r.stdout, /Groups\s+\[system:serviceaccounts system:serviceaccounts:default system:authenticated\]/);
  r = await run(kubeconfig(b, 'sa2', saToken), 'auth', 'can-i', 'list', 'pods');
  assert.equal(r.stdout.trim(), 'yes');
  r = await run(kubeconfig(b, 'admin', 'admin-token'), 'auth', 'whoami');
  assert.match(r.stdout, /Groups\s+\[system:masters system:authenticated\]/);
});

test('auth can-i yes and no by RBAC; can-i --list', { skip }, async () => {
  const alice = kubeconfig(b, 'alice2', 'alice-token');
  const bob = kubeconfig(b, 'bob', 'bob-token');
  let r = await run(alice, 'auth', 'can-i', 'get', 'pods');
  assert.equal(r.stdout.trim(), 'yes');
  assert.equal(r.code, 0);
  r = await run(alice, 'auth', 'can-i', 'delete', 'pods');
  assert.equal(r.stdout.trim(), 'no');
  assert.equal(r.code, 1);
  r = await run(alice, 'auth', 'can-i', 'get', 'pods', '-n', 'kube-system');
  assert.equal(r.stdout.trim(), 'no');
  r = await run(bob, 'auth', 'can-i', 'get', 'pods');
  assert.equal(r.stdout.trim(), 'no');
  r = await run(alice, 'auth', 'can-i', '--list');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
  assert.match(r.stdout, /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
  assert.match(r.stdout, /^\s+\[\/healthz\]\s+\[\]\s+\[get\]$/m);
  // The admin in system:masters is allowed everything.
  r = await run(kubeconfig(b, 'admin2', 'admin-token'), 'auth', 'can-i', 'delete', 'nodes');
  assert.equal(r.stdout.trim(), 'yes');
});

test('--as impersonation with and without rights', { skip }, async () => {
  const alice = kubeconfig(b, 'alice3', 'alice-token');
  let r = await run(alice, '--as=bob', 'auth', 'whoami');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Username\s+bob/);
  assert.match(r.stdout, /Groups\s+\[system:authenticated\]/);
  // whoami reports any 403 as "not enabled … or you do not have permission"; get --raw shows the Status.
  r = await run(alice, '--as=carol', 'auth', 'whoami');
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /the selfsubjectreviews API is not enabled in the cluster or you do not have permission to call it/,
  );
  r = await run(alice, '--as=carol', 'get', '--raw', '/version');
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /Error from server \(Forbidden\): users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope/,
  );
  r = await run(alice, '--as=bob', '--as-group=devs', 'get', '--raw', '/version');
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /groups "devs" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope/,
  );
  r = await run(kubeconfig(b, 'bob2', 'bob-token'), '--as=alice', 'get', '--raw', '/version');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /users "alice" is forbidden: User "bob" cannot impersonate resource "users"/);
  // Groups are not inherited: alice impersonated without --as-group is not in devs.
  const admin = kubeconfig(b, 'admin3', 'admin-token');
  r = await run(admin, '--as=alice', 'auth', 'can-i', 'get', 'pods');
  assert.equal(r.stdout.trim(), 'no');
  r = await run(admin, '--as=alice', '--as-group=devs', 'auth', 'can-i', 'get', 'pods');
  assert.equal(r.stdout.trim(), 'yes');
  // Each --as-group is its own header line (HTTP/2), kept apart; extras and uid too.
  r = await run(admin, '--as=alice', '--as-group=a, b', '--as-group=c', '--as-uid=u-9', 'auth', 'whoami', '-o', 'json');
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).status.userInfo, {
    username: 'alice',
    uid: 'u-9',
    groups: ['a, b', 'c', 'system:authenticated'],
  });
});

test('RBAC manifests reload on change; a broken edit keeps the last good policy', { skip }, async () => {
  const bob = kubeconfig(b, 'bob-reload', 'bob-token');
  const file = join(dir, 'rbac.yaml');
  const good = readFileSync(file, 'utf8');
  const waitFor = async (want: string) => {
    let last = '';
    for (let i = 0; i < 60; i++) {
      last = (await run(bob, 'auth', 'can-i', 'get', 'pods')).stdout.trim();
      if (last === want) return last;
      await new Promise((r) => setTimeout(r, 250));
    }
    return last;
  };
  writeFileSync(
    file,
    good.replace('name: devs}', 'name: devs}\n- {kind: User, apiGroup: rbac.authorization.k8s.io, name: bob}'),
  );
  assert.equal(await waitFor('yes'), 'yes');
  writeFileSync(
    file,
    good +
      '---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: broken}\nrules: [{verbs: []}]\n',
  );
  for (let i = 0; i < 60 && !b.stderr().includes('Rejected RBAC manifests'); i++)
    await new Promise((r) => setTimeout(r, 100));
  assert.match(
    b.stderr(),
    /Rejected RBAC manifests, keeping the last good policy" err=".*rbac\.yaml:\d+: Role \\"broken\\": rules\[0\]\.verbs: Required value/,
  );
  assert.equal(await waitFor('yes'), 'yes', 'bob keeps the access of the last good policy');
  writeFileSync(file, good);
  assert.equal(await waitFor('no'), 'no');
});
