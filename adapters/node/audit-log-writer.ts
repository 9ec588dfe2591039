// The audit log file on Node: `--audit-log-path` with lumberjack's rotation, as kube-apiserver
// (gopkg.in/natefinch/lumberjack.v2): rotate before a write would pass --audit-log-maxsize MB,
// backups named `<name>-<2006-01-02T15-04-05.000>.<ext>` (UTC), then prune by
// --audit-log-maxbackup and --audit-log-maxage and gzip with --audit-log-compress.
// --audit-log-maxsize=0 appends to the file without rotation (os.OpenFile O_APPEND).
//
// Writes are batched: one write per turn of the event loop whatever the number of events, and
// each caller's Promise settles when its lines are on disk (or rejects, e.g. disk full: ENOSPC).
//
//   buildServerFromFlags(argv, { fileSystem, openAuditLog: openAuditLogFile })

import { createReadStream, createWriteStream, promises as fsp } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { AuditLogFileOptions, AuditWriter } from '../../src/audit/log.ts';
import { goPathError } from '../../src/util/go.ts';

const megabyte = 1024 * 1024;

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

/** lumberjack's backupTimeFormat "2006-01-02T15-04-05.000", UTC. */
function backupTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}-${pad(d.getUTCMinutes())}-${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}

function parseBackupTime(s: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/.exec(s);
  if (!m) return undefined;
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, +m[7]!);
}

/** Lines waiting for one write; every caller of the batch shares its Promise. */
interface Batch {
  chunks: string[];
  done: Promise<void>;
  resolve: () => void;
  reject: (err: Error) => void;
}

export class AuditLogFile implements AuditWriter {
  readonly filename: string;
  private readonly opts: AuditLogFileOptions;
  private handle?: fsp.FileHandle;
  private size = 0;
  /** The batch still taking lines (it is written once the previous write finished). */
  private open?: Batch;
  /** The last scheduled batch write; batches are written strictly in order. */
  private tail: Promise<void> = Promise.resolve();
  private lastBackup = 0;
  private mill: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(filename: string, opts: AuditLogFileOptions) {
    this.filename = filename;
    this.opts = opts;
  }

  private get maxBytes(): number {
    return this.opts.maxSize * megabyte;
  }

  /** ensureLogFile: the directory (0700) and the file (0600) exist, or the error says why. */
  async ensure(): Promise<void> {
    try {
      await fsp.mkdir(path.dirname(this.filename), { recursive: true, mode: 0o700 });
    } catch (err) {
      // Go's MkdirAll reports an existing non-directory as ENOTDIR.
      const e =
        (err as NodeJS.ErrnoException).code === 'EEXIST' ? Object.assign(new Error(), { code: 'ENOTDIR' }) : err;
      throw new Error(`ensureLogFile: ${goPathError('mkdir', path.dirname(this.filename), e).message}`);
    }
    try {
      const h = await fsp.open(this.filename, 'a+', 0o600);
      await h.close();
    } catch (err) {
      throw new Error(`ensureLogFile: ${goPathError('open', this.filename, err).message}`);
    }
  }

  write(data: string): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`write ${this.filename}: file already closed`));
    let batch = this.open;
    if (!batch) {
      let resolve!: () => void;
      let reject!: (err: Error) => void;
      const done = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
      done.catch(() => {}); // callers see the error; an unobserved batch must not crash the process
      batch = this.open = { chunks: [], done, resolve, reject };
      const b = batch;
      // Written after the previous batch and one turn of the event loop later: the lines of
      // every request handled meanwhile go out in one write (one thread-pool round trip).
      this.tail = this.tail.then(() => new Promise<void>((r) => setImmediate(r))).then(() => this.writeBatch(b));
    }
    batch.chunks.push(data);
    return batch.done;
  }

  private async writeBatch(b: Batch): Promise<void> {
    if (this.open === b) this.open = undefined;
    try {
      await this.writeBuffer(Buffer.from(b.chunks.length === 1 ? b.chunks[0]! : b.chunks.join('')));
      b.resolve();
    } catch (err) {
      b.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private async openExistingOrNew(writeLen: number): Promise<void> {
    let st;
    try {
      st = await fsp.stat(this.filename);
    } catch {
      st = undefined;
    }
    if (st && this.maxBytes > 0 && st.size + writeLen >= this.maxBytes) {
      await this.rotate();
      return;
    }
    try {
      this.handle = await fsp.open(this.filename, 'a', 0o600);
      this.size = st?.size ?? 0;
    } catch (err) {
      throw goPathError('open', this.filename, err);
    }
  }

  private async writeBuffer(buf: Buffer): Promise<void> {
    if (this.maxBytes > 0 && buf.byteLength > this.maxBytes) {
      throw new Error(`write length ${buf.byteLength} exceeds maximum file size ${this.maxBytes}`);
    }
    if (!this.handle) await this.openExistingOrNew(buf.byteLength);
    else if (this.maxBytes > 0 && this.size + buf.byteLength > this.maxBytes) await this.rotate();
    let off = 0;
    try {
      while (off < buf.byteLength) {
        const { bytesWritten } = await this.handle!.write(buf, off, buf.byteLength - off);
        off += bytesWritten;
      }
    } catch (err) {
      throw goPathError('write', this.filename, err);
    } finally {
      this.size += off;
    }
  }

  /** Moves the current file to a timestamped backup, opens a new one, prunes in the background. */
  private async rotate(): Promise<void> {
    await this.handle?.close().catch(() => {});
    this.handle = undefined;
    const ext = path.extname(this.filename);
    const prefix = path.basename(this.filename, ext) + '-';
    // Never two backups with one name (several rotations within a millisecond).
    const t = Math.max(Date.now(), this.lastBackup + 1);
    this.lastBackup = t;
    const backup = path.join(path.dirname(this.filename), `${prefix}${backupTime(t)}${ext}`);
    try {
      await fsp.rename(this.filename, backup);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw goPathError('rename', this.filename, err);
    }
    try {
      this.handle = await fsp.open(this.filename, 'w', 0o600);
      this.size = 0;
    } catch (err) {
      throw goPathError('open', this.filename, err);
    }
    this.mill = this.mill.then(() => this.millRun()).catch(() => {});
  }

  /** lumberjack millRunOnce: remove by count and age, compress what is left. */
  private async millRun(): Promise<void> {
    const { maxBackups, maxAge, compress } = this.opts;
    if (maxBackups === 0 && maxAge === 0 && !compress) return;
    const dir = path.dirname(this.filename);
    const ext = path.extname(this.filename);
    const prefix = path.basename(this.filename, ext) + '-';
    const files: { name: string; t: number; gz: boolean }[] = [];
    for (const name of await fsp.readdir(dir)) {
      if (!name.startsWith(prefix)) continue;
      const gz = name.endsWith(ext + '.gz');
      if (!gz && !name.endsWith(ext)) continue;
      const t = parseBackupTime(name.slice(prefix.length, name.length - ext.length - (gz ? 3 : 0)));
      if (t !== undefined) files.push({ name, t, gz });
    }
    files.sort((a, b) => b.t - a.t);
    let keep = files;
    const remove: typeof files = [];
    if (maxBackups > 0 && keep.length > maxBackups) {
      // A backup and its compressed twin count once (lumberjack's "preserved" set).
      const preserved = new Set<string>();
      const kept: typeof files = [];
      for (const f of keep) {
        preserved.add(f.gz ? f.name.slice(0, -3) : f.name);
        (preserved.size > maxBackups ? remove : kept).push(f);
      }
      keep = kept;
    }
    if (maxAge > 0) {
      const cutoff = Date.now() - maxAge * 24 * 3600 * 1000;
      const kept: typeof files = [];
      for (const f of keep) (f.t < cutoff ? remove : kept).push(f);
      keep = kept;
    }
    for (const f of remove) await fsp.rm(path.join(dir, f.name), { force: true });
    if (compress) {
      for (const f of keep) {
        if (f.gz || keep.some((k) => k.gz && k.name === f.name + '.gz')) continue;
        const src = path.join(dir, f.name);
        await pipeline(createReadStream(src), createGzip(), createWriteStream(src + '.gz', { mode: 0o600 }));
        await fsp.rm(src, { force: true });
      }
    }
  }

  /** Waits for queued writes and background pruning, then closes the file. */
  async close(): Promise<void> {
    this.closed = true;
    await this.tail;
    await this.mill;
    await this.handle?.close().catch(() => {});
    this.handle = undefined;
  }
}

/** The Node AuditLogOpener for ApplyContext.openAuditLog. */
export async function openAuditLogFile(filename: string, options: AuditLogFileOptions): Promise<AuditWriter> {
  const f = new AuditLogFile(filename, options);
  await f.ensure();
  return f;
}
