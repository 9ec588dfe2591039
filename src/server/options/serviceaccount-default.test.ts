import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFileSystem } from '../../util/filesystem.ts';
import { parsePrivateKeyPEM } from '../../authentication/keys.ts';
import { ensureServiceAccountKey } from './serviceaccount-default.ts';

class WritableFS extends MemoryFileSystem {
  written: { path: string; mode: number }[] = [];
  async writeFile(path: string, data: Uint8Array, mode: number): Promise<void> {
    this.written.push({ path, mode });
    (this as unknown as { files: Map<string, Uint8Array> }).files.set(path, data);
  }
}

test('ensureServiceAccountKey: generates an ES256 key once (mode 0600), then reuses it', async () => {
  const fs = new WritableFS();
  assert.equal(await ensureServiceAccountKey(fs, '/certs/'), '/certs/sa.key');
  assert.deepEqual(fs.written, [{ path: '/certs/sa.key', mode: 0o600 }]);
  const pem = new TextDecoder().decode(await fs.readFile('/certs/sa.key'));
  assert.equal((await parsePrivateKeyPEM(pem)).alg, 'ES256');
  assert.equal(await ensureServiceAccountKey(fs, '/certs'), '/certs/sa.key');
  assert.equal(fs.written.length, 1, 'an existing key is kept');
});

test('ensureServiceAccountKey: a file system that cannot write gives no key', async () => {
  assert.equal(await ensureServiceAccountKey(new MemoryFileSystem(), '/certs'), undefined);
});
