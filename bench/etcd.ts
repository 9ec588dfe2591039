// `node bench/etcd.ts`: the etcd engine (src/storage/etcd3, the KV seam over etcd's JSON gateway)
// against raw gateway calls (fetch of the same JSON, no decoding beyond JSON.parse) and etcdctl's
// gRPC client, on one real etcd started here. Creates/s, updates/s, gets/s (sequential and 16 in
// flight) and a 1,000-object list. Rounds alternate engine and raw; the median round is shown with
// the KV/raw ratio. Not a test: nothing asserts on speed.
//
// Environment: BENCH_OPS (operations per measurement, default 1000), BENCH_ROUNDS (default 3),
// BENCH_CONCURRENCY (default 16).

import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { EtcdKV } from '../src/storage/etcd3/kv.ts';
import { b64, prefixEndB64 } from '../src/storage/etcd3/client.ts';
import { etcdAvailable, etcdPackageHint, startEtcd } from '../test/etcd-harness.ts';
import { Store } from '../src/storage/store.ts';
import { SelectionPredicate, type StorageObject } from '../src/storage/interfaces.ts';

const ops = Number(process.env.BENCH_OPS ?? 1000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);

if (!etcdAvailable()) {
  console.error(etcdPackageHint);
  process.exit(1);
}

const etcd = await startEtcd();
const url = etcd.clientURL;
const kv = new EtcdKV({ endpoints: [url] });
const value = new TextEncoder().encode(
  JSON.stringify({
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name: 'x', namespace: 'bench' },
    data: { k: 'v'.repeat(200) },
  }),
);
const valueB64 = b64(value);

async function raw<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(url + path, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  return (await res.json()) as T;
}

type Op = (i: number) => Promise<unknown>;

async function measure(op: Op, n: number, parallel: number): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < n) await op(next++);
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

let run = 0;
const revs = new Map<string, number>();

function kvOps(p: string): Record<string, Op> {
  return {
    create: async (i) => {
      const r = await kv.create(`${p}${i}`, value);
      revs.set(`${p}${i}`, r.revision);
    },
    update: async (i) => {
      const k = `${p}${i}`;
      const r = await kv.update(k, value, revs.get(k)!);
      if (!r.succeeded) throw new Error('conflict');
      revs.set(k, r.revision);
    },
    get: async (i) => kv.get(`${p}${i}`),
  };
}

function rawOps(p: string): Record<string, Op> {
  const txn = (key: string, rev: number) =>
    raw<{ header: { revision: string }; succeeded?: boolean }>('/v3/kv/txn', {
      compare: [{ target: 'MOD', result: 'EQUAL', key, mod_revision: String(rev) }],
      success: [{ request_put: { key, value: valueB64 } }],
      failure: [{ request_range: { key } }],
    });
  return {
    create: async (i) => {
      const k = `${p}${i}`;
      const r = await txn(b64(k), 0);
      revs.set(k, Number(r.header.revision));
    },
    update: async (i) => {
      const k = `${p}${i}`;
      const r = await txn(b64(k), revs.get(k)!);
      if (!r.succeeded) throw new Error('conflict');
      revs.set(k, Number(r.header.revision));
    },
    get: async (i) => raw('/v3/kv/range', { key: b64(`${p}${i}`) }),
  };
}

const results: Record<string, { kv: number[]; raw: number[] }> = {};
const add = (name: string, side: 'kv' | 'raw', v: number) => (results[name] ??= { kv: [], raw: [] })[side].push(v);

// A 1,000-object list fixture.
const listPrefix = '/registry/benchlist/';
await Promise.all(
  Array.from({ length: 1000 }, (_, i) => kv.create(`${listPrefix}${String(i).padStart(4, '0')}`, value)),
);

for (let round = 0; round < rounds; round++) {
  for (const side of round % 2 ? (['raw', 'kv'] as const) : (['kv', 'raw'] as const)) {
    for (const parallel of [1, concurrency]) {
      const p = `/registry/bench/${side}-${++run}/`;
      const o = side === 'kv' ? kvOps(p) : rawOps(p);
      for (const name of ['create', 'update', 'get'])
        add(`${name}s/s (${parallel} in flight)`, side, await measure(o[name]!, ops, parallel));
    }
    const lists = 20;
    const t0 = performance.now();
    for (let i = 0; i < lists; i++) {
      if (side === 'kv') {
        const l = await kv.list(listPrefix);
        if (l.kvs.length !== 1000) throw new Error('short list');
      } else {
        const l = await raw<{ kvs: unknown[] }>('/v3/kv/range', {
          key: b64(listPrefix),
          range_end: prefixEndB64(listPrefix),
        });
        if (l.kvs.length !== 1000) throw new Error('short list');
      }
    }
    add('1,000-object lists/s', side, lists / ((performance.now() - t0) / 1000));
  }
}

// etcdctl (Debian's etcd-client, gRPC) for reference: one process per call, so only the list.
let etcdctl = '';
if (spawnSync('sh', ['-c', 'command -v etcdctl']).status === 0) {
  const t0 = performance.now();
  const n = 5;
  for (let i = 0; i < n; i++) {
    const r = spawnSync('etcdctl', [`--endpoints=${url}`, 'get', '--prefix', listPrefix, '-w', 'json'], {
      env: { ...process.env, ETCDCTL_API: '3' },
      maxBuffer: 64 << 20,
    });
    if (r.status !== 0) throw new Error(String(r.stderr));
  }
  etcdctl = `etcdctl get --prefix (1,000 objects, process start included): ${(n / ((performance.now() - t0) / 1000)).toFixed(1)}/s`;
}

// storage.Interface (the store, src/storage/store.ts) over the etcd engine vs the engine alone, as
// bench/storage.ts does for memory and SQLite: encode/decode included on both sides, sequential.
const gr = { group: '', resource: 'configmaps' };
const cm = (i: number): StorageObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `cm-${i}`, namespace: 'bench' },
  data: { k: 'v'.repeat(200), i: String(i) },
});
const enc = new TextEncoder();
const dec = new TextDecoder();
const iface: Record<string, { kv: number[]; raw: number[] }> = {};
const addI = (name: string, side: 'kv' | 'raw', v: number) => (iface[name] ??= { kv: [], raw: [] })[side].push(v);
for (let round = 0; round < rounds; round++) {
  const base = `/iface-${round}`;
  const store = new Store({ kv, pathPrefix: '/registry', resourcePrefix: base, groupResource: gr });
  const rawKey = (i: number) => `/registry/raw-${round}/bench/cm-${i}`;
  const sKey = (i: number) => `${base}/bench/cm-${i}`;
  addI('creates/s', 'raw', await measure(async (i) => kv.create(rawKey(i), enc.encode(JSON.stringify(cm(i)))), ops, 1));
  addI('creates/s', 'kv', await measure((i) => store.create(sKey(i), cm(i)), ops, 1));
  addI(
    'updates/s (read-modify-write)',
    'raw',
    await measure(
      async (i) => {
        const g = await kv.get(rawKey(i));
        const o = JSON.parse(dec.decode(g.kv!.value)) as StorageObject;
        (o.data as Record<string, string>).i = 'u' + i;
        await kv.update(rawKey(i), enc.encode(JSON.stringify(o)), g.kv!.modRevision);
      },
      ops,
      1,
    ),
  );
  addI(
    'updates/s (read-modify-write)',
    'kv',
    await measure(
      (i) =>
        store.guaranteedUpdate(sKey(i), false, undefined, (o) => ({
          object: { ...o, data: { ...(o.data as object), i: 'u' + i } },
        })),
      ops,
      1,
    ),
  );
  addI(
    'gets/s (decoded)',
    'raw',
    await measure(async (i) => JSON.parse(dec.decode((await kv.get(rawKey(i))).kv!.value)), ops, 1),
  );
  addI('gets/s (decoded)', 'kv', await measure(async (i) => store.get(sKey(i)), ops, 1));
  const lstore = new Store({ kv, pathPrefix: '/registry', resourcePrefix: '/benchlist', groupResource: gr });
  addI(
    '1,000-object lists/s',
    'raw',
    await measure(async () => (await kv.list(listPrefix)).kvs.map((x) => JSON.parse(dec.decode(x.value))), 10, 1),
  );
  addI(
    '1,000-object lists/s',
    'kv',
    await measure(
      () => lstore.getList('/benchlist', { recursive: true, predicate: new SelectionPredicate({}) }),
      10,
      1,
    ),
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const version = spawnSync('etcd', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0];
console.log(
  `${version}; ${ops} ops per measurement, ${rounds} rounds, value ${value.length} B; load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
console.log('| measurement | KV (src/storage/etcd3) | raw gateway fetch | KV / raw |');
console.log('|---|---:|---:|---:|');
for (const [name, r] of Object.entries(results)) {
  const a = median(r.kv);
  const b = median(r.raw);
  console.log(`| ${name} | ${a.toFixed(0)} | ${b.toFixed(0)} | ${(a / b).toFixed(2)} |`);
}
if (etcdctl) console.log(etcdctl);
console.log(
  '\n| storage.Interface over etcd | engine alone (KV + JSON) | storage.Interface (Store) | interface / engine |',
);
console.log('|---|---:|---:|---:|');
for (const [name, r] of Object.entries(iface)) {
  const a = median(r.kv);
  const b = median(r.raw);
  console.log(`| ${name} | ${b.toFixed(0)} | ${a.toFixed(0)} | ${(a / b).toFixed(2)} |`);
}

await kv.close();
await etcd.stop();
