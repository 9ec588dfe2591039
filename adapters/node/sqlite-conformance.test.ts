// The shared conformance cases against the revision log on node:sqlite: the KV cases
// (src/storage/testing/kv-cases.ts) on a fresh database file per case and once more all on one
// shared file, then the storage.Interface suite (storage-cases.ts) over the store and the watch cache.
import { test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kvCases } from '../../src/storage/testing/kv-cases.ts';
import { storageCases } from '../../src/storage/testing/storage-cases.ts';
import { cacherSubject, storeSubject } from '../../src/storage/testing/subjects.ts';
import { openSQLiteKV } from './sqlite.ts';

const dir = mkdtempSync(join(tmpdir(), 'sqlite-kv-cases-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
// Compaction as the cases ask for it (no retained window); short idle progress interval and TTL sweep.
const opts = { compactMinRetain: 0, progressIntervalMs: 100, ttlSweepMs: 100 };

kvCases.forEach((c, i) => {
  test(`node:sqlite KV: ${c.name}`, async () => {
    const kv = openSQLiteKV(join(dir, `case-${i}.db`), opts);
    try {
      await c.run(kv);
    } finally {
      await kv.close();
    }
  });
});

test('node:sqlite KV: every case on one shared file, one after another', async () => {
  const kv = openSQLiteKV(join(dir, 'shared.db'), opts);
  try {
    for (const c of kvCases) await c.run(kv);
  } finally {
    await kv.close();
  }
});

// The storage conformance suite: storage.Interface (the store, and the watch cache above it) over
// the revision log, a fresh file per case.
storageCases.forEach((c, i) => {
  test(`store on node:sqlite: ${c.name}`, async () => {
    const kv = openSQLiteKV(join(dir, `store-${i}.db`), opts);
    try {
      await c.run(storeSubject(kv));
    } finally {
      await kv.close();
    }
  });
  test(`watch cache on node:sqlite: ${c.name}`, async () => {
    const kv = openSQLiteKV(join(dir, `cacher-${i}.db`), opts);
    try {
      await c.run(cacherSubject(kv));
    } finally {
      await kv.close();
    }
  });
});
