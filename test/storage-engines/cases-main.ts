// Runs the shared conformance cases in this process's runtime against its SQLite binding — `bun`
// (bun:sqlite) or `deno` (node:sqlite in Deno): the KV cases (src/storage/testing/kv-cases.ts) on
// the engine, then the storage.Interface suite (storage-cases.ts) over the store on it; one fresh
// database file per case. Prints one JSON line per case: {"suite", "name", "ok", "error"?, "ms"}.
// Driven by test/storage-engines.test.ts (one process per runtime).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KV } from '../../src/storage/kv.ts';
import { kvCases } from '../../src/storage/testing/kv-cases.ts';
import { storageCases } from '../../src/storage/testing/storage-cases.ts';
import { storeSubject } from '../../src/storage/testing/subjects.ts';
import type { RevisionLogOptions } from '../../src/storage/sqlite/revision-log.ts';

type Open = (path: string, opts: RevisionLogOptions) => KV;

const runtime = (globalThis as { process?: { argv: string[] } }).process?.argv.at(-1);
let open: Open;
if (runtime === 'bun') open = (await import('../../adapters/bun/sqlite.ts')).openBunSQLiteKV;
else if (runtime === 'deno') open = (await import('../../adapters/node/sqlite.ts')).openSQLiteKV;
else throw new Error(`usage: cases-main.ts bun|deno (got ${runtime})`);

const opts: RevisionLogOptions = { compactMinRetain: 0, progressIntervalMs: 100, ttlSweepMs: 100 };
const dir = mkdtempSync(join(tmpdir(), `sqlite-kv-${runtime}-`));
const suites: { suite: string; cases: { name: string; run(kv: KV): Promise<void> }[] }[] = [
  { suite: 'kv', cases: kvCases },
  { suite: 'storage', cases: storageCases.map((c) => ({ name: c.name, run: (kv: KV) => c.run(storeSubject(kv)) })) },
];
try {
  let i = 0;
  for (const { suite, cases } of suites) {
    for (const c of cases) {
      const t0 = performance.now();
      const kv = open(join(dir, `case-${i++}.db`), opts);
      let line: Record<string, unknown>;
      try {
        await c.run(kv);
        line = { suite, name: c.name, ok: true };
      } catch (err) {
        line = {
          suite,
          name: c.name,
          ok: false,
          error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
        };
      } finally {
        await kv.close();
      }
      console.log(JSON.stringify({ ...line, ms: Math.round(performance.now() - t0) }));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log('DONE');
