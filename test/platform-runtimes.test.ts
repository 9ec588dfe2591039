// Bun and Deno build on the Node platform (adapters/node/platform.ts) through their Node
// compatibility: audit log files rotate (and compress) as on Node, and webhooks present the
// kubeconfig's client certificate. Each runtime runs test/platform-runtimes/main.ts against an
// mTLS TokenReview webhook served here; Bun and Deno come from npm (node_modules/.bin).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import * as x509 from '../src/util/x509.ts';
import { makeCA, makeCert } from '../src/authentication/testing.ts';
import { encodeBase64Text } from '../src/util/base64.ts';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name: string) => path.join(root, 'node_modules/.bin', name);

async function mtlsWebhook(): Promise<{ kubeconfig: string; seen: string[]; close: () => void }> {
  const ca = await makeCA('CN=webhook-ca');
  const serving = await makeCert(ca, 'CN=webhook', { ips: ['127.0.0.1'], eku: [x509.ExtendedKeyUsage.serverAuth] });
  const client = await makeCert(ca, 'CN=apiserver-client');
  const seen: string[] = [];
  const server = https.createServer(
    { cert: serving.pem, key: serving.keyPem, ca: ca.pem, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      const cn = String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '');
      seen.push(cn);
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const review = JSON.parse(body) as { spec?: { token?: string } };
        const ok = review.spec?.token === 'webhook-token';
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            apiVersion: 'authentication.k8s.io/v1beta1',
            kind: 'TokenReview',
            status: ok ? { authenticated: true, user: { username: `via-${cn}` } } : { authenticated: false },
          }),
        );
      });
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/authenticate`;
  const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: hook
  cluster:
    server: ${url}
    certificate-authority-data: ${encodeBase64Text(ca.pem)}
users:
- name: apiserver
  user:
    client-certificate-data: ${encodeBase64Text(client.pem)}
    client-key-data: ${encodeBase64Text(client.keyPem)}
contexts:
- name: hook
  context: {cluster: hook, user: apiserver}
current-context: hook
`;
  return { kubeconfig, seen, close: () => server.close() };
}

function run(command: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd: root, env: { ...process.env, ...env }, timeout: 90_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${command} failed: ${err.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

const runtimes: { name: string; command: string; args: string[]; env: Record<string, string> }[] = [
  { name: 'bun', command: bin('bun'), args: ['test/platform-runtimes/main.ts', 'bun'], env: {} },
  {
    name: 'deno',
    command: bin('deno'),
    args: [
      'run',
      '--node-modules-dir=manual',
      '--no-lock',
      '--allow-net=127.0.0.1',
      '--allow-env',
      '--allow-read',
      '--allow-write',
      'test/platform-runtimes/main.ts',
      'deno',
    ],
    env: { DENO_NO_UPDATE_CHECK: '1' },
  },
];

for (const rt of runtimes) {
  const missing = !existsSync(rt.command);
  test(
    `${rt.name}: audit log rotation and a webhook with a client certificate, from the Node platform`,
    { skip: missing && !process.env.CI ? `${rt.name} is not installed` : false },
    async () => {
      const hook = await mtlsWebhook();
      const dir = mkdtempSync(path.join(tmpdir(), `platform-${rt.name}-`));
      try {
        const out = await run(rt.command, rt.args, {
          ...rt.env,
          NO_COLOR: '1',
          PLATFORM_DIR: dir,
          WEBHOOK_KUBECONFIG: hook.kubeconfig,
        });
        const line = out.split('\n').find((l) => l.startsWith('RESULT '));
        assert.ok(line, `no RESULT line in:\n${out}`);
        const r = JSON.parse(line.slice('RESULT '.length));
        assert.equal(r.runtime, rt.name);
        // lumberjack: the live file plus rotated, gzipped backups named <name>-<timestamp>.log.gz.
        assert.ok(r.rotated.includes('audit.log'), r.rotated.join(' '));
        assert.ok(
          r.rotated.some((n: string) => /^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log\.gz$/.test(n)),
          r.rotated.join(' '),
        );
        // The webhook saw the kubeconfig's client certificate and its user came back.
        assert.equal(r.status, 201);
        assert.equal(r.username, 'via-apiserver-client');
        assert.ok(hook.seen.includes('apiserver-client'));
        assert.equal(r.auditedReview, true);
      } finally {
        hook.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
}
