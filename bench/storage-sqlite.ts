// The revision log on node:sqlite against plain SQL on the same database file, in one run:
//   creates/s and updates/s through the KV (src/storage/sqlite) vs
//     "raw log": the same statements the engine issues (latest-row SELECT + INSERT), called directly;
//     "plain table": one INSERT / one optimistic UPDATE on a name-keyed table (no history);
//   watch delivery latency in-process (write call → event in the watcher), p50/p99;
//   database size (file + WAL) and rows while one key is updated 100,000 times with compaction on.
// Rounds alternate between the variants so machine load hits them alike. Not part of npm test.
//   node bench/storage-sqlite.ts [ops per variant, default 5000] [updates for the size run, default 100000]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openSQLiteKV } from '../adapters/node/sqlite.ts';
import { INSERT_SQL, LATEST_SQL, SCHEMA } from '../src/storage/sqlite/schema.ts';

const N = Number(process.argv[2] ?? 5000);
const SIZE_UPDATES = Number(process.argv[3] ?? 100_000);
const ROUNDS = 5;
const dir = mkdtempSync(join(tmpdir(), 'bench-sqlite-'));
const path = join(dir, 'bench.db');
const value = new TextEncoder().encode(JSON.stringify({ kind: 'ConfigMap', data: { v: 'x'.repeat(960) } }));

const kv = openSQLiteKV(path, { compactMinRetain: 1000 });
// A second connection to the same file for the raw statements, in their own tables.
const db = new DatabaseSync(path);
db.exec('PRAGMA busy_timeout = 30000; PRAGMA synchronous = NORMAL');
for (const s of SCHEMA) db.exec(s.replaceAll('kv_log', 'raw_log').replaceAll('kv_meta', 'raw_meta'));
db.exec('CREATE TABLE IF NOT EXISTS plain (name TEXT PRIMARY KEY, value BLOB NOT NULL, rev INTEGER NOT NULL)');
const rawLatest = db.prepare(LATEST_SQL.replaceAll('kv_log', 'raw_log'));
const rawInsert = db.prepare(INSERT_SQL.replaceAll('kv_log', 'raw_log'));
const plainInsert = db.prepare('INSERT INTO plain (name, value, rev) VALUES (?, ?, 1)');
const plainUpdate = db.prepare('UPDATE plain SET value = ?, rev = rev + 1 WHERE name = ? AND rev = ?');
let rawRev = 0;

type Variant = (i: number) => Promise<void> | void;

async function measure(variants: Record<string, Variant>): Promise<Record<string, number>> {
  const per = N / ROUNDS;
  const samples: Record<string, number[]> = {};
  let offset = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, fn] of Object.entries(variants)) {
      const t0 = performance.now();
      for (let i = 0; i < per; i++) await fn(offset + i);
      (samples[name] ??= []).push((performance.now() - t0) / per);
    }
    offset += per;
  }
  const out: Record<string, number> = {};
  for (const [name, s] of Object.entries(samples))
    out[name] = 1000 / s.sort((a, b) => a - b)[Math.floor(s.length / 2)]!;
  return out;
}

function rawLogWrite(key: string) {
  const prev = rawLatest.all(key)[0] as { id: number; deleted: number; create_revision: number } | undefined;
  rawInsert.run(++rawRev, key, prev ? 0 : 1, 0, prev ? prev.create_revision : 0, prev?.id ?? 0, 0, value);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const report = (what: string, r: Record<string, number>, kvName: string) => {
  const parts = Object.entries(r).map(([k, v]) => `${k} ${fmt(v)}/s`);
  const ratios = Object.entries(r)
    .filter(([k]) => k !== kvName)
    .map(([k, v]) => `${(v / r[kvName]!).toFixed(2)}× vs ${k}`);
  console.log(`${what}: ${parts.join(', ')}  (KV cost ${ratios.join(', ')})`);
};

console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}; node ${process.version}; ${N} ops per variant, ${ROUNDS} rounds`,
);

// Creates.
report(
  'creates',
  await measure({
    kv: async (i) => void (await kv.create(`/registry/configmaps/ns/cm-${i}`, value)),
    'raw log': (i) => rawLogWrite(`/registry/configmaps/ns/cm-${i}`),
    'plain table': (i) => void plainInsert.run(`/registry/configmaps/ns/cm-${i}`, value),
  }),
  'kv',
);

// Updates of one key.
let kvRev = (await kv.create('/registry/configmaps/ns/hot', value)).revision;
rawLogWrite('/registry/configmaps/ns/hot');
plainInsert.run('/registry/configmaps/ns/hot', value);
let plainRev = 1;
report(
  'updates (one key)',
  await measure({
    kv: async () => {
      const r = await kv.update('/registry/configmaps/ns/hot', value, kvRev);
      if (!r.succeeded) throw new Error('lost update');
      kvRev = r.revision;
    },
    'raw log': () => rawLogWrite('/registry/configmaps/ns/hot'),
    'plain table': () => void plainUpdate.run(value, '/registry/configmaps/ns/hot', plainRev++),
  }),
  'kv',
);

// Watch delivery latency, in-process: one write at a time, the watcher's receipt time minus the write's start.
{
  const ac = new AbortController();
  const sent = new Map<number, number>();
  const lat: number[] = [];
  const start = (await kv.currentRevision()) + 1;
  const COUNT = 2000;
  const done = (async () => {
    for await (const r of kv.watch('/registry/pods/', { startRevision: start, signal: ac.signal })) {
      const now = performance.now();
      for (const e of r.events) lat.push(now - sent.get(e.kv.modRevision)!);
      if (lat.length >= COUNT) break;
    }
  })();
  for (let i = 0; i < COUNT; i++) {
    const t0 = performance.now();
    const expected = (await kv.currentRevision()) + 1;
    sent.set(expected, t0);
    const r = await kv.create(`/registry/pods/ns/p-${i}`, value);
    if (r.revision !== expected) throw new Error('unexpected revision');
    await new Promise((res) => setImmediate(res));
  }
  await done;
  ac.abort();
  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(lat.length * p))]!.toFixed(3);
  console.log(
    `watch delivery (${COUNT} events, in-process): p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${lat[lat.length - 1]!.toFixed(3)} ms`,
  );
}
await kv.close();
db.close();

// Database size under a write loop: one key updated SIZE_UPDATES times, compaction every 1,000
// revisions keeping 1,000 (kine's compact-min-retain), as the storage compactor would.
{
  const p = join(dir, 'size.db');
  const skv = openSQLiteKV(p, { compactMinRetain: 1000 });
  let rev = (await skv.create('/registry/leases/ns/l', value)).revision;
  const sizes: string[] = [];
  const fileBytes = () =>
    statSync(p).size +
    (() => {
      try {
        return statSync(p + '-wal').size;
      } catch {
        return 0;
      }
    })();
  const t0 = performance.now();
  for (let i = 1; i <= SIZE_UPDATES; i++) {
    rev = ((await skv.update('/registry/leases/ns/l', value, rev)) as { revision: number }).revision;
    if (i % 1000 === 0) await skv.compact(rev);
    if (i === 1000 || i === 10_000 || i === SIZE_UPDATES / 2 || i === SIZE_UPDATES)
      sizes.push(`${fmt(i)}: ${(fileBytes() / 1024).toFixed(0)} KiB`);
  }
  const secs = (performance.now() - t0) / 1000;
  await skv.close();
  const probe = new DatabaseSync(p);
  const rows = (probe.prepare('SELECT COUNT(*) AS n FROM kv_log').get() as { n: number }).n;
  probe.close();
  console.log(
    `size while updating one 1 KiB key (file + WAL after n updates): ${sizes.join(', ')}; rows at the end ${rows}; ${fmt(SIZE_UPDATES / secs)} updates/s with compaction`,
  );
}
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
rmSync(dir, { recursive: true, force: true });
