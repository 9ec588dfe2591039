// RSS of the Node CLI, idle and under load: `node bench/rss.ts`. Starts `adapters/node/bin.mjs`
// (the shipped entry point: the bundle when it is fresh) with `--storage-backend=memory` and a
// `--token-auth-file` user, reads VmRSS once the server has been idle for BENCH_RSS_IDLE seconds,
// then drives authenticated `GET /healthz` with h2load (HTTP/2, 16 connections × 10 streams) for
// BENCH_RSS_DURATION seconds, sampling VmRSS every BENCH_RSS_EVERY seconds, and reads it once more
// after the load (idle again). "Flat" means the samples stop growing after the first ones.
// BENCH_RSS_SOURCES=1 runs the TypeScript sources instead of the bundle. Not a test.
//
// Environment: BENCH_RSS_IDLE (5), BENCH_RSS_DURATION (60), BENCH_RSS_EVERY (5), BENCH_RSS_FLAGS.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeFlags } from '../adapters/node/node-flags.mjs';

const idleSeconds = Number(process.env.BENCH_RSS_IDLE ?? 5);
const duration = Number(process.env.BENCH_RSS_DURATION ?? 60);
const every = Number(process.env.BENCH_RSS_EVERY ?? 5);
const extra = process.env.BENCH_RSS_FLAGS?.split(' ').filter(Boolean) ?? [];
const root = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'edge-rss-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const token = 'bench-rss-token-0123456789abcdef';
writeFileSync(join(dir, 'tokens.csv'), `${token},bench,1,"system:masters"\n`);

if (spawnSync('sh', ['-c', 'command -v h2load']).status !== 0) {
  console.error('h2load not found: sudo apt-get install -y nghttp2-client');
  process.exit(1);
}
if (process.env.BENCH_RSS_SOURCES !== '1')
  spawnSync(process.execPath, [join(root, 'scripts/build.mjs'), '--cli'], { stdio: 'inherit' });

const port = await new Promise<number>((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as net.AddressInfo;
    s.close(() => resolve(port));
  });
});
const child = spawn(
  process.execPath,
  [
    ...nodeFlags,
    join(root, 'adapters/node/bin.mjs'),
    `--cert-dir=${dir}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    '--storage-backend=memory',
    `--token-auth-file=${join(dir, 'tokens.csv')}`,
    ...extra,
  ],
  {
    stdio: 'ignore',
    env: {
      ...process.env,
      NODE_NO_WARNINGS: '1',
      ...(process.env.BENCH_RSS_SOURCES === '1' ? { EDGE_APISERVER_SOURCES: '1' } : {}),
    },
  },
);
process.on('exit', () => child.kill('SIGKILL'));

const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;
const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));
const healthz = () =>
  new Promise<number>((resolve) => {
    https
      .get({ host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', () => resolve(0));
  });
for (let i = 0; (await healthz()) !== 200; i++) {
  if (child.exitCode !== null || i > 3000) throw new Error('the server did not start');
  await sleep(0.02);
}
await sleep(idleSeconds);
const idle = rssMiB();

const load = spawn(
  'h2load',
  [
    '-D',
    String(duration),
    '-c',
    '16',
    '-m',
    '10',
    '-t',
    '1',
    '-H',
    `authorization: Bearer ${token}`,
    `https://127.0.0.1:${port}/healthz`,
  ],
  { stdio: ['ignore', 'pipe', 'ignore'] },
);
let out = '';
load.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
const loadEnded = new Promise((r) => load.once('exit', r));
const samples: number[] = [];
for (let t = every; t <= duration; t += every) {
  await sleep(every);
  samples.push(rssMiB());
}
await loadEnded;
await sleep(idleSeconds);
const after = rssMiB();
const done = /requests: \d+ total, \d+ started, (\d+) done, (\d+) succeeded/.exec(out);
const rps = /finished in [\d.]+s, ([\d.]+) req\/s/.exec(out);
console.log(
  `RSS (MiB) of the CLI${process.env.BENCH_RSS_SOURCES === '1' ? ' (TypeScript sources)' : ''}; load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
console.log(
  `idle ${idle.toFixed(0)}; under h2load (${duration} s, every ${every} s): ${samples.map((x) => x.toFixed(0)).join(' ')}; idle after ${after.toFixed(0)}`,
);
console.log(
  `h2load: ${done ? `${done[2]} of ${done[1]} succeeded` : 'no summary'}${rps ? `, ${Number(rps[1]).toFixed(0)} req/s` : ''}`,
);
process.exit(0);
