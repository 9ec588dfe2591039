// `npm run bench`: starts each variant (bench/variants.ts) in its own process on the same TLS
// setup, drives it with h2load (HTTP/2) and wrk (HTTP/1.1), and prints req/s, p50, p99 and the
// ratio to the bare-Hono baseline. Rounds alternate variants to spread the noise of a shared
// machine; the median round and the median of per-round b/a ratios are reported. Not a test:
// nothing asserts on speed.
//
// Environment: BENCH_DURATION (s per run, default 8), BENCH_ROUNDS (default 3),
// BENCH_VARIANTS (comma list, default all), BENCH_H2_CLIENTS/BENCH_H2_STREAMS (16/10),
// BENCH_H1_CONNECTIONS (32), BENCH_PROTOCOLS (h2,h1), BENCH_PAIRED=1 (also run each variant side by side
// with the baseline), BENCH_NODE_FLAGS (the servers' Node flags, default the CLI's:
// adapters/node/node-flags.mjs). Diagnostic variants run only when named in BENCH_VARIANTS.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import https from 'node:https';
import 'reflect-metadata';
import { generateSelfSignedCertKey } from '../src/server/dynamiccertificates/generate.ts';
import { apiVariants } from './api-variants.ts';
import { benchPath, diagnostics, serverNodeFlags, variants as main, type Variant } from './variants.ts';

const duration = Number(process.env.BENCH_DURATION ?? 8);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const h2Clients = Number(process.env.BENCH_H2_CLIENTS ?? 16);
const h2Streams = Number(process.env.BENCH_H2_STREAMS ?? 10);
const h1Conns = Number(process.env.BENCH_H1_CONNECTIONS ?? 32);
const only = process.env.BENCH_VARIANTS?.split(',');
/** No load-tool run may hang the bench (killed after this, its result then reads as NaN). */
const toolTimeout = (duration + 30) * 1000;
const all = [...main, ...apiVariants, ...diagnostics];
/** The variant a variant's ratios are computed against (a baseline: itself). */
const baseOf = (v: Variant): Variant => (v.baseline ? v : all.find((b) => b.name === (v.against ?? 'bare'))!);
const measured = all.filter(
  (v) => !v.baseline && (only ? only.includes(v.name) : main.includes(v) || apiVariants.includes(v)),
);
const selected = all.filter((v) => measured.includes(v) || measured.some((m) => baseOf(m) === v));
const protocols = (process.env.BENCH_PROTOCOLS ?? 'h2,h1').split(',');

function requireTool(bin: string, pkg: string): void {
  if (spawnSync('sh', ['-c', `command -v ${bin}`]).status !== 0) {
    console.error(
      `${bin} not found. Install the load tools with:\n  sudo apt-get update && sudo apt-get install -y nghttp2-client wrk\n(${bin} comes from Debian's ${pkg} package.)`,
    );
    process.exit(1);
  }
}
requireTool('h2load', 'nghttp2-client');
requireTool('wrk', 'wrk');

interface Result {
  rps: number;
  p50: number; // ms
  p99: number; // ms
  errors: number;
  /** Server CPU time (user + system) per request, µs: what a request costs, whoever else runs. */
  cpuUs: number;
}

// Server CPU from /proc (Linux); NaN elsewhere. Throughput on a shared machine swings with the
// neighbours; CPU time per request barely does, so the report gives both.
const clockTicks = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
function cpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / clockTicks; // utime, stime
  } catch {
    return NaN;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'edge-bench-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const pem = await generateSelfSignedCertKey({ host: '127.0.0.1', alternateDNS: ['localhost'] });
writeFileSync(join(dir, 'apiserver.crt'), pem.cert);
writeFileSync(join(dir, 'apiserver.key'), pem.key);

async function startServer(name: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [...serverNodeFlags, join(import.meta.dirname, 'server.ts'), name, dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });
  const rl = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    rl.on('line', (line) => {
      const m = /^PORT (\d+)$/.exec(line);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`${name} server exited with ${code}`)));
  });
  return { child, port };
}

async function stopServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

// Request headers per variant (Variant.prepare, e.g. Authorization), sent by every client.
const variantHeaders = new Map<string, Record<string, string>>();
for (const v of selected) if (v.prepare) variantHeaders.set(v.name, await v.prepare(dir));
const headerArgs = (name: string) =>
  Object.entries(variantHeaders.get(name) ?? {}).flatMap(([k, val]) => ['-H', `${k}: ${val}`]);
const requestOf = (v: Variant) => v.request ?? { path: benchPath };
const url = (port: number, v: Variant) => `https://127.0.0.1:${port}${requestOf(v).path}`;
/** h2load's and wrk's arguments for the variant's request: headers, and a POST body from a file (h2load -d, a wrk script). */
function requestArgs(v: Variant, tool: 'h2load' | 'wrk'): string[] {
  const { method, body = '' } = requestOf(v);
  const headers = headerArgs(v.name);
  if (method !== 'POST') return headers;
  const file = join(dir, `${v.name}.${tool === 'h2load' ? 'json' : 'lua'}`);
  if (!existsSync(file))
    writeFileSync(
      file,
      tool === 'h2load'
        ? body
        : `wrk.method = "POST"\nwrk.body = [==[${body}]==]\nwrk.headers["Content-Type"] = "application/json"\n`,
    );
  return tool === 'h2load'
    ? [...headers, '-H', 'content-type: application/json', '-d', file]
    : [...headers, '-s', file];
}

function send(port: number, v: Variant): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const { path, method = 'GET', body } = requestOf(v);
  const headers = { ...variantHeaders.get(v.name), ...(body ? { 'content-type': 'application/json' } : {}) };
  return new Promise((resolve, reject) => {
    https
      .request({ host: '127.0.0.1', port, path, method, rejectUnauthorized: false, headers }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: text, headers: res.headers }));
      })
      .on('error', reject)
      .end(body);
  });
}

/** A JSON document's structure without its values (keys sorted; an array: its length and first item). */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return [v.length, shape(v[0])];
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, shape((v as Record<string, unknown>)[k])]),
    );
  return typeof v;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function runH2load(port: number, v: Variant, pid?: number): Result {
  const log = join(dir, 'h2load.log');
  rmSync(log, { force: true });
  const target = url(port, v);
  const extra = requestArgs(v, 'h2load');
  // Warm-up, then the measured run (separate, so the CPU window holds only counted requests).
  // A request count, not `-D 1`: h2load 1.52 sometimes never ends a very short timed run.
  spawnSync(
    'h2load',
    [
      '-n',
      String(h2Clients * h2Streams * 20),
      '-c',
      String(h2Clients),
      '-m',
      String(h2Streams),
      '-t',
      '1',
      ...extra,
      target,
    ],
    { timeout: toolTimeout },
  );
  const cpu0 = cpuSeconds(pid);
  const r = spawnSync(
    'h2load',
    [
      '-D',
      String(duration),
      '-c',
      String(h2Clients),
      '-m',
      String(h2Streams),
      '-t',
      '1',
      `--log-file=${log}`,
      ...extra,
      target,
    ],
    { encoding: 'utf8', timeout: toolTimeout },
  );
  const cpu = cpuSeconds(pid) - cpu0;
  const out = r.stdout + r.stderr;
  const done = Number(/requests: \d+ total, \d+ started, (\d+) done/.exec(out)?.[1] ?? NaN);
  const rps = Number(/finished in [\d.]+\w+, ([\d.]+) req\/s/.exec(out)?.[1] ?? NaN);
  const failed = Number(/requests: .*?(\d+) failed/.exec(out)?.[1] ?? 0);
  const non2xx = Number(
    /status codes: \d+ 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/
      .exec(out)
      ?.slice(1)
      .reduce((a, b) => a + Number(b), 0) ?? 0,
  );
  const lat = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => Number(l.split('\t')[2]) / 1000)
    .sort((a, b) => a - b);
  return {
    rps,
    p50: percentile(lat, 50),
    p99: percentile(lat, 99),
    errors: failed + non2xx,
    cpuUs: (cpu / done) * 1e6,
  };
}

function wrkMillis(s: string | undefined): number {
  if (!s) return NaN;
  const m = /^([\d.]+)(us|ms|s)$/.exec(s);
  if (!m) return NaN;
  return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
}

function runWrk(port: number, v: Variant, pid?: number): Result {
  const extra = requestArgs(v, 'wrk');
  // Warm-up, then the measured run.
  spawnSync('wrk', ['-t', '1', '-c', String(h1Conns), '-d', '1s', ...extra, url(port, v)], {
    timeout: toolTimeout,
  });
  const cpu0 = cpuSeconds(pid);
  const r = spawnSync(
    'wrk',
    ['-t', '1', '-c', String(h1Conns), '-d', `${duration}s`, '--latency', ...extra, url(port, v)],
    { encoding: 'utf8', timeout: toolTimeout },
  );
  const cpu = cpuSeconds(pid) - cpu0;
  const out = r.stdout + r.stderr;
  const done = Number(/(\d+) requests in /.exec(out)?.[1] ?? NaN);
  const errs = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  const sockErr = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
    p50: wrkMillis(/\n\s+50%\s+(\S+)/.exec(out)?.[1]),
    p99: wrkMillis(/\n\s+99%\s+(\S+)/.exec(out)?.[1]),
    errors: Number(errs?.[1] ?? 0) + (sockErr ? sockErr.slice(1).reduce((a, b) => a + Number(b), 0) : 0),
    cpuUs: (cpu / done) * 1e6,
  };
}

const results = new Map<string, { h2: Result[]; h1: Result[] }>();
for (const v of selected) results.set(v.name, { h2: [], h1: [] });

console.log(
  `edge-apiserver bench: ${selected.map((v) => v.name).join(', ')}; ${rounds} rounds × ${duration}s per protocol`,
);
console.log(
  `node ${process.version} ${serverNodeFlags.join(' ')}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
console.log(`h2: h2load -c ${h2Clients} -m ${h2Streams} -t 1; http/1.1: wrk -t 1 -c ${h1Conns}\n`);

// Sanity: every variant answers its baseline's status and body (the API variants: the same JSON
// structure, since uids and timestamps differ).
const reference = new Map<Variant, { status: number; body: string }>();
for (const v of selected) {
  const { child, port } = await startServer(v.name);
  try {
    const r = await send(port, v);
    const { method = 'GET', path } = requestOf(v);
    if (r.status >= 300) throw new Error(`${v.name}: ${method} ${path} → ${r.status} ${r.body}`);
    const ref = reference.get(baseOf(v)) ?? r;
    reference.set(baseOf(v), ref);
    const same = v.request
      ? JSON.stringify(shape(JSON.parse(r.body))) === JSON.stringify(shape(JSON.parse(ref.body)))
      : r.body === ref.body;
    if (r.status !== ref.status || !same)
      throw new Error(
        `${v.name}: ${r.status} ${r.body.slice(0, 400)}\ndiffers from ${baseOf(v).name}'s ${ref.status} ${ref.body.slice(0, 400)}`,
      );
    console.log(
      `${v.name.padEnd(11)} ${v.description}\n${''.padEnd(12)}${r.status}, ${Buffer.byteLength(r.body)} bytes; headers: ${Object.keys(r.headers).join(', ')}`,
    );
  } finally {
    await stopServer(child);
  }
}
console.log('');

for (let round = 1; round <= rounds; round++) {
  for (const v of selected) {
    const { child, port } = await startServer(v.name);
    try {
      const none: Result = { rps: NaN, p50: NaN, p99: NaN, errors: 0, cpuUs: NaN };
      const h2 = protocols.includes('h2') ? runH2load(port, v, child.pid) : none;
      const h1 = protocols.includes('h1') ? runWrk(port, v, child.pid) : none;
      results.get(v.name)!.h2.push(h2);
      results.get(v.name)!.h1.push(h1);
      console.log(
        `round ${round} ${v.name.padEnd(11)} h2 ${h2.rps.toFixed(0).padStart(7)} req/s   http/1.1 ${h1.rps.toFixed(0).padStart(7)} req/s   cpu/req ${h2.cpuUs.toFixed(0)}/${h1.cpuUs.toFixed(0)} µs   load ${loadavg()[0]!.toFixed(1)}${h2.errors + h1.errors ? `   (errors: ${h2.errors + h1.errors})` : ''}`,
      );
    } finally {
      await stopServer(child);
    }
  }
}

function median(rs: Result[]): Result {
  const sorted = [...rs].sort((a, b) => a.rps - b.rps);
  return sorted[Math.floor(sorted.length / 2)]!;
}

// BENCH_PAIRED=1: the baseline and each variant served at the same time, each driven by its own
// load tool, so both see the same neighbours. With the scheduler sharing the CPU fairly, the
// throughput ratio approaches the ratio of per-request costs even on a busy machine.
function runAsync(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: toolTimeout });
    let out = '';
    p.stdout!.on('data', (d) => (out += d));
    p.stderr!.on('data', (d) => (out += d));
    p.on('close', () => resolve(out));
  });
}

async function paired(): Promise<void> {
  console.log('\npaired (baseline and variant loaded at the same time), b/a req/s per round:');
  for (const v of measured) {
    const baseV = baseOf(v);
    const ratios: Record<string, number[]> = { h2: [], h1: [] };
    for (let round = 1; round <= rounds; round++) {
      const a = await startServer(baseV.name);
      const b = await startServer(v.name);
      try {
        if (protocols.includes('h2')) {
          const h2 = (port: number, w: Variant) => [
            '-D',
            String(duration),
            '--warm-up-time=1',
            '-c',
            String(h2Clients),
            '-m',
            String(h2Streams),
            '-t',
            '1',
            ...requestArgs(w, 'h2load'),
            url(port, w),
          ];
          const [oa, ob] = await Promise.all([
            runAsync('h2load', h2(a.port, baseV)),
            runAsync('h2load', h2(b.port, v)),
          ]);
          const rps = (o: string) => Number(/finished in [\d.]+\w+, ([\d.]+) req\/s/.exec(o)?.[1] ?? NaN);
          ratios.h2!.push(rps(ob) / rps(oa));
        }
        if (protocols.includes('h1')) {
          const h1 = (port: number, w: Variant, d: string) => [
            '-t',
            '1',
            '-c',
            String(h1Conns),
            '-d',
            d,
            ...requestArgs(w, 'wrk'),
            url(port, w),
          ];
          await Promise.all([runAsync('wrk', h1(a.port, baseV, '1s')), runAsync('wrk', h1(b.port, v, '1s'))]);
          const [oa, ob] = await Promise.all([
            runAsync('wrk', h1(a.port, baseV, `${duration}s`)),
            runAsync('wrk', h1(b.port, v, `${duration}s`)),
          ]);
          const rps = (o: string) => Number(/Requests\/sec:\s+([\d.]+)/.exec(o)?.[1] ?? NaN);
          ratios.h1!.push(rps(ob) / rps(oa));
        }
      } finally {
        await Promise.all([stopServer(a.child), stopServer(b.child)]);
      }
    }
    const show = (xs: number[]) =>
      xs.length
        ? `${xs.map((x) => x.toFixed(2)).join(' ')}  → median ${[...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!.toFixed(2)}`
        : '-';
    console.log(`  ${v.name.padEnd(14)} HTTP/2: ${show(ratios.h2!)}   HTTP/1.1: ${show(ratios.h1!)}`);
  }
}

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');
const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
// b/a per round compares runs made minutes apart under the same conditions; the median of those
// ratios is what the report states (less sensitive to a noisy neighbour than a ratio of medians).
console.log('\nmedian of rounds          req/s     p50 ms   p99 ms   best req/s   b/a req/s   CPU µs/req   a/b CPU');
for (const proto of (['h2', 'h1'] as const).filter((p) => protocols.includes(p))) {
  for (const v of selected) {
    const baseRuns = results.get(baseOf(v).name)![proto];
    const baseCpu = mid(baseRuns.map((x) => x.cpuUs));
    const runs = results.get(v.name)![proto];
    const r = median(runs);
    const best = Math.max(...runs.map((x) => x.rps));
    const ratio = mid(runs.map((x, i) => x.rps / baseRuns[i]!.rps));
    const cpu = mid(runs.map((x) => x.cpuUs));
    const label = `${proto === 'h2' ? 'HTTP/2  ' : 'HTTP/1.1'} ${v.name}`;
    const cmp = (x: number) => (v.baseline ? '    -' : x.toFixed(2).padStart(5));
    console.log(
      `${label.padEnd(24)} ${r.rps.toFixed(0).padStart(7)}   ${fmt(r.p50).padStart(7)}  ${fmt(r.p99).padStart(7)}   ${best.toFixed(0).padStart(8)}       ${cmp(ratio)}   ${cpu.toFixed(1).padStart(9)}     ${cmp(baseCpu / cpu)}`,
    );
  }
}
console.log(
  "b/a req/s: median of per-round ratios. a/b CPU: server CPU per request of the baseline over the variant's,",
);
console.log('i.e. the throughput ratio a dedicated core would give (robust to other load on the machine).');
console.log(
  `\nload average at the end: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')} (the machine is shared: compare ratios, not absolute numbers)`,
);
if (process.env.BENCH_PAIRED === '1') await paired();
console.log(
  'targets (b/a): edge ≥ 0.75 on HTTP/2, ≥ 0.5 on HTTP/1.1; against bare-api-*: api-get ≥ 0.6, api-list ≥ 0.5, api-create ≥ 0.3',
);
