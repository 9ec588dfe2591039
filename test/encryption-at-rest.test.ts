// Encryption at rest end to end (--encryption-provider-config): kubectl 1.32 writes a Secret
// through the CLI server; the bytes in the SQLite file and in etcd are ciphertext with upstream's
// `k8s:enc:<provider>:v1:<key>:` prefix while kubectl reads the plain Secret; ConfigMaps (not
// listed) stay plain; key rotation: a new first key reads the old values and a replace rewrites
// them with it; a bad configuration stops the server with upstream's message.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { etcdSkip, freePort, startEtcd } from './etcd-harness.ts';
import { kubectlOK, kubectlSkip, runKubectl, startCLIServer } from './kubectl-server.ts';

const root = new URL('..', import.meta.url).pathname;
const skip = kubectlSkip;
const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-encryption-'));
const children = new Set<ChildProcess>();
after(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const key1 = Buffer.alloc(32, 1).toString('base64');
const key2 = Buffer.alloc(32, 2).toString('base64');
const password = 'hunter2-plain';
const passwordB64 = Buffer.from(password).toString('base64');

function encryptionConfig(name: string, providers: string): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
${providers}`,
  );
  return file;
}
const aescbc1 = `      - aescbc:\n          keys: [{name: key1, secret: "${key1}"}]\n`;
const aesgcm2 = `      - aesgcm:\n          keys: [{name: key2, secret: "${key2}"}]\n`;

const startServer = (args: string[]) => startCLIServer(join(dir, 'certs'), args);
const run = runKubectl;
const ok = kubectlOK;

/** The latest stored bytes of a key in the SQLite revision log. */
function sqliteValue(file: string, key: string): Buffer {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const row = db.prepare('SELECT value FROM kv_log WHERE name = ? ORDER BY id DESC LIMIT 1').get(key) as
      { value: Uint8Array } | undefined;
    assert.ok(row, `no row for ${key}`);
    return Buffer.from(row.value);
  } finally {
    db.close();
  }
}

test(
  'SQLite: Secrets are stored encrypted, read back plain; rotation to a new first key rewrites them',
  { skip },
  async () => {
    const db = join(dir, 'enc.db');
    let server = await startServer([
      `--sqlite-path=${db}`,
      `--encryption-provider-config=${encryptionConfig('c1.yaml', aescbc1)}`,
    ]);
    try {
      await ok(server, ['create', 'secret', 'generic', 's1', `--from-literal=password=${password}`]);
      await ok(server, ['create', 'configmap', 'c1', `--from-literal=password=${password}`]);
      assert.equal((await ok(server, ['get', 'secret', 's1', '-o', 'jsonpath={.data.password}'])).trim(), passwordB64);
      const stored = sqliteValue(db, '/registry/secrets/default/s1');
      assert.ok(
        stored.toString('latin1').startsWith('k8s:enc:aescbc:v1:key1:'),
        stored.toString('latin1').slice(0, 40),
      );
      assert.ok(!stored.includes(passwordB64) && !stored.includes(password) && !stored.includes('"kind"'));
      assert.ok(sqliteValue(db, '/registry/configmaps/default/c1').includes(password), 'configmaps are not listed');
    } finally {
      assert.equal(await server.stop(), 0);
    }

    // Rotation: the new key first, the old one still listed for reading.
    server = await startServer([
      `--sqlite-path=${db}`,
      `--encryption-provider-config=${encryptionConfig('c2.yaml', aesgcm2 + aescbc1)}`,
    ]);
    try {
      assert.equal((await ok(server, ['get', 'secret', 's1', '-o', 'jsonpath={.data.password}'])).trim(), passwordB64);
      await ok(server, ['replace', '--validate=false', '-f', '-'], await ok(server, ['get', 'secrets', '-o', 'json']));
      const stored = sqliteValue(db, '/registry/secrets/default/s1');
      assert.ok(
        stored.toString('latin1').startsWith('k8s:enc:aesgcm:v1:key2:'),
        stored.toString('latin1').slice(0, 40),
      );
      assert.equal((await ok(server, ['get', 'secret', 's1', '-o', 'jsonpath={.data.password}'])).trim(), passwordB64);
    } finally {
      assert.equal(await server.stop(), 0);
    }

    // Without the key, the value cannot be read: a 500, never the ciphertext or a crash.
    server = await startServer([
      `--sqlite-path=${db}`,
      `--encryption-provider-config=${encryptionConfig('c3.yaml', aescbc1)}`,
    ]);
    try {
      const r = await run(server, ['get', 'secret', 's1']);
      assert.notEqual(r.code, 0);
      assert.match(
        r.stderr,
        /Internal error occurred: unable to transform key "\/registry\/secrets\/default\/s1": no matching prefix found/,
      );
    } finally {
      assert.equal(await server.stop(), 0);
    }
  },
);

test('etcd: the bytes etcd holds for a Secret are ciphertext', { skip: skip || etcdSkip() }, async () => {
  const etcd = await startEtcd();
  try {
    const server = await startServer([
      `--etcd-servers=${etcd.clientURL}`,
      `--encryption-provider-config=${encryptionConfig('c4.yaml', `      - secretbox:\n          keys: [{name: key3, secret: "${key1}"}]\n`)}`,
    ]);
    try {
      await ok(server, ['create', 'secret', 'generic', 's2', `--from-literal=password=${password}`]);
      assert.equal((await ok(server, ['get', 'secret', 's2', '-o', 'jsonpath={.data.password}'])).trim(), passwordB64);
    } finally {
      assert.equal(await server.stop(), 0);
    }
    const res = await fetch(`${etcd.clientURL}/v3/kv/range`, {
      method: 'POST',
      body: JSON.stringify({ key: Buffer.from('/registry/secrets/default/s2').toString('base64') }),
    });
    const body = (await res.json()) as { kvs?: { value: string }[] };
    const stored = Buffer.from(body.kvs![0]!.value, 'base64');
    assert.ok(stored.toString('latin1').startsWith('k8s:enc:secretbox:v1:key3:'));
    assert.ok(!stored.includes(passwordB64) && !stored.includes(password));
  } finally {
    await etcd.stop();
  }
});

test("a bad EncryptionConfiguration stops the server with upstream's message (the secret redacted)", async () => {
  const port = await freePort();
  const file = encryptionConfig(
    'bad.yaml',
    `      - aescbc:\n          keys: [{name: k, secret: "${Buffer.alloc(8).toString('base64')}"}]\n`,
  );
  const proc = spawn(
    process.execPath,
    [
      join(root, 'adapters/node/bin.mjs'),
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
      `--cert-dir=${join(dir, 'certs-bad')}`,
      '--storage-backend=memory',
      `--encryption-provider-config=${file}`,
    ],
    { env: { ...process.env, NODE_NO_WARNINGS: '1' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.add(proc);
  let err = '';
  proc.stderr!.setEncoding('utf8').on('data', (d) => (err += d));
  const code = await new Promise<number | null>((r) => proc.once('exit', (c) => (children.delete(proc), r(c))));
  assert.equal(code, 1, err);
  assert.ok(
    err.includes(
      `error while parsing encryption provider configuration file "${file}": error while parsing file: resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]`,
    ),
    err,
  );
  assert.ok(!err.includes(Buffer.alloc(8).toString('base64')), 'the secret is not logged');
});
