// Start-up of the Node CLI to its first served `GET /healthz`: `node bench/startup.ts`. Spawns
// `adapters/node/bin.mjs` (the shipped entry point) with a certificate directory that already
// holds the serving certificate (the first, discarded, start generates it) and polls /healthz
// over TLS every 5 ms; reports wall time from spawn to the first 200 and the child's CPU time by
// then, against a bare `node` process that serves a TLS `ok` the same way. Not a test.
//
// bin.mjs runs the bundle (dist/cli/, `npm run build`) when it is newer than its sources; with
// BENCH_STARTUP_SOURCES=1 a third side runs the TypeScript sources (EDGE_APISERVER_SOURCES=1).
//
// Environment: BENCH_STARTS (runs per side, 5), BENCH_STARTUP_FLAGS (extra CLI flags).

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeFlags } from '../adapters/node/node-flags.mjs';

const runs = Number(process.env.BENCH_STARTS ?? 5);
const extra = process.env.BENCH_STARTUP_FLAGS?.split(' ').filter(Boolean) ?? [];
const root = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'edge-startup-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const clockTicks = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) / clockTicks) * 1000;
  } catch {
    return NaN;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function healthz(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = https.get({ host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
  });
}

async function start(
  args: string[],
  port: number,
  env: NodeJS.ProcessEnv = {},
): Promise<{ wall: number; cpu: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    stdio: 'ignore',
    env: { ...process.env, NODE_NO_WARNINGS: '1', PORT: String(port), ...env },
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}: ${args.join(' ')}`);
      if ((await healthz(port)) === 200) return { wall: performance.now() - t0, cpu: cpuMs(child.pid!) };
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
}

// The bare side: a TLS server answering `ok`, with the same key and certificate.
const bareScript = `
const fs = require('node:fs'), https = require('node:https');
https.createServer({ key: fs.readFileSync(process.argv[1] + '/apiserver.key'), cert: fs.readFileSync(process.argv[1] + '/apiserver.crt') },
  (q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1');`;

const cli = (port: number) => [
  ...nodeFlags,
  join(root, 'adapters/node/bin.mjs'),
  `--cert-dir=${dir}`,
  '--bind-address=127.0.0.1',
  `--secure-port=${port}`,
  '--storage-backend=memory',
  ...extra,
];
// The bundle bin.mjs prefers (a stale one would be skipped for the sources).
if (spawnSync(process.execPath, [join(root, 'scripts/build.mjs'), '--cli'], { stdio: 'inherit' }).status !== 0)
  throw new Error('scripts/build.mjs --cli failed');
// First start: generates the certificate (and warms the compile cache); not counted.
const warm = await freePort();
await start(cli(warm), warm);

const withSources = process.env.BENCH_STARTUP_SOURCES === '1';
const sides: Record<string, { wall: number[]; cpu: number[] }> = {
  bare: { wall: [], cpu: [] },
  cli: { wall: [], cpu: [] },
  ...(withSources ? { sources: { wall: [], cpu: [] } } : {}),
};
for (let i = 0; i < runs; i++) {
  let port = await freePort();
  const b = await start(['-e', bareScript, dir], port);
  sides.bare!.wall.push(b.wall);
  sides.bare!.cpu.push(b.cpu);
  port = await freePort();
  const c = await start(cli(port), port);
  sides.cli!.wall.push(c.wall);
  sides.cli!.cpu.push(c.cpu);
  if (withSources) {
    port = await freePort();
    const t = await start(cli(port), port, { EDGE_APISERVER_SOURCES: '1' });
    sides.sources!.wall.push(t.wall);
    sides.sources!.cpu.push(t.cpu);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `start-up to the first served /healthz, ${runs} starts each, median; load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
for (const [name, s] of Object.entries(sides))
  console.log(
    `${name.padEnd(7)} wall ${median(s.wall).toFixed(0).padStart(5)} ms   CPU ${median(s.cpu).toFixed(0).padStart(5)} ms   (wall: ${s.wall.map((x) => x.toFixed(0)).join(' ')})`,
  );
console.log(
  `cli ÷ bare: wall ${(median(sides.cli!.wall) / median(sides.bare!.wall)).toFixed(2)}, CPU ${(median(sides.cli!.cpu) / median(sides.bare!.cpu)).toFixed(2)}`,
);
process.exit(0);
