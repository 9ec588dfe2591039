// The deploy entry points of Deno and Bun (adapters/deno/main.ts, adapters/bun/main.ts), configured
// only by APISERVER_* env vars as in docs/edge.md: flags, files from JSON, SIGTERM → exit 0, and
// objects kept in the embedded SQLite file (registry.db in --cert-dir) across a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, httpSender, spawnUntil } from './conformance/harness.ts';

const envFor = (certDir: string) => ({
  DENO_NO_UPDATE_CHECK: '1',
  NO_COLOR: '1',
  PORT: '0',
  APISERVER_FLAGS: `--bind-address=127.0.0.1 --cert-dir=${certDir} --token-auth-file=/etc/edge/tokens.csv --authorization-mode=RBAC '--cors-allowed-origins=^https://x\\.example$'`,
  APISERVER_FILES: JSON.stringify({ '/etc/edge/tokens.csv': 'main-token,admin,uid-1,system:masters\n' }),
});
const admin = { Authorization: 'Bearer main-token' };

const mains = {
  deno: [
    BIN + 'deno',
    [
      'run',
      '--node-modules-dir=manual',
      '--no-lock',
      '--unstable-no-legacy-abort',
      '--allow-net',
      '--allow-read',
      '--allow-write',
      '--allow-env',
      'adapters/deno/main.ts',
    ],
  ],
  bun: [BIN + 'bun', ['adapters/bun/main.ts']],
} as const;

for (const [name, [cmd, args]] of Object.entries(mains)) {
  test(`${name} main: configured by APISERVER_* env vars, objects persist in SQLite, SIGTERM exits 0`, async () => {
    const certDir = mkdtempSync(join(tmpdir(), `edge-main-${name}-`));
    const env = envFor(certDir);
    const start = () => spawnUntil(cmd, [...args], { ready: /Serving on [\d.]+:(\d+)/, timeoutMs: 60_000, env });
    const stop = async (proc: Awaited<ReturnType<typeof start>>) => {
      const exited = new Promise<number | null>((r) => proc.child.once('exit', (code) => r(code)));
      process.kill(proc.child.pid!, 'SIGTERM');
      assert.equal(await exited, 0, proc.output());
    };
    try {
      let proc = await start();
      let http = httpSender(`http://127.0.0.1:${proc.match[1]}`);
      try {
        assert.equal((await http.send({ path: '/healthz' })).body, 'ok');
        assert.equal((await http.send({ path: '/metrics' })).status, 403, 'anonymous is limited by RBAC');
        const m = await http.send({ path: '/metrics', headers: admin });
        assert.equal(m.status, 200);
        assert.match(m.body, /apiserver_request_total/);
        const pre = await http.send({ method: 'OPTIONS', path: '/api', headers: { Origin: 'https://x.example' } });
        assert.equal(pre.status, 204, 'the quoted CORS flag was split and parsed');
        const created = await http.send({
          method: 'POST',
          path: '/api/v1/namespaces',
          headers: { ...admin, 'content-type': 'application/json' },
          body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kept' } }),
        });
        assert.equal(created.status, 201, created.body);
        await stop(proc);
      } finally {
        http.close();
        await proc.stop(); // no-op once it exited
      }
      assert.ok(existsSync(join(certDir, 'registry.db')), 'the default backend is the file in --cert-dir');

      proc = await start();
      http = httpSender(`http://127.0.0.1:${proc.match[1]}`);
      try {
        const kept = await http.send({ path: '/api/v1/namespaces/kept', headers: admin });
        assert.equal(kept.status, 200, kept.body);
        assert.equal(JSON.parse(kept.body).metadata.name, 'kept');
        await stop(proc);
      } finally {
        http.close();
        await proc.stop();
      }
    } finally {
      rmSync(certDir, { recursive: true, force: true });
    }
  });
}
