// `npm run bench:edge`: the edge numbers of issue 7. Not a test (nothing asserts on speed).
//  1. Worker bundle size (wrangler's esbuild bundle of wrangler.toml's main; raw and gzip).
//  2. Time to the first served request in local workerd (wrangler dev): spawn → ready, and the
//     first request (which builds the server in the isolate).
//     Also workerd alone (the wrangler bundle served by `workerd serve`): spawn → first response.
//  3. req/s of GET /healthz through the chain vs bare Hono in workerd, Deno and Bun (plain HTTP on
//     loopback, wrk -t1), alternating rounds; the median round is reported. workerd runs the
//     wrangler bundles directly (`wrangler dev` adds a Node proxy that caps it near 150 req/s).
// Environment: BENCH_DURATION (s per run, default 5), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (16),
// BENCH_PARTS (bundle,first,rps), BENCH_RUNTIMES (workerd,deno,bun).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import http from 'node:http';
import net from 'node:net';
import { writeFileSync } from 'node:fs';
import { BIN, REPO_ROOT, spawnUntil, type Spawned } from '../../test/conformance/harness.ts';

const duration = Number(process.env.BENCH_DURATION ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const conns = Number(process.env.BENCH_CONNECTIONS ?? 16);
const parts = (process.env.BENCH_PARTS ?? 'bundle,first,rps').split(',');
const runtimes = (process.env.BENCH_RUNTIMES ?? 'workerd,deno,bun').split(',') as Runtime[];
const env = {
  PATH: `${BIN}:${process.env.PATH}`,
  WRANGLER_SEND_METRICS: 'false',
  CI: '1',
  NO_COLOR: '1',
  DENO_NO_UPDATE_CHECK: '1',
};

function kib(n: number): string {
  return `${(n / 1024).toFixed(1)} KiB`;
}

/** wrangler's bundle of a config into `out` (worker.js). */
function bundle(out: string, config: string, minify: boolean): void {
  const r = spawnSync(
    BIN + 'wrangler',
    ['deploy', '--dry-run', '--config', config, '--outdir', out, `--minify=${minify}`],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${r.stdout}\n${r.stderr}`);
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

const bundles: Record<string, string> = {};

/** Serves a wrangler bundle with workerd itself (no wrangler proxy); resolves once it answers. */
async function startWorkerdDirect(config: string): Promise<Spawned> {
  if (!bundles[config]) {
    const dir = mkdtempSync(join(tmpdir(), 'edge-workerd-'));
    bundle(dir, config, true);
    bundles[config] = dir;
  }
  const dir = bundles[config]!;
  const main = readdirSync(dir).find((f) => f.endsWith('.js'))!;
  const port = await freePort();
  writeFileSync(
    join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .w) ],
  sockets = [ ( name = "http", address = "127.0.0.1:${port}", http = (), service = "main" ) ]
);
const w :Workerd.Worker = (
  modules = [ (name = "${main}", esModule = embed "${main}") ],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = ["enable_request_signal"]
);
`,
  );
  const p = spawnUntil(BIN + 'workerd', ['serve', join(dir, 'config.capnp')], { ready: /^/, timeoutMs: 10_000, env });
  const proc = await p;
  for (let i = 0; i < 200; i++) {
    try {
      await get(port);
      return {
        ...proc,
        match: Object.assign([String(port), String(port)], { index: 0, input: '' }) as unknown as RegExpMatchArray,
      };
    } catch {
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  await proc.stop();
  throw new Error('workerd did not answer');
}

function bundleSize(minify: boolean): { raw: number; gzip: number } {
  const out = mkdtempSync(join(tmpdir(), 'edge-bundle-'));
  try {
    bundle(out, 'wrangler.toml', minify);
    let raw = 0;
    let gzip = 0;
    for (const f of readdirSync(out)) {
      if (!/\.(m?js|wasm)$/.test(f)) continue;
      const data = readFileSync(join(out, f));
      raw += statSync(join(out, f)).size;
      gzip += gzipSync(data).length;
    }
    return { raw, gzip };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function get(port: number, path = '/healthz'): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

async function startWorkerd(config: string): Promise<Spawned> {
  return spawnUntil(
    BIN + 'wrangler',
    [
      'dev',
      '--config',
      config,
      '--ip',
      '127.0.0.1',
      '--port',
      '0',
      '--inspector-port',
      '0',
      '--show-interactive-dev-session=false',
    ],
    {
      ready: /Ready on http:\/\/127\.0\.0\.1:(\d+)/,
      timeoutMs: 60_000,
      env,
    },
  );
}

async function firstRequest(): Promise<{ ready: number; first: number; second: number }> {
  const t0 = performance.now();
  const p = await startWorkerd('wrangler.toml');
  const t1 = performance.now();
  const port = Number(p.match[1]);
  await get(port);
  const t2 = performance.now();
  await get(port);
  const t3 = performance.now();
  await p.stop();
  return { ready: t1 - t0, first: t2 - t1, second: t3 - t2 };
}

type Runtime = 'workerd' | 'deno' | 'bun';
type Mode = 'bare' | 'chain';

async function start(runtime: Runtime, mode: Mode): Promise<Spawned> {
  if (runtime === 'workerd')
    return startWorkerdDirect(mode === 'chain' ? 'wrangler.toml' : 'bench/edge/wrangler.bare.toml');
  const args =
    runtime === 'deno'
      ? [
          'run',
          '--node-modules-dir=manual',
          '--no-lock',
          '--unstable-no-legacy-abort',
          '--allow-net',
          '--allow-env',
          '--allow-read',
          'bench/edge/serve.ts',
        ]
      : ['bench/edge/serve.ts'];
  return spawnUntil(BIN + runtime, args, {
    ready: /LISTENING (\d+)/,
    timeoutMs: 60_000,
    env: { ...env, BENCH_MODE: mode },
  });
}

function wrk(port: number): number {
  const r = spawnSync('wrk', ['-t1', `-c${conns}`, `-d${duration}s`, `http://127.0.0.1:${port}/healthz`], {
    encoding: 'utf8',
  });
  const m = r.stdout.match(/Requests\/sec:\s+([\d.]+)/);
  if (!m) throw new Error(`wrk failed: ${r.stdout}${r.stderr}`);
  if (/Non-2xx/.test(r.stdout)) throw new Error(`non-2xx responses:\n${r.stdout}`);
  return Number(m[1]);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

if (parts.includes('bundle')) {
  const min = bundleSize(true);
  const plain = bundleSize(false);
  console.log(
    `Worker bundle: ${kib(plain.raw)} (gzip ${kib(plain.gzip)}); minified ${kib(min.raw)} (gzip ${kib(min.gzip)}); budget 150 KiB gzip`,
  );
}

if (parts.includes('first')) {
  const firsts = [];
  for (let i = 0; i < 3; i++) firsts.push(await firstRequest());
  console.log(
    `workerd (wrangler dev): spawn → ready ${median(firsts.map((f) => f.ready)).toFixed(0)} ms; ` +
      `first request (builds the server) ${median(firsts.map((f) => f.first)).toFixed(1)} ms; second ${median(firsts.map((f) => f.second)).toFixed(1)} ms`,
  );
  const direct = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const p = await startWorkerdDirect('wrangler.toml');
    direct.push(performance.now() - t0);
    await p.stop();
  }
  console.log(`workerd serve (bundle, no wrangler): spawn → first response ${median(direct).toFixed(0)} ms`);
}

if (!parts.includes('rps')) {
  for (const dir of Object.values(bundles)) rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}
if (spawnSync('sh', ['-c', 'command -v wrk']).status !== 0) {
  console.log('wrk not found (apt-get install wrk): skipping req/s');
  process.exit(0);
}
console.log(`req/s, GET /healthz, wrk -t1 -c${conns} -d${duration}s, median of ${rounds} rounds:`);
for (const runtime of runtimes) {
  const results: Record<Mode, number[]> = { bare: [], chain: [] };
  for (let round = 0; round < rounds; round++) {
    for (const mode of (round % 2 ? ['chain', 'bare'] : ['bare', 'chain']) as Mode[]) {
      const p = await start(runtime, mode);
      const port = Number(p.match[1]);
      try {
        for (let i = 0; i < 200; i++) await get(port); // warm-up
        results[mode].push(wrk(port));
      } finally {
        await p.stop();
      }
    }
  }
  const bare = median(results.bare);
  const chain = median(results.chain);
  console.log(
    `  ${runtime.padEnd(8)} bare Hono ${bare.toFixed(0).padStart(7)}   chain ${chain.toFixed(0).padStart(7)}   chain/bare ${(chain / bare).toFixed(2)}`,
  );
}

for (const dir of Object.values(bundles)) rmSync(dir, { recursive: true, force: true });
