// The revision log on node:sqlite (Node ≥ 22.5; Deno's node:sqlite is the same API): one database
// file in WAL mode with synchronous=NORMAL (a commit survives the process being killed; a power loss
// may lose the last commits, as kine's SQLite defaults) and a busy timeout. The engine itself is
// src/storage/sqlite/; this file only binds DatabaseSync to its driver seam.
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { SQLDriver, SQLRow, SQLValue } from '../../src/storage/sqlite/driver.ts';
import { RevisionLog, type RevisionLogOptions } from '../../src/storage/sqlite/revision-log.ts';

export interface SQLiteKVOptions extends RevisionLogOptions {
  /** How long a statement waits for a lock held by another connection (PRAGMA busy_timeout). */
  busyTimeoutMs?: number;
}

type Bindable = null | number | bigint | string | Uint8Array;

function bindable(params: readonly SQLValue[] | undefined): Bindable[] {
  if (!params) return [];
  return params.map((p) => (p instanceof ArrayBuffer ? new Uint8Array(p) : p));
}

/** The driver seam over an open DatabaseSync (prepared statements cached by their text). */
export function nodeSQLiteDriver(db: DatabaseSync, path = ':memory:'): SQLDriver {
  const statements = new Map<string, StatementSync>();
  const prepare = (sql: string) => {
    let s = statements.get(sql);
    if (!s) statements.set(sql, (s = db.prepare(sql)));
    return s;
  };
  const wal = String((db.prepare('PRAGMA journal_mode').get() as { journal_mode?: string }).journal_mode) === 'wal';
  let inTransaction = false;
  return {
    exec: (sql, params) => prepare(sql).all(...bindable(params)) as SQLRow[],
    run: (sql, params) => void prepare(sql).run(...bindable(params)),
    transaction<T>(fn: () => T): T {
      if (inTransaction) throw new Error('nested transaction');
      db.exec('BEGIN IMMEDIATE');
      inTransaction = true;
      try {
        const out = fn();
        db.exec('COMMIT');
        return out;
      } catch (err) {
        db.exec('ROLLBACK');
        throw err;
      } finally {
        inTransaction = false;
      }
    },
    checkpoint: wal ? () => void db.exec('PRAGMA wal_checkpoint(TRUNCATE)') : undefined,
    size() {
      const r = db.prepare('SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()').get() as {
        n: number;
      };
      let walBytes = 0;
      if (wal && path !== ':memory:') {
        try {
          walBytes = statSync(path + '-wal').size;
        } catch {
          // no WAL file right now
        }
      }
      return Number(r.n) + walBytes;
    },
    close: () => db.close(),
  };
}

/**
 * Opens (creating it and its directory if needed) the SQLite file at `path` as a KV engine
 * (":memory:" for a throwaway database). One process at a time: the engine is the file's only writer.
 */
export function openSQLiteKV(path: string, opts: SQLiteKVOptions = {}): RevisionLog {
  if (path !== ':memory:' && !path.startsWith('file:')) mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 30_000))}`);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    return new RevisionLog(nodeSQLiteDriver(db, path), opts);
  } catch (err) {
    db.close();
    throw err;
  }
}
