// In-process cost of the whole chain (no listener): `node bench/inproc.ts`. Each case is
// `await server.fetch(new Request(…))` plus reading the body, against bare Hono answering the
// same bytes the same way, cases alternating in rounds so a noisy machine affects them alike.
// Prints the CPU µs per request (first quartile of rounds), the overhead over bare Hono (µs) and the ratio. Run it under
// `node --cpu-prof --cpu-prof-dir=/tmp/prof bench/inproc.ts` to see where the time goes.
// Not a test: nothing asserts on speed.
//
// Environment: N (requests per round, 3000), ROUNDS (5), CASES (comma list of case name prefixes; the
// bare cases always run unless BARE=0), BENCH_TREES (below).

import 'reflect-metadata';
import { loadavg } from 'node:os';
import { Hono } from 'hono';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { buildServerFromFlags as Build } from '../src/app/build.ts';
import type { GenericAPIServer } from '../src/server/genericapiserver.ts';
import type { discardLogger as Discard } from '../src/util/logger.ts';
import type { MemoryFileSystem as MemFS } from '../src/util/filesystem.ts';

const n = Number(process.env.N ?? 3000);
const rounds = Number(process.env.ROUNDS ?? 5);
const only = process.env.CASES?.split(',');

// BENCH_TREES: other checkouts (a directory holding src/) measured in the same process, rounds
// alternating, each case reported against the first tree as well as against bare Hono: an
// A/B comparison of a change that stays meaningful on a busy machine.
const trees = [resolve(import.meta.dirname, '..'), ...(process.env.BENCH_TREES?.split(',').filter(Boolean) ?? [])];
const load = async <T>(tree: string, path: string): Promise<T> =>
  (await import(pathToFileURL(join(tree, path)).href)) as T;
const token = { authorization: 'Bearer bench-token-0123456789abcdef' };

interface Case {
  name: string;
  fetch: (r: Request) => Response | Promise<Response>;
  url: string;
  headers: Record<string, string>;
  /** The bare case this one is compared with. */
  bare?: string;
}

const stop = new AbortController();
process.on('exit', () => stop.abort());

interface Tree {
  buildServerFromFlags: typeof Build;
  discardLogger: typeof Discard;
  fileSystem: MemFS;
}

async function openTree(dir: string): Promise<Tree> {
  const { buildServerFromFlags } = await load<{ buildServerFromFlags: typeof Build }>(dir, 'src/app/build.ts');
  const { discardLogger } = await load<{ discardLogger: typeof Discard }>(dir, 'src/util/logger.ts');
  const { MemoryFileSystem } = await load<{ MemoryFileSystem: typeof MemFS }>(dir, 'src/util/filesystem.ts');
  const fileSystem = new MemoryFileSystem({ '/tokens.csv': 'bench-token-0123456789abcdef,bench,1,"system:masters"\n' });
  return { buildServerFromFlags, discardLogger, fileSystem };
}

async function edge(
  { buildServerFromFlags, fileSystem, discardLogger }: Tree,
  args: string[],
): Promise<GenericAPIServer> {
  const { server } = await buildServerFromFlags(
    ['--authorization-mode=AlwaysAllow', '--enable-priority-and-fairness=true', ...args],
    { fileSystem, logger: discardLogger, servesTLS: false },
  );
  void server.run({ signal: stop.signal }).catch(() => {});
  // Ready once post-start hooks have run (readyz passes).
  for (let i = 0; i < 200; i++) {
    const r = await server.fetch(new Request('https://h/readyz'));
    await r.text();
    if (r.status === 200) break;
    await new Promise((res) => setTimeout(res, 10));
  }
  return server;
}

const configMap = {
  kind: 'ConfigMap',
  apiVersion: 'v1',
  metadata: { name: 'x', namespace: 'default' },
  data: { key: 'value', other: 'a somewhat longer value for the bench' },
};

async function configMapServer(tree: Tree, backend: string): Promise<{ server: GenericAPIServer; body: string }> {
  const server = await edge(tree, ['--token-auth-file=/tokens.csv', `--storage-backend=${backend}`]);
  for (let i = 0; i < 100; i++) {
    const r = await server.fetch(
      new Request('https://h/api/v1/namespaces/default/configmaps', {
        method: 'POST',
        headers: { ...token, 'content-type': 'application/json' },
        body: JSON.stringify(configMap),
      }),
    );
    if (r.status === 201) break;
    await r.text();
    // The default namespace comes from a controller started with the server.
    await new Promise((res) => setTimeout(res, 20));
  }
  const r = await server.fetch(new Request('https://h/api/v1/namespaces/default/configmaps/x', { headers: token }));
  if (r.status !== 200) throw new Error(`configmap: ${r.status} ${await r.text()}`);
  return { server, body: await r.text() };
}

const healthz = 'https://h/healthz';
const cmURL = 'https://h/api/v1/namespaces/default/configmaps/x';
const all: Case[] = [];
let cmBody: string | undefined;
for (const [i, dir] of trees.entries()) {
  const tree = await openTree(dir);
  const tag = trees.length > 1 ? ` [${i}]` : '';
  const cm = await configMapServer(tree, 'memory');
  cmBody ??= cm.body;
  const anonymous = await edge(tree, []);
  const tokenServer = await edge(tree, ['--token-auth-file=/tokens.csv']);
  all.push(
    {
      name: `anonymous /healthz${tag}`,
      fetch: (r) => anonymous.fetch(r),
      url: healthz,
      headers: {},
      bare: 'bare /healthz',
    },
    {
      name: `token /healthz${tag}`,
      fetch: (r) => tokenServer.fetch(r),
      url: healthz,
      headers: token,
      bare: 'bare /healthz',
    },
    {
      name: `token configmap (memory)${tag}`,
      fetch: (r) => cm.server.fetch(r),
      url: cmURL,
      headers: token,
      bare: 'bare Map configmap',
    },
  );
}

const bare = new Hono();
bare.get('/healthz', (c) => c.text('ok'));
const map = new Map<string, string>([['default/x', cmBody!]]);
bare.get(
  '/api/v1/namespaces/:namespace/configmaps/:name',
  (c) =>
    new Response(map.get(`${c.req.param('namespace')}/${c.req.param('name')}`), {
      headers: { 'content-type': 'application/json' },
    }),
);
const bareFetch = (r: Request) => bare.fetch(r);
all.unshift(
  { name: 'bare /healthz', fetch: bareFetch, url: healthz, headers: {} },
  { name: 'bare Map configmap', fetch: bareFetch, url: cmURL, headers: {} },
);
const cases = all.filter(
  (c) => !only || only.some((o) => c.name.startsWith(o)) || (!c.bare && process.env.BARE !== '0'),
);

async function once(c: Case): Promise<void> {
  const r = await c.fetch(new Request(c.url, { headers: c.headers }));
  if (r.status !== 200) throw new Error(`${c.name}: ${r.status} ${await r.text()}`);
  await r.text();
}

for (const c of cases) await once(c);
const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
for (let round = 0; round < rounds; round++) {
  for (const c of cases) {
    for (let i = 0; i < 300; i++) await once(c);
    // CPU time, not wall time: on a shared machine the wall clock also counts the neighbours.
    const t = process.cpuUsage();
    for (let i = 0; i < n; i++) await once(c);
    const d = process.cpuUsage(t);
    samples.get(c.name)!.push((d.user + d.system) / n);
  }
}
// The fastest quarter of rounds: a shared machine only ever adds time (cache misses, GC of the
// neighbours' garbage, frequency), so the low rounds are the closest to the case's own cost.
const stat = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 4)]!;
};
// Against the same case of the first tree (rounds alternate).
const ab = (c: Case): string => {
  const m = / \[(\d+)\]$/.exec(c.name);
  if (!m || m[1] === '0') return '';
  const first = samples.get(c.name.replace(/ \[\d+\]$/, ' [0]'));
  if (!first) return '';
  const own = samples.get(c.name)!;
  return `   ÷[0] ${(stat(own) / stat(first)).toFixed(3)}`;
};
console.log(
  `${rounds} rounds × ${n} requests, in-process fetch + body read, CPU µs per request (first quartile of rounds); load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
for (const c of cases) {
  const m = stat(samples.get(c.name)!);
  const b = c.bare && samples.has(c.bare) ? stat(samples.get(c.bare)!) : undefined;
  console.log(
    `${c.name.padEnd(32)} ${m.toFixed(1).padStart(7)} µs/req${b ? `   +${(m - b).toFixed(1)} µs over bare   bare/edge ${(b / m).toFixed(2)}` : ''}${ab(c)}`,
  );
}
process.exit(0);
