// The deploy entry points of Deno and Bun (adapters/deno/main.ts, adapters/bun/main.ts), configured
// only by APISERVER_* env vars as in docs/edge.md: flags, files from JSON, SIGTERM → exit 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BIN, httpSender, spawnUntil } from './conformance/harness.ts';

const env = {
  DENO_NO_UPDATE_CHECK: '1',
  NO_COLOR: '1',
  PORT: '0',
  APISERVER_FLAGS:
    "--bind-address=127.0.0.1 --token-auth-file=/etc/edge/tokens.csv --authorization-mode=RBAC '--cors-allowed-origins=^https://x\\.example$'",
  APISERVER_FILES: JSON.stringify({ '/etc/edge/tokens.csv': 'main-token,admin,uid-1,system:masters\n' }),
};

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
  test(`${name} main: configured by APISERVER_* env vars, SIGTERM exits 0`, async () => {
    const proc = await spawnUntil(cmd, [...args], { ready: /Serving on [\d.]+:(\d+)/, timeoutMs: 60_000, env });
    const { send, close } = httpSender(`http://127.0.0.1:${proc.match[1]}`);
    try {
      assert.equal((await send({ path: '/healthz' })).body, 'ok');
      assert.equal((await send({ path: '/metrics' })).status, 403, 'anonymous is limited by RBAC');
      const m = await send({ path: '/metrics', headers: { Authorization: 'Bearer main-token' } });
      assert.equal(m.status, 200);
      assert.match(m.body, /apiserver_request_total/);
      const pre = await send({ method: 'OPTIONS', path: '/api', headers: { Origin: 'https://x.example' } });
      assert.equal(pre.status, 204, 'the quoted CORS flag was split and parsed');
      const exited = new Promise<number | null>((r) => proc.child.once('exit', (code) => r(code)));
      process.kill(proc.child.pid!, 'SIGTERM');
      assert.equal(await exited, 0, proc.output());
    } finally {
      close();
      await proc.stop(); // no-op once it exited
    }
  });
}
