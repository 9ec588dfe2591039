// Bytes allocated per request, in-process, by function: `node bench/alloc.ts`. V8's sampling heap
// profiler keeps the samples of objects the GC collected too, so this counts allocation (what
// drives young-generation GC), not what stays alive. Unlike timings it hardly depends on the
// machine's load: use it to A/B a change while other work runs. Not a test.
//
// Environment: CASES (comma list of bare, anonymous, token, configmap (a GET), create (a POST of
// a new ConfigMap); all by default), N
// (requests per case, 20000), TOP (functions listed per case, 25), INTERVAL (sampling interval,
// bytes, 512).

import 'reflect-metadata';
import { Session } from 'node:inspector/promises';
import { Hono } from 'hono';
import { buildServerFromFlags } from '../src/app/build.ts';
import { discardLogger } from '../src/util/logger.ts';
import { MemoryFileSystem } from '../src/util/filesystem.ts';

const n = Number(process.env.N ?? 20000);
const top = Number(process.env.TOP ?? 25);
const interval = Number(process.env.INTERVAL ?? 512);
const cases = (process.env.CASES ?? 'bare,anonymous,token,configmap,create').split(',');
const token = { authorization: 'Bearer bench-token-0123456789abcdef' };
const fileSystem = new MemoryFileSystem({ '/tokens.csv': 'bench-token-0123456789abcdef,bench,1,"system:masters"\n' });
const stop = new AbortController();

interface Case {
  fetch: (r: Request) => Response | Promise<Response>;
  url: string;
  headers: Record<string, string>;
  /** A request other than a GET of url, and the status it answers. */
  request?: () => Request;
  status?: number;
}

async function edge(args: string[]): Promise<Case['fetch']> {
  const { server } = await buildServerFromFlags(
    ['--authorization-mode=AlwaysAllow', '--enable-priority-and-fairness=true', '--storage-backend=memory', ...args],
    { fileSystem, logger: discardLogger, servesTLS: false },
  );
  void server.run({ signal: stop.signal }).catch(() => {});
  for (let i = 0; i < 200; i++) {
    const r = await server.fetch(new Request('https://h/readyz'));
    await r.text();
    if (r.status === 200) break;
    await new Promise((res) => setTimeout(res, 10));
  }
  return (r) => server.fetch(r);
}

async function open(name: string): Promise<Case> {
  switch (name) {
    case 'bare': {
      const app = new Hono();
      app.get('/healthz', (c) => c.text('ok'));
      return { fetch: (r) => app.fetch(r), url: 'https://h/healthz', headers: {} };
    }
    case 'anonymous':
      return { fetch: await edge([]), url: 'https://h/healthz', headers: {} };
    case 'token':
      return { fetch: await edge(['--token-auth-file=/tokens.csv']), url: 'https://h/healthz', headers: token };
    case 'configmap': {
      const fetch = await edge(['--token-auth-file=/tokens.csv']);
      const body = JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x' }, data: { k: 'v' } });
      // The default namespace comes from a controller started with the server.
      for (let i = 0; i < 100; i++) {
        const r = await fetch(
          new Request('https://h/api/v1/namespaces/default/configmaps', {
            method: 'POST',
            headers: { ...token, 'content-type': 'application/json' },
            body,
          }),
        );
        await r.text();
        if (r.status === 201) break;
        await new Promise((res) => setTimeout(res, 20));
      }
      return { fetch, url: 'https://h/api/v1/namespaces/default/configmaps/x', headers: token };
    }
    case 'create': {
      const c = await open('configmap');
      let i = 0;
      const headers = { ...token, 'content-type': 'application/json' };
      const request = () =>
        new Request('https://h/api/v1/namespaces/default/configmaps', {
          method: 'POST',
          headers,
          body: JSON.stringify({
            kind: 'ConfigMap',
            apiVersion: 'v1',
            metadata: { name: `c-${i++}` },
            data: { k: 'v' },
          }),
        });
      return { ...c, request, status: 201 };
    }
    default:
      throw new Error(`unknown case ${name}`);
  }
}

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

const session = new Session();
session.connect();
for (const name of cases) {
  const c = await open(name);
  const once = async () => {
    const r = await c.fetch(c.request ? c.request() : new Request(c.url, { headers: c.headers }));
    if (r.status !== (c.status ?? 200)) throw new Error(`${name}: ${r.status} ${await r.text()}`);
    await r.text();
  };
  for (let i = 0; i < 3000; i++) await once();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: interval,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never);
  for (let i = 0; i < n; i++) await once();
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: SamplingNode } };
  const self = new Map<string, number>();
  let total = 0;
  const walk = (node: SamplingNode) => {
    const f = node.callFrame;
    const where = f.url.replace(/^file:\/\/.*?\/(src|adapters|bench|node_modules)\//, '$1/');
    const key = `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
    if (node.selfSize) {
      self.set(key, (self.get(key) ?? 0) + node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  console.log(`\n${name}: ${(total / n).toFixed(0)} bytes allocated per request (${n} requests, sampled)`);
  for (const [k, b] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${(b / n).toFixed(0).padStart(7)}  ${k}`);
}
stop.abort();
process.exit(0);
