// The revision log's tables (kine's idea: k3s-io/kine pkg/drivers/sqlite/sqlite.go, re-typed).
// kv_log is append-only; a row's id is the revision of the write that produced it. The id is given
// by the engine (its revision + 1: it is the only writer), not AUTOINCREMENT, which would write
// sqlite_sequence on every commit.
//   created = 1: the write created the key (create_revision is then the row's own id, stored as 0)
//   deleted = 1: a tombstone (value NULL); prev_revision: the key's previous row (0 for a first create)
//   lease: TTL in seconds (0: none)
// UNIQUE (name, prev_revision) is the optimistic-concurrency guard: two writers that read the same
// latest row cannot both append after it. It is also the only index by key: a key's rows form a
// chain (each row's prev_revision is the previous row's id), so prev_revision orders them like id,
// and a row's successor is the row whose prev_revision is its id. kv_meta holds the compacted revision.
export const SCHEMA: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS kv_log (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    created INTEGER NOT NULL,
    deleted INTEGER NOT NULL,
    create_revision INTEGER NOT NULL,
    prev_revision INTEGER NOT NULL,
    lease INTEGER NOT NULL,
    value BLOB
  )`,
  'CREATE UNIQUE INDEX IF NOT EXISTS kv_log_name_prev_revision ON kv_log (name, prev_revision)',
  'CREATE INDEX IF NOT EXISTS kv_log_lease ON kv_log (lease) WHERE lease > 0',
  'CREATE TABLE IF NOT EXISTS kv_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL)',
];

/** The bootstrap row's key: no storage key is empty, and '' falls in no prefix range. */
export const BOOTSTRAP_KEY = '';

export const COLUMNS = 'id, name, created, deleted, create_revision, prev_revision, lease, value';

/** The latest row of one key, optionally at a revision. */
export const LATEST_SQL = `SELECT ${COLUMNS} FROM kv_log WHERE name = ? ORDER BY prev_revision DESC LIMIT 1`;
export const LATEST_AT_SQL = `SELECT ${COLUMNS} FROM kv_log WHERE name = ? AND id <= ? ORDER BY prev_revision DESC LIMIT 1`;

// Live keys in [start, end) at revision ?: a row is a key's state at the revision when its successor
// (if any) came after it. Walks the (name, prev_revision) index in key order, so LIMIT stops early.
const LIVE_AT = `FROM kv_log l WHERE l.name >= ? AND l.name < ? AND l.id <= ? AND l.deleted = 0
  AND NOT EXISTS (SELECT 1 FROM kv_log n WHERE n.name = l.name AND n.prev_revision = l.id AND n.id <= ?)`;
export const LIST_SQL = `SELECT ${COLUMNS.replace(/(\w+)/g, 'l.$1')} ${LIVE_AT} ORDER BY l.name LIMIT ?`;
export const COUNT_SQL = `SELECT COUNT(*) AS n ${LIVE_AT}`;

/** History for watch catch-up: rows in [start, end) from a revision on, with the row each one replaced. */
export const AFTER_SQL = `SELECT l.id, l.name, l.created, l.deleted, l.create_revision, l.lease, l.value,
    p.id AS p_id, p.created AS p_created, p.create_revision AS p_create_revision, p.lease AS p_lease, p.value AS p_value
  FROM kv_log l LEFT JOIN kv_log p ON p.id = l.prev_revision AND l.created = 0
  WHERE l.name >= ? AND l.name < ? AND l.id >= ? ORDER BY l.id LIMIT ?`;

export const INSERT_SQL = `INSERT INTO kv_log (id, name, created, deleted, create_revision, prev_revision, lease, value)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

// Compaction of the revisions in (from, to]: the rows those revisions superseded, and tombstones.
// Every revision after `to` still has its previous row (for prevKv), as in kine's compact query.
export const COMPACT_SQL = `DELETE FROM kv_log WHERE id IN (
  SELECT prev_revision FROM kv_log WHERE id > ? AND id <= ? AND prev_revision != 0
  UNION SELECT id FROM kv_log WHERE id > ? AND id <= ? AND deleted != 0)`;

export const TTL_KEYS_SQL = `SELECT l.name, l.id, l.lease FROM kv_log l WHERE l.lease > 0 AND l.deleted = 0
  AND NOT EXISTS (SELECT 1 FROM kv_log n WHERE n.name = l.name AND n.prev_revision = l.id)`;
