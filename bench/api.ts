// The API side in process (no listener, no TLS): get, list of 500 ConfigMaps, create, and a watch
// fanned out to 100 watchers, through the whole chain (authentication with a token, RBAC, APF,
// audit off, registry Store, watch cache, memory engine) against bare Hono serving the same JSON
// from a Map, in the same run. Reports the median µs per operation of each and the ratio, the
// process CPU µs per operation and its ratio, and for the fan-out also the p99 over every sample.
//
//   node bench/api.ts            BENCH_API_ROUNDS=5 BENCH_API_ITER=300 node bench/api.ts
//   BENCH_API_WARMUP=1           rounds run first and not counted (default 1; 0: a cold JIT)
//   BENCH_API_OPS=get,create     only these operations (get, list, create, watch)
//   BENCH_API_SIDES=edge         only one side (to profile it: node --cpu-prof bench/api.ts)

import { bareAPI, configMapJSON } from './bare-api.ts';
import { EdgeServer } from '../src/app/edge.ts';
import { discardLogger } from '../src/util/logger.ts';

const ROUNDS = Number(process.env.BENCH_API_ROUNDS ?? 5);
const ITER = Number(process.env.BENCH_API_ITER ?? 200);
const WATCHERS = 100;
const OPS = process.env.BENCH_API_OPS?.split(',');
const SIDES = process.env.BENCH_API_SIDES?.split(',') ?? ['bare', 'edge'];
const wanted = (op: string) => !OPS || OPS.some((o) => op.startsWith(o));
const TOKEN = 'bench-admin';
const NS = 'bench';
/** Creates and watches use their own namespace, so the list stays at 500. */
const WNS = 'bench-w';
/** Rounds run first and not counted (the JIT's warm-up, alike for both sides). */
const WARMUP = Number(process.env.BENCH_API_WARMUP ?? 1);

// --- the edge server ---
const edge = new EdgeServer({
  flags: process.env.BENCH_API_FLAGS ?? `--authorization-mode=RBAC --token-auth-file=/bench/tokens.csv --event-ttl=1h`,
  files: { '/bench/tokens.csv': `${TOKEN},admin,uid-admin,system:masters\n` },
  logger: discardLogger,
});
await edge.ready();
const transport = { remoteAddress: '127.0.0.1' };
const edgeFetch = (method: string, path: string, body?: string) =>
  edge.fetch(
    new Request(`https://127.0.0.1${path}`, {
      method,
      body,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json' },
    }),
    transport,
  );

// --- bare Hono over a Map, the same objects and JSON (bench/bare-api.ts) ---
const bare = bareAPI();
const bareFetch = async (method: string, path: string, body?: string): Promise<Response> =>
  bare.fetch(
    new Request(`https://127.0.0.1${path}`, {
      method,
      body,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json' },
    }),
  );

type Fetch = (method: string, path: string, body?: string) => Promise<Response>;

// --- fixtures: 500 ConfigMaps in each ---
const cm = (name: string) => configMapJSON({ name });
for (const name of [NS, WNS]) {
  const r = await edgeFetch('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name } }));
  if (r.status !== 201) throw new Error(`namespace: ${r.status} ${await r.text()}`);
}
for (let i = 0; i < 500; i++) {
  for (const f of [edgeFetch, bareFetch]) {
    const r = await f('POST', `/api/v1/namespaces/${NS}/configmaps`, cm(`cm-${i}`));
    if (r.status !== 201) throw new Error(`fixture: ${r.status} ${await r.text()}`);
    await r.arrayBuffer();
  }
}

const cpuNow = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timeOp(f: Fetch, op: (f: Fetch, i: number) => Promise<Response>, n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await op(f, i);
    await r.arrayBuffer();
  }
  return ((performance.now() - t0) * 1000) / n;
}

let created = 0;
const ops: Record<string, { n: number; op: (f: Fetch, i: number) => Promise<Response> }> = {
  get: { n: ITER, op: (f, i) => f('GET', `/api/v1/namespaces/${NS}/configmaps/cm-${i % 500}`) },
  'list 500': { n: Math.max(10, ITER / 10), op: (f) => f('GET', `/api/v1/namespaces/${NS}/configmaps`) },
  create: { n: ITER, op: (f) => f('POST', `/api/v1/namespaces/${WNS}/configmaps`, cm(`new-${created++}`)) },
};

/** µs from a create until all 100 watchers have read its event. */
async function fanOut(f: Fetch, n: number, times: number[]): Promise<number> {
  const readers = await Promise.all(
    Array.from({ length: WATCHERS }, async () => {
      const r = await f(
        'GET',
        `/api/v1/namespaces/${WNS}/configmaps?watch=true&resourceVersion=0&allowWatchBookmarks=false`,
      );
      return r.body!.getReader();
    }),
  );
  // Drain the initial events (the edge server's RV=0 watch starts with the current objects).
  const dec = new TextDecoder();
  // Scans only what arrived since the last look (plus a name's length of overlap).
  const waitFor = async (reader: ReadableStreamDefaultReader<Uint8Array>, name: string, buf: { s: string }) => {
    const needle = `"name":"${name}"`;
    for (;;) {
      const at = buf.s.indexOf(needle);
      if (at >= 0) {
        buf.s = buf.s.slice(at + needle.length);
        return;
      }
      buf.s = buf.s.slice(-needle.length);
      const { value, done } = await reader.read();
      if (done) throw new Error('watch ended');
      buf.s += dec.decode(value);
    }
  };
  const bufs = readers.map(() => ({ s: '' }));
  const warm = `fan-warm-${created++}`;
  await (await f('POST', `/api/v1/namespaces/${WNS}/configmaps`, cm(warm))).arrayBuffer();
  await Promise.all(readers.map((r, i) => waitFor(r, warm, bufs[i]!)));
  const c0 = cpuNow();
  for (let k = 0; k < n; k++) {
    const name = `fan-${created++}`;
    const t0 = performance.now();
    await (await f('POST', `/api/v1/namespaces/${WNS}/configmaps`, cm(name))).arrayBuffer();
    await Promise.all(readers.map((r, i) => waitFor(r, name, bufs[i]!)));
    times.push((performance.now() - t0) * 1000);
  }
  const cpu = (cpuNow() - c0) / n;
  await Promise.all(readers.map((r) => r.cancel()));
  return cpu;
}

type Side = 'bare' | 'edge';
const fetches: Record<Side, Fetch> = { bare: bareFetch, edge: edgeFetch };
const sides = (['bare', 'edge'] as const).filter((s) => SIDES.includes(s));
/** Per operation and side: wall µs per operation each round, CPU µs per operation each round. */
const results: Record<string, Record<Side, { wall: number[]; cpu: number[] }>> = {};
const entry = (name: string) => (results[name] ??= { bare: { wall: [], cpu: [] }, edge: { wall: [], cpu: [] } });
const fanName = `watch fan-out ×${WATCHERS}`;
const fanTimes: Record<Side, number[]> = { bare: [], edge: [] };
const fanN = Math.max(10, ITER / 5);
for (let round = -WARMUP; round < ROUNDS; round++) {
  const keep = round >= 0;
  for (const [name, { n, op }] of Object.entries(ops)) {
    if (!wanted(name)) continue;
    for (const side of sides) {
      const c0 = cpuNow();
      const wall = await timeOp(fetches[side], op, n);
      if (!keep) continue;
      entry(name)[side].wall.push(wall);
      entry(name)[side].cpu.push((cpuNow() - c0) / n);
    }
  }
  if (!wanted('watch')) continue;
  for (const side of sides) {
    const times: number[] = [];
    const cpu = await fanOut(fetches[side], fanN, times);
    if (!keep) continue;
    entry(fanName)[side].cpu.push(cpu);
    entry(fanName)[side].wall.push(median(times));
    fanTimes[side].push(...times);
  }
}

const { loadavg } = await import('node:os');
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.99) - 1)]!;
console.log(`Node ${process.version}, ${ROUNDS} rounds (+${WARMUP} warm-up), load ${loadavg()[0]!.toFixed(2)}`);
const cols = ['bare µs', 'edge µs', 'edge/bare', 'bare CPU', 'edge CPU', 'CPU e/b'];
console.log('operation'.padEnd(24), ...cols.map((c) => c.padStart(10)));
const fmt = (x: number | undefined, digits = 0) => (x === undefined || Number.isNaN(x) ? '-' : x.toFixed(digits));
const row = (name: string, b: number | undefined, e: number | undefined, cb?: number, ce?: number) =>
  console.log(
    name.padEnd(24),
    ...[fmt(b), fmt(e), fmt(e! / b!, 1), fmt(cb), fmt(ce), fmt(ce! / cb!, 1)].map((c) => c.padStart(10)),
  );
const med = (xs: number[]) => (xs.length ? median(xs) : undefined);
for (const [name, r] of Object.entries(results))
  row(name, med(r.bare.wall), med(r.edge.wall), med(r.bare.cpu), med(r.edge.cpu));
if (wanted('watch'))
  row(
    `${fanName} p99`,
    fanTimes.bare.length ? p99(fanTimes.bare) : undefined,
    fanTimes.edge.length ? p99(fanTimes.edge) : undefined,
  );
await edge.stop();
