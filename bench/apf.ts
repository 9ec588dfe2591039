// `npm run bench:apf` (also the last part of `npm run bench`): API Priority and Fairness under a
// flood. One process serves (bench/apf-server.ts); a flood of workload-low requests (one service
// account, far above the level's seats) runs twice: A backing off on 429 for Retry-After like
// client-go (bench/apf-flood.ts), B re-sending at once (h2load). Meanwhile h2load measures requests of
// a higher level (workload-high: system:kube-controller-manager). Reports the higher level's
// p50/p99 unloaded vs. under the flood, its failures, the flood's 200/429 split and the server's
// peak RSS and GC pauses. Target: p99 under flood ≤ 2× unloaded, zero failures, bounded memory.
// Not a test: nothing asserts on speed.
//
// Environment: BENCH_APF_DURATION (s, default 8), BENCH_APF_FLOOD_CLIENTS / _STREAMS (16/100),
// BENCH_APF_HIGH_CLIENTS (4), BENCH_APF_WORK_MS (handler time, 20), BENCH_APF_MAX_INFLIGHT (40:
// server concurrency 40+20 = 60 seats; workload-low gets 14 at start, workload-high 13),
// BENCH_NODE_FLAGS (the server's Node flags, default the CLI's: adapters/node/node-flags.mjs).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import 'reflect-metadata';
import { generateSelfSignedCertKey } from '../src/server/dynamiccertificates/generate.ts';
import { benchPath, serverNodeFlags } from './variants.ts';

const duration = Number(process.env.BENCH_APF_DURATION ?? 8);
const floodClients = Number(process.env.BENCH_APF_FLOOD_CLIENTS ?? 16);
const floodStreams = Number(process.env.BENCH_APF_FLOOD_STREAMS ?? 100);
const highClients = Number(process.env.BENCH_APF_HIGH_CLIENTS ?? 4);

if (spawnSync('sh', ['-c', 'command -v h2load']).status !== 0) {
  console.error('h2load not found: sudo apt-get install -y nghttp2-client');
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), 'edge-bench-apf-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const pem = await generateSelfSignedCertKey({ host: '127.0.0.1', alternateDNS: ['localhost'] });
writeFileSync(join(dir, 'apiserver.crt'), pem.cert);
writeFileSync(join(dir, 'apiserver.key'), pem.key);

async function startServer(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [...serverNodeFlags, join(import.meta.dirname, 'apf-server.ts'), dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });
  const rl = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    rl.on('line', (line) => {
      const m = /^PORT (\d+)$/.exec(line);
      if (m) resolve(Number(m[1]));
      if (line.startsWith('GC ')) gcReports.shift()?.(JSON.parse(line.slice(3)) as GCReport);
    });
    child.once('exit', (code) => reject(new Error(`apf server exited with ${code}`)));
  });
  return { child, port };
}

interface GCPauses {
  n: number;
  ms: number;
  max: number;
}
interface GCReport {
  young: GCPauses;
  old: GCPauses;
}
const gcReports: ((r: GCReport) => void)[] = [];
/** The server's GC pauses since the last call (its SIGUSR2 report). */
function serverGC(child: ChildProcess): Promise<GCReport> {
  const report = new Promise<GCReport>((resolve) => gcReports.push(resolve));
  child.kill('SIGUSR2');
  return report;
}
const gcText = ({ young, old }: GCReport) =>
  `young ${young.n} × (total ${young.ms.toFixed(0)} ms, max ${young.max.toFixed(1)}), old ${old.n} × (total ${old.ms.toFixed(0)} ms, max ${old.max.toFixed(1)})`;

interface H2Result {
  requests: number;
  ok: number;
  s4xx: number;
  s5xx: number;
  failed: number;
  rps: number;
  p50: number;
  p99: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;
}

function h2loadArgs(
  port: number,
  token: string,
  clients: number,
  streams: number,
  seconds: number,
  log: string,
): string[] {
  return [
    '-D',
    String(seconds),
    '-c',
    String(clients),
    '-m',
    String(streams),
    '-t',
    '1',
    '-H',
    `authorization: Bearer ${token}`,
    `--log-file=${log}`,
    `https://127.0.0.1:${port}${benchPath}`,
  ];
}

function parseH2load(out: string, log: string): H2Result {
  const status = /status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(out);
  const lat = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t'))
    .filter((f) => f[1] === '200')
    .map((f) => Number(f[2]) / 1000)
    .sort((a, b) => a - b);
  return {
    requests: Number(/requests: (\d+) total/.exec(out)?.[1] ?? NaN),
    ok: Number(status?.[1] ?? 0),
    s4xx: Number(status?.[3] ?? 0),
    s5xx: Number(status?.[4] ?? 0),
    failed: Number(/requests: .*?(\d+) failed/.exec(out)?.[1] ?? 0),
    rps: Number(/finished in [\d.]+\w+, ([\d.]+) req\/s/.exec(out)?.[1] ?? NaN),
    p50: percentile(lat, 50),
    p99: percentile(lat, 99),
  };
}

function runH2load(args: string[], log: string): Promise<H2Result> {
  return new Promise((resolve) => {
    const child = spawn('h2load', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', () => resolve(parseH2load(out, log)));
  });
}

function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

const { child, port } = await startServer();
const pid = child.pid!;
let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 200);
try {
  console.log(
    `edge-apiserver APF bench: node ${process.version} ${serverNodeFlags.join(' ')}, ${cpus().length} CPUs, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `high level: h2load -c ${highClients} -m 1 (workload-high); flood: h2load -c ${floodClients} -m ${floodStreams} (workload-low, one service account); ${duration}s each\n`,
  );
  // Warm up, then the unloaded baseline.
  await runH2load(h2loadArgs(port, 'high', highClients, 1, 2, join(dir, 'warm.log')), join(dir, 'warm.log'));
  const rssIdle = rssMiB(pid);
  await serverGC(child);
  const unloaded = await runH2load(
    h2loadArgs(port, 'high', highClients, 1, duration, join(dir, 'u.log')),
    join(dir, 'u.log'),
  );
  const gcUnloaded = await serverGC(child);
  const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');
  console.log('                               req/s     p50 ms   p99 ms   2xx       4xx (429)  5xx  failed');
  const row = (label: string, r: H2Result) =>
    console.log(
      `${label.padEnd(29)} ${r.rps.toFixed(0).padStart(7)}   ${fmt(r.p50).padStart(7)}  ${fmt(r.p99).padStart(7)}   ${String(r.ok).padStart(7)}   ${String(r.s4xx).padStart(7)}  ${String(r.s5xx).padStart(5)}  ${String(r.failed).padStart(5)}`,
    );
  row('workload-high unloaded', unloaded);

  // Scenario A: the flood backs off on 429 for Retry-After seconds, as client-go does.
  peak = 0;
  const clientFlood = new Promise<string>((resolve) => {
    const c = spawn(
      process.execPath,
      [
        join(import.meta.dirname, 'apf-flood.ts'),
        String(port),
        'flood1',
        String(floodClients),
        String(floodStreams),
        String(duration + 3),
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, NODE_NO_WARNINGS: '1' },
      },
    );
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.on('exit', () => resolve(out.trim()));
  });
  await new Promise((r) => setTimeout(r, 1500));
  await serverGC(child);
  const loadedA = await runH2load(
    h2loadArgs(port, 'high', highClients, 1, duration, join(dir, 'la.log')),
    join(dir, 'la.log'),
  );
  const gcA = await serverGC(child);
  const countsA = JSON.parse((await clientFlood) || '{}') as Record<string, number>;
  const peakA = peak;
  row('workload-high, flood A', loadedA);
  await new Promise((r) => setTimeout(r, 1000));

  // Scenario B: h2load ignores Retry-After and re-sends at once (worst case).
  peak = 0;
  const flood = runH2load(
    h2loadArgs(port, 'flood1', floodClients, floodStreams, duration + 3, join(dir, 'f.log')),
    join(dir, 'f.log'),
  );
  await new Promise((r) => setTimeout(r, 1500));
  await serverGC(child);
  const loadedB = await runH2load(
    h2loadArgs(port, 'high', highClients, 1, duration, join(dir, 'l.log')),
    join(dir, 'l.log'),
  );
  const gcB = await serverGC(child);
  const f = await flood;
  const peakB = peak;
  const rssAfter = rssMiB(pid);
  row('workload-high, flood B', loadedB);
  row('workload-low flood B (h2load)', f);
  console.log(
    `\nflood A (backs off on Retry-After): ${JSON.stringify(countsA)} responses by status over ${duration + 3}s`,
  );
  console.log(
    `p99 ratio flooded/unloaded: A ${(loadedA.p99 / unloaded.p99).toFixed(2)}, B ${(loadedB.p99 / unloaded.p99).toFixed(2)} (target ≤ 2.00)`,
  );
  console.log(
    `workload-high failures: A ${loadedA.s4xx + loadedA.s5xx + loadedA.failed}, B ${loadedB.s4xx + loadedB.s5xx + loadedB.failed}`,
  );
  console.log(
    `server GC pauses while workload-high was measured: unloaded ${gcText(gcUnloaded)}; flood A ${gcText(gcA)}; flood B ${gcText(gcB)}`,
  );
  console.log(
    `server RSS: ${fmt(rssIdle)} MiB idle, peak ${fmt(peakA)} MiB (A) / ${fmt(peakB)} MiB (B), ${fmt(rssAfter)} MiB after`,
  );
} finally {
  clearInterval(sampler);
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}
