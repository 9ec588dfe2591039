// The SQL seam under the revision log: the few synchronous calls that node:sqlite's DatabaseSync,
// bun:sqlite's Database and a Durable Object's ctx.storage.sql (+ transactionSync) all offer.
// Synchronous on purpose: a statement's rows are consumed before the caller can await anything,
// which a Durable Object requires (its cursors have no snapshot isolation across awaits) and which
// makes one process the single writer without locks (JavaScript runs one statement at a time).

/** A bound parameter or a column value. BLOBs may come back as ArrayBuffer (Durable Objects). */
export type SQLValue = null | number | bigint | string | Uint8Array | ArrayBuffer;

export type SQLRow = Record<string, SQLValue>;

export interface SQLDriver {
  /** Runs one statement (`?` placeholders) and returns all its rows. */
  exec(sql: string, params?: readonly SQLValue[]): SQLRow[];
  /** Runs one statement for its effect. */
  run(sql: string, params?: readonly SQLValue[]): void;
  /** Runs `fn` in one transaction: committed when it returns, rolled back when it throws. Not nested. */
  transaction<T>(fn: () => T): T;
  /** Moves the write-ahead log into the database file and truncates it, where the database has one. */
  checkpoint?(): void;
  /** Bytes the database file(s) take (page_count × page_size, or a Durable Object's databaseSize). */
  size?(): number;
  /** Largest key + value, in bytes, the platform stores in one row (a Durable Object: 2 MB). */
  readonly maxRowBytes?: number;
  close(): void;
}

/** Column value → bytes: Uint8Array as is, ArrayBuffer (Durable Objects) wrapped, NULL empty. */
export function bytesOf(v: SQLValue | undefined): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  if (v === null || v === undefined) return new Uint8Array(0);
  if (typeof v === 'string') return new TextEncoder().encode(v);
  throw new TypeError(`expected a BLOB column, got ${typeof v}`);
}

/** Column value → number (SQLite INTEGER; revisions stay far below 2^53). */
export function numberOf(v: SQLValue | undefined): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v === null || v === undefined) return 0;
  return Number(v);
}
