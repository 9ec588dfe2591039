// Runs under Bun or Deno (argv: `bun` | `deno`): what the runtime gains from the Node platform.
// 1. The adapter's Platform opens an audit log file that rotates and compresses (lumberjack's rules).
// 2. The adapter's serve() builds a server whose token webhook presents the kubeconfig's client
//    certificate (mTLS) and whose --audit-log-path is a file: a SelfSubjectReview with a bearer
//    token comes back with the webhook's user, and the request lands in the audit file.
// Prints one `RESULT {json}` line for test/platform-runtimes.test.ts.

import { readdirSync, readFileSync } from 'node:fs';
import type { Platform } from '../../src/server/platform.ts';

declare const process: { env: Record<string, string | undefined>; argv: string[]; exit(code: number): never };

const runtime = process.argv.includes('deno') ? 'deno' : 'bun';
const dir = process.env.PLATFORM_DIR!;
const files = {
  '/etc/kubernetes/webhook.yaml': process.env.WEBHOOK_KUBECONFIG!,
  '/etc/kubernetes/audit-policy.yaml': 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n',
};
const flags = [
  '--authentication-token-webhook-config-file=/etc/kubernetes/webhook.yaml',
  '--authorization-mode=AlwaysAllow',
  '--audit-policy-file=/etc/kubernetes/audit-policy.yaml',
  `--audit-log-path=${dir}/server/audit.log`,
  '--audit-log-mode=blocking',
];

type Serve = (s: Record<string, unknown>) => Promise<{ port: number; shutdown(): Promise<void> }>;
let platform: Platform;
let serve: Serve;
if (runtime === 'deno') {
  const m = await import('../../adapters/deno/mod.ts');
  platform = m.denoPlatform();
  serve = async (s) => {
    const serving = await m.serve(s);
    return { port: serving.addr.port, shutdown: serving.shutdown };
  };
} else {
  const m = await import('../../adapters/bun/index.ts');
  platform = m.bunPlatform();
  serve = async (s) => {
    const serving = await m.serve(s);
    return { port: serving.port, shutdown: serving.shutdown };
  };
}

// 1. Rotation: 512-byte files (maxSize is in megabytes), every backup kept, gzip.
const log = await platform.openAuditLog!(`${dir}/rotate/audit.log`, {
  maxSize: 512 / (1024 * 1024),
  maxAge: 0,
  maxBackups: 0,
  compress: true,
});
for (let i = 0; i < 8; i++) await log.write(`{"line":${i},"pad":"${'x'.repeat(100)}"}\n`);
await log.close?.();
// Compression runs after the rotation; give it a moment.
let rotated: string[] = [];
for (let i = 0; i < 50; i++) {
  rotated = readdirSync(`${dir}/rotate`).sort();
  if (rotated.some((n) => n.endsWith('.gz'))) break;
  await new Promise((r) => setTimeout(r, 50));
}

// 2. The server on the runtime's own listener, plain HTTP on an ephemeral port.
const serving = await serve({ flags, files, port: 0, hostname: '127.0.0.1', servesTLS: false });
const res = await fetch(`http://127.0.0.1:${serving.port}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
  method: 'POST',
  headers: { authorization: 'Bearer webhook-token', 'content-type': 'application/json' },
  body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
});
const review = (await res.json()) as { status?: { userInfo?: { username?: string } } };
await serving.shutdown();
const auditLines = readFileSync(`${dir}/server/audit.log`, 'utf8').split('\n').filter(Boolean);

console.log(
  'RESULT ' +
    JSON.stringify({
      runtime,
      rotated,
      status: res.status,
      username: review.status?.userInfo?.username,
      auditedReview: auditLines.some((l) => l.includes('/apis/authentication.k8s.io/v1/selfsubjectreviews')),
    }),
);
process.exit(0);
