// kubectl end to end (issue 5): `kubectl auth whoami` against the Node listener authenticates a
// --token-auth-file user, a service-account token minted with --service-account-signing-key-file,
// and a client certificate over real TLS; a wrong token is a 401 even with anonymous auth on.
import 'reflect-metadata';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportPKCS8, generateKeyPair } from 'jose';
import { main } from '../adapters/node/cli.ts';
import { discardLogger } from '../src/util/logger.ts';
import { mintServiceAccountToken } from '../src/authentication/serviceaccount.ts';
import { makeCA, makeCert } from '../src/authentication/testing.ts';

const kubectl = '/usr/lib/google-cloud-sdk/bin/kubectl.1.32';

function run(args: string[], kubeconfig: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(kubectl, ['--kubeconfig', kubeconfig, ...args], { timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

test(
  'kubectl auth whoami: token file user, service-account token, client certificate; bad token 401',
  { skip: !existsSync(kubectl) && 'kubectl not installed' },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-authn-'));
    const issuer = 'https://kubernetes.default.svc.cluster.local';
    const sa = await generateKeyPair('RS256', { extractable: true });
    const saKey = await exportPKCS8(sa.privateKey);
    const ca = await makeCA('CN=client-ca');
    const client = await makeCert(ca, 'CN=carol, O=ops, O=dev');
    writeFileSync(join(dir, 'tokens.csv'), 'admin-token,admin,uid-admin,"system:masters,dev"\n');
    writeFileSync(join(dir, 'sa.key'), saKey);
    writeFileSync(join(dir, 'ca.crt'), ca.pem);
    const port = await freePort();
    const stop = new AbortController();
    const exited = main(
      [
        '--cert-dir',
        dir,
        '--secure-port',
        String(port),
        '--bind-address',
        '127.0.0.1',
        '--token-auth-file',
        join(dir, 'tokens.csv'),
        '--service-account-issuer',
        issuer,
        '--service-account-signing-key-file',
        join(dir, 'sa.key'),
        // The token below names an account that is not stored (the lookup is test/rbac-kubectl.test.ts's).
        '--service-account-lookup=false',
        '--client-ca-file',
        join(dir, 'ca.crt'),
      ],
      { signals: false, signal: stop.signal, logger: discardLogger, stderr: () => {} },
    );
    try {
      const saToken = await mintServiceAccountToken({
        signingKey: saKey,
        issuer,
        namespace: 'kube-system',
        name: 'deployer',
        uid: 'sa-uid-1',
      });
      const b64 = (s: string) => Buffer.from(s).toString('base64');
      const kubeconfig = join(dir, 'kubeconfig');
      writeFileSync(
        kubeconfig,
        `apiVersion: v1
kind: Config
clusters:
- name: edge
  cluster: {server: "https://127.0.0.1:${port}", insecure-skip-tls-verify: true}
users:
- name: token
  user: {token: admin-token}
- name: sa
  user: {token: "${saToken}"}
- name: cert
  user: {client-certificate-data: ${b64(client.pem)}, client-key-data: ${b64(client.keyPem)}}
- name: bad
  user: {token: not-a-token}
contexts:
- {name: token, context: {cluster: edge, user: token}}
- {name: sa, context: {cluster: edge, user: sa}}
- {name: cert, context: {cluster: edge, user: cert}}
- {name: bad, context: {cluster: edge, user: bad}}
current-context: token
`,
      );
      const whoami = async (context: string) => {
        for (let i = 0; ; i++) {
          const r = await run(['--context', context, 'auth', 'whoami', '-o', 'json'], kubeconfig);
          if (r.code === 0 || i > 100 || !/refused/i.test(r.stderr)) return r;
          await new Promise((res) => setTimeout(res, 100));
        }
      };
      const tok = await whoami('token');
      assert.equal(tok.code, 0, tok.stderr);
      assert.deepEqual(JSON.parse(tok.stdout).status.userInfo, {
        username: 'admin',
        uid: 'uid-admin',
        groups: ['system:masters', 'dev', 'system:authenticated'],
      });
      const s = await whoami('sa');
      assert.equal(s.code, 0, s.stderr);
      const saUser = JSON.parse(s.stdout).status.userInfo;
      assert.equal(saUser.username, 'system:serviceaccount:kube-system:deployer');
      assert.equal(saUser.uid, 'sa-uid-1');
      assert.deepEqual(saUser.groups, [
        'system:serviceaccounts',
        'system:serviceaccounts:kube-system',
        'system:authenticated',
      ]);
      const c = await whoami('cert');
      assert.equal(c.code, 0, c.stderr);
      const certUser = JSON.parse(c.stdout).status.userInfo;
      assert.equal(certUser.username, 'carol');
      assert.deepEqual(certUser.groups, ['ops', 'dev', 'system:authenticated']);
      const bad = await whoami('bad');
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /Unauthorized|must be logged in/);
    } finally {
      stop.abort();
      assert.equal(await exited, 0);
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
