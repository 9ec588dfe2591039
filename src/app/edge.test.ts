import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EdgeServer, LayeredFileSystem, mergeSettings, settingsFromEnv } from './edge.ts';
import { MemoryFileSystem } from '../util/filesystem.ts';
import { discardLogger } from '../util/logger.ts';

test('settingsFromEnv: flags, JSON files from every APISERVER_FILES* var, verbosity', () => {
  const s = settingsFromEnv({
    APISERVER_FLAGS: '--a=1 "--b=x y"',
    APISERVER_FILES: '{"/etc/a": "A", "/etc/b": "B"}',
    APISERVER_FILES_SECRET: { '/etc/b': 'secret B', '/etc/bin': { base64: 'AAEC' } },
    APISERVER_V: '4',
    OTHER: 'x',
  });
  assert.equal(s.flags, '--a=1 "--b=x y"');
  assert.equal(s.files!['/etc/a'], 'A');
  assert.equal(s.files!['/etc/b'], 'secret B');
  assert.deepEqual([...(s.files!['/etc/bin'] as Uint8Array)], [0, 1, 2]);
  assert.ok(s.logger?.enabled(4));
  assert.throws(() => settingsFromEnv({ APISERVER_FILES: 'not json' }), /APISERVER_FILES: not a JSON object/);
  assert.throws(() => settingsFromEnv({ APISERVER_FILES: '{"/x": 1}' }), /"\/x" must be a string/);
  assert.deepEqual(settingsFromEnv(undefined).files, {});
});

test('mergeSettings: env flags after code flags, env files win', () => {
  const m = mergeSettings(
    { flags: '--a=1', files: { '/x': 'code', '/y': 'y' } },
    { flags: ['--a=2'], files: { '/x': 'env' } },
  );
  assert.deepEqual(m.flags, ['--a=1', '--a=2']);
  assert.deepEqual(m.files, { '/x': 'env', '/y': 'y' });
});

test('LayeredFileSystem: memory first, then the fallback', async () => {
  const fs = new LayeredFileSystem(
    { '/etc/k/a': 'mem' },
    new MemoryFileSystem({ '/etc/k/a': 'disk', '/etc/k/b': 'disk b' }),
  );
  assert.equal(new TextDecoder().decode(await fs.readFile('/etc/k/a')), 'mem');
  assert.equal(new TextDecoder().decode(await fs.readFile('/etc/k/b')), 'disk b');
  assert.deepEqual(await fs.readDir('/etc/k'), ['a', 'b']);
  await assert.rejects(new LayeredFileSystem({}).readFile('/nope'), /open \/nope: no such file or directory/);
  // Read-only without a writable fallback; writes pass through to one.
  assert.equal(new LayeredFileSystem({}).writeFile, undefined);
  const written: string[] = [];
  const rw = new LayeredFileSystem(
    {},
    { readFile: async () => new Uint8Array(), writeFile: async (p) => void written.push(p), mkdirAll: async () => {} },
  );
  await rw.writeFile!('/certs/x', new Uint8Array(), 0o600);
  assert.deepEqual(written, ['/certs/x']);
  assert.equal(typeof rw.mkdirAll, 'function');
  assert.equal(rw.remove, undefined);
});

test('EdgeServer: built once, unknown paths are 404 (MuxAndDiscoveryComplete fired), stop', async () => {
  let builds = 0;
  const s = new EdgeServer(() => {
    builds++;
    return { logger: discardLogger };
  });
  const [a, b] = await Promise.all([s.fetch(new Request('https://x/healthz')), s.fetch(new Request('https://x/nope'))]);
  assert.equal(a.status, 200);
  assert.equal(b.status, 404);
  assert.equal(await b.text(), '404 page not found\n');
  assert.equal(builds, 1);
  await s.stop();
  const r = await s.fetch(new Request('https://x/readyz'));
  assert.equal(r.status, 500, 'readyz fails once shutdown started');
});

test('EdgeServer: a bad flag answers 500 on every request', async () => {
  const errors: string[] = [];
  const origError = console.error;
  console.error = (line: string) => errors.push(line);
  try {
    const s = new EdgeServer({ flags: '--no-such-flag', logger: discardLogger });
    await assert.rejects(s.ready(), /unknown flag: --no-such-flag/);
    for (let i = 0; i < 2; i++) {
      const r = await s.fetch(new Request('https://x/healthz'));
      assert.equal(r.status, 500);
      assert.equal(await r.text(), 'edge-apiserver failed to start; see the logs for details\n');
    }
  } finally {
    console.error = origError;
  }
  assert.equal(errors.length, 1);
  assert.match(errors[0]!, /edge-apiserver failed to start.*unknown flag: --no-such-flag/);
});
