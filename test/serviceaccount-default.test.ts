// The secure default's service-account issuer end to end: the CLI with no flags generates
// <cert-dir>/sa.key, `kubectl create token` mints a token that kubectl can use, the key (and so the
// token) survives a restart, and a service-account flag turns the default off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectl, kubectlOK, kubectlSkip, rawRequest, startCLIServer } from './kubectl-server.ts';
import { execFileSync } from 'node:child_process';

const whoami = (url: string, token: string) =>
  execFileSync(kubectl, [`--server=${url}`, '--insecure-skip-tls-verify', `--token=${token}`, 'auth', 'whoami'], {
    encoding: 'utf8',
  });

test('no flags: kubectl create token works, and the token outlives a restart', { skip: kubectlSkip }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sa-default-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const certDir = join(dir, 'certs');
  let server = await startCLIServer(certDir, []);
  t.after(() => server.kill());
  const key = readFileSync(join(certDir, 'sa.key'), 'utf8');
  assert.match(key, /^-----BEGIN PRIVATE KEY-----\n/);

  await kubectlOK(server, ['create', 'namespace', 'robots']);
  await kubectlOK(server, ['create', 'serviceaccount', 'r2', '-n', 'robots']);
  const token = (
    await kubectlOK(server, [
      'create',
      'token',
      'r2',
      '-n',
      'robots',
      '--audience=https://kubernetes.default.svc.cluster.local',
    ])
  ).trim();
  assert.match(whoami(server.url, token), /system:serviceaccount:robots:r2/);
  const discovery = await rawRequest(server, 'GET', '/.well-known/openid-configuration');
  assert.equal(JSON.parse(discovery.body).issuer, 'https://kubernetes.default.svc.cluster.local');

  await server.stop();
  server = await startCLIServer(certDir, []);
  assert.equal(readFileSync(join(certDir, 'sa.key'), 'utf8'), key, 'the key is reused');
  assert.match(whoami(server.url, token), /system:serviceaccount:robots:r2/);
});

test('a service-account flag turns the default off: no key is generated', { skip: kubectlSkip }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sa-flagged-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const certDir = join(dir, 'certs');
  writeFileSync(join(dir, 'tokens.csv'), 'admin-token,admin,uid-admin,system:masters\n');
  const server = await startCLIServer(
    certDir,
    ['--service-account-issuer=https://issuer.example.test', `--token-auth-file=${join(dir, 'tokens.csv')}`],
    'admin-token',
  );
  t.after(() => server.kill());
  assert.ok(!existsSync(join(certDir, 'sa.key')));
  const r = await rawRequest(server, 'POST', '/api/v1/namespaces/default/serviceaccounts/default/token', {
    body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} }),
  });
  assert.equal(r.status, 404, 'TokenRequest is not installed without a signing key, as upstream');
});
