// The revision log on bun:sqlite: a database file in WAL mode (synchronous=NORMAL, busy timeout),
// as adapters/node/sqlite.ts on node:sqlite. The engine itself is src/storage/sqlite/.
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { Database, type Statement } from 'bun:sqlite';
import type { SQLDriver, SQLRow, SQLValue } from '../../src/storage/sqlite/driver.ts';
import { RevisionLog, type RevisionLogOptions } from '../../src/storage/sqlite/revision-log.ts';

export interface BunSQLiteKVOptions extends RevisionLogOptions {
  /** PRAGMA busy_timeout. */
  busyTimeoutMs?: number;
}

type Bindable = null | number | bigint | string | Uint8Array;

function bindable(params: readonly SQLValue[] | undefined): Bindable[] {
  if (!params) return [];
  return params.map((p) => (p instanceof ArrayBuffer ? new Uint8Array(p) : p));
}

/** The driver seam over an open bun:sqlite Database (db.query caches statements by their text). */
export function bunSQLiteDriver(db: Database, path = ':memory:'): SQLDriver {
  const cache = new Map<string, Statement>();
  const q = (sql: string) => {
    let s = cache.get(sql);
    if (!s) cache.set(sql, (s = db.query(sql)));
    return s;
  };
  const mode = db.query('PRAGMA journal_mode').get() as { journal_mode?: string } | null;
  const wal = mode?.journal_mode === 'wal';
  return {
    exec: (sql, params) => q(sql).all(...bindable(params)) as SQLRow[],
    run: (sql, params) => void q(sql).run(...bindable(params)),
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
    checkpoint: wal ? () => void db.exec('PRAGMA wal_checkpoint(TRUNCATE)') : undefined,
    size() {
      const r = db.query('SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()').get();
      let walBytes = 0;
      if (wal && path !== ':memory:') {
        try {
          walBytes = statSync(path + '-wal').size;
        } catch {
          // no WAL file right now
        }
      }
      return Number(r?.n ?? 0) + walBytes;
    },
    close: () => db.close(),
  };
}

/** Opens (creating it and its directory if needed) the SQLite file at `path` as a KV engine. */
export function openBunSQLiteKV(path: string, opts: BunSQLiteKVOptions = {}): RevisionLog {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { create: true });
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 30_000))}`);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    return new RevisionLog(bunSQLiteDriver(db, path), opts);
  } catch (err) {
    db.close();
    throw err;
  }
}
