// The API side in process (no listener, no TLS): get, list of 500 ConfigMaps, create, and a watch
// fanned out to 100 watchers, through the whole chain (authentication with a token, RBAC, APF,
// audit off, registry Store, watch cache, memory engine) against bare Hono serving the same JSON
// from a Map, in the same run. Reports the median µs per operation of each and the ratio.
//
//   node bench/api.ts            BENCH_API_ROUNDS=5 BENCH_API_ITER=300 node bench/api.ts

import { Hono } from 'hono';
import { EdgeServer } from '../src/app/edge.ts';
import { discardLogger } from '../src/util/logger.ts';

const ROUNDS = Number(process.env.BENCH_API_ROUNDS ?? 5);
const ITER = Number(process.env.BENCH_API_ITER ?? 200);
const WATCHERS = 100;
const TOKEN = 'bench-admin';
const NS = 'bench';

// --- the edge server ---
const edge = new EdgeServer({
  flags: `--authorization-mode=RBAC --token-auth-file=/bench/tokens.csv --event-ttl=1h`,
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

// --- bare Hono over a Map, the same objects and JSON ---
type Obj = { apiVersion: string; kind: string; metadata: Record<string, unknown>; data?: Record<string, string> };
const objects = new Map<string, Obj>();
let rev = 1;
const listeners = new Set<(line: string) => void>();
const bare = new Hono();
bare.get('/api/v1/namespaces/:ns/configmaps/:name', (c) => {
  const o = objects.get(`${c.req.param('ns')}/${c.req.param('name')}`);
  return o ? c.json(o) : c.json({ kind: 'Status', code: 404 }, 404);
});
bare.get('/api/v1/namespaces/:ns/configmaps', (c) => {
  if (c.req.query('watch') === 'true') {
    const enc = new TextEncoder();
    let send: (line: string) => void;
    const body = new ReadableStream<Uint8Array>({
      start(ctl) {
        send = (line) => ctl.enqueue(enc.encode(line));
        listeners.add(send);
      },
      cancel() {
        listeners.delete(send);
      },
    });
    return new Response(body, { headers: { 'content-type': 'application/json' } });
  }
  const prefix = `${c.req.param('ns')}/`;
  const items = [...objects].filter(([k]) => k.startsWith(prefix)).map(([, v]) => v);
  return c.json({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: String(rev) }, items });
});
bare.post('/api/v1/namespaces/:ns/configmaps', async (c) => {
  const o = (await c.req.json()) as Obj;
  const key = `${c.req.param('ns')}/${o.metadata.name}`;
  if (objects.has(key)) return c.json({ kind: 'Status', code: 409 }, 409);
  o.metadata = {
    ...o.metadata,
    namespace: c.req.param('ns'),
    uid: crypto.randomUUID(),
    resourceVersion: String(++rev),
  };
  objects.set(key, o);
  const line = JSON.stringify({ type: 'ADDED', object: o }) + '\n';
  for (const l of listeners) l(line);
  return c.json(o, 201);
});
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
const cm = (name: string) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v'.repeat(64) } });
{
  const r = await edgeFetch('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: NS } }));
  if (r.status !== 201) throw new Error(`namespace: ${r.status} ${await r.text()}`);
}
for (let i = 0; i < 500; i++) {
  for (const f of [edgeFetch, bareFetch]) {
    const r = await f('POST', `/api/v1/namespaces/${NS}/configmaps`, cm(`cm-${i}`));
    if (r.status !== 201) throw new Error(`fixture: ${r.status} ${await r.text()}`);
    await r.arrayBuffer();
  }
}

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
  create: { n: ITER, op: (f) => f('POST', `/api/v1/namespaces/${NS}/configmaps`, cm(`new-${created++}`)) },
};

/** µs from a create until all 100 watchers have read its event. */
async function fanOut(f: Fetch, n: number): Promise<number> {
  const readers = await Promise.all(
    Array.from({ length: WATCHERS }, async () => {
      const r = await f(
        'GET',
        `/api/v1/namespaces/${NS}/configmaps?watch=true&resourceVersion=0&allowWatchBookmarks=false`,
      );
      return r.body!.getReader();
    }),
  );
  // Drain the initial events (the edge server's RV=0 watch starts with the current objects).
  const dec = new TextDecoder();
  const waitFor = async (reader: ReadableStreamDefaultReader<Uint8Array>, name: string, buf: { s: string }) => {
    while (!buf.s.includes(`"name":"${name}"`)) {
      const { value, done } = await reader.read();
      if (done) throw new Error('watch ended');
      buf.s += dec.decode(value);
      if (buf.s.length > 1 << 20) buf.s = buf.s.slice(-4096);
    }
    buf.s = buf.s.slice(buf.s.lastIndexOf(`"name":"${name}"`) + name.length);
  };
  const bufs = readers.map(() => ({ s: '' }));
  const warm = `fan-warm-${created++}`;
  await (await f('POST', `/api/v1/namespaces/${NS}/configmaps`, cm(warm))).arrayBuffer();
  await Promise.all(readers.map((r, i) => waitFor(r, warm, bufs[i]!)));
  const times: number[] = [];
  for (let k = 0; k < n; k++) {
    const name = `fan-${created++}`;
    const t0 = performance.now();
    await (await f('POST', `/api/v1/namespaces/${NS}/configmaps`, cm(name))).arrayBuffer();
    await Promise.all(readers.map((r, i) => waitFor(r, name, bufs[i]!)));
    times.push((performance.now() - t0) * 1000);
  }
  await Promise.all(readers.map((r) => r.cancel()));
  return median(times);
}

const results: Record<string, { bare: number[]; edge: number[] }> = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, { n, op }] of Object.entries(ops)) {
    const entry = (results[name] ??= { bare: [], edge: [] });
    entry.bare.push(await timeOp(bareFetch, op, n));
    entry.edge.push(await timeOp(edgeFetch, op, n));
  }
  const entry = (results[`watch fan-out ×${WATCHERS}`] ??= { bare: [], edge: [] });
  entry.bare.push(await fanOut(bareFetch, 10));
  entry.edge.push(await fanOut(edgeFetch, 10));
}

const { loadavg } = await import('node:os');
console.log(`Node ${process.version}, ${ROUNDS} rounds, load ${loadavg()[0]!.toFixed(2)}`);
console.log('operation'.padEnd(24), 'bare µs'.padStart(10), 'edge µs'.padStart(10), 'edge/bare'.padStart(10));
for (const [name, { bare: b, edge: e }] of Object.entries(results)) {
  const mb = median(b);
  const me = median(e);
  console.log(
    name.padEnd(24),
    mb.toFixed(0).padStart(10),
    me.toFixed(0).padStart(10),
    (me / mb).toFixed(1).padStart(10),
  );
}
await edge.stop();
