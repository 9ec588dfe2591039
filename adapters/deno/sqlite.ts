// Deno: the revision log on Deno's node:sqlite, which is Node's API — the Node binding as is
// (checked by test/storage-engines.test.ts). Needs --allow-read and --allow-write for the file.
export { openSQLiteKV, nodeSQLiteDriver, type SQLiteKVOptions } from '../node/sqlite.ts';
