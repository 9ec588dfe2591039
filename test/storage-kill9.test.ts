// Nothing lost: SIGKILL in the middle of a write load, then the SQLite file passes PRAGMA
// integrity_check and holds every write that was acknowledged, at the revision it was acknowledged
// with. Twice: a child process driving the revision log directly (test/storage-engines/kill9-writer.ts,
// every acknowledged write printed), and the CLI taking ConfigMap creates over HTTPS, restarted on
// the same --cert-dir afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openSQLiteKV } from '../adapters/node/sqlite.ts';
import { rawRequest, startCLIServer, type CLIServer } from './kubectl-server.ts';

const REPO_ROOT = new URL('../', import.meta.url).pathname;

test(
  'SIGKILL mid-load: the database opens cleanly and every acknowledged write is there',
  { timeout: 60_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'kill9-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'registry.db');
    const child = spawn(process.execPath, ['test/storage-engines/kill9-writer.ts', path], {
      cwd: REPO_ROOT,
      env: { ...process.env, NODE_NO_WARNINGS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    // Kill once 3,000 writes were acknowledged (or after 8 s under a loaded machine).
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 8000);
      child.stdout.on('data', (d: Buffer) => {
        out += d;
        if ((out.match(/\n/g)?.length ?? 0) >= 3000) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on('exit', () => resolve());
    });
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL', `the writer was killed, not exited: ${err}`);
    const acks = out
      .split('\n')
      .filter((l) => l.startsWith('ACK '))
      .map((l) => {
        const [, op, key, rev, ...value] = l.split(' ');
        return { op: op!, key: key!, rev: Number(rev), value: value.join(' ') };
      });
    assert.ok(acks.length > 100, `enough writes acknowledged before the kill (${acks.length}); stderr: ${err}`);

    const probe = new DatabaseSync(path);
    const integrity = probe.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[];
    probe.close();
    assert.deepEqual(
      integrity.map((r) => r.integrity_check),
      ['ok'],
    );

    const kv = openSQLiteKV(path);
    t.after(() => kv.close());
    const dec = new TextDecoder();
    const current = await kv.currentRevision();
    const maxAck = Math.max(...acks.map((a) => a.rev));
    assert.ok(current >= maxAck, `current revision ${current} ≥ last acknowledged ${maxAck}`);
    let found = 0;
    for (const a of acks) {
      const g = await kv.get(a.key, { revision: a.rev });
      if (g.kv && g.kv.modRevision === a.rev && dec.decode(g.kv.value) === a.value) found++;
      else assert.fail(`acknowledged ${a.op} of ${a.key} at ${a.rev} is missing (got ${g.kv?.modRevision})`);
    }
    assert.equal(found, acks.length);
    t.diagnostic(`writes acknowledged ${acks.length}, found ${found}, revision after restart ${current}`);
    // The reopened log keeps going from there.
    assert.equal((await kv.create('/registry/configmaps/default/after', new Uint8Array([1]))).revision, current + 1);
  },
);

test(
  'SIGKILL of the CLI under concurrent creates: after a restart every acknowledged ConfigMap is there',
  { timeout: 120_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'kill9-cli-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const certDir = join(dir, 'certs');
    let server: CLIServer = await startCLIServer(certDir, []);
    t.after(() => server.kill());
    // The default namespace is created in the background at start.
    for (let i = 0; i < 100 && (await rawRequest(server, 'GET', '/api/v1/namespaces/default')).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 100));

    const acked = new Map<string, string>(); // name → resourceVersion of the 201
    let killed = false;
    let n = 0;
    const client = async () => {
      while (!killed) {
        const name = `cm-${n++}`;
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { n: name } });
        try {
          const r = await rawRequest(server, 'POST', '/api/v1/namespaces/default/configmaps', { body });
          if (r.status === 201) acked.set(name, JSON.parse(r.body).metadata.resourceVersion);
          else if (!killed) assert.fail(`create ${name}: ${r.status} ${r.body}`);
        } catch (err) {
          if (!killed) throw err;
        }
      }
    };
    const clients = Array.from({ length: 8 }, client);
    // Kill once 400 creates were acknowledged (or after 10 s under a loaded machine).
    for (let i = 0; i < 200 && acked.size < 400; i++) await new Promise((r) => setTimeout(r, 50));
    killed = true;
    server.kill();
    await Promise.all(clients);
    assert.ok(acked.size > 50, `enough creates acknowledged before the kill (${acked.size})`);

    const probe = new DatabaseSync(join(certDir, 'registry.db'));
    const integrity = probe.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[];
    probe.close();
    assert.deepEqual(
      integrity.map((r) => r.integrity_check),
      ['ok'],
    );

    server = await startCLIServer(certDir, []);
    const list = await rawRequest(server, 'GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(list.status, 200, list.body);
    const stored = new Map<string, string>(
      (JSON.parse(list.body).items as { metadata: { name: string; resourceVersion: string } }[]).map((o) => [
        o.metadata.name,
        o.metadata.resourceVersion,
      ]),
    );
    for (const [name, rv] of acked) assert.equal(stored.get(name), rv, `acknowledged ${name} at ${rv}`);
    t.diagnostic(`creates acknowledged ${acked.size}, stored after restart ${stored.size}`);
  },
);
