import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, stringify } from 'yaml';
import { adminKubeconfig, existingAdminToken } from './admin.ts';
import type { FileSystem } from '../util/filesystem.ts';

const ca = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const token = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-xy';
const files = (text: string): FileSystem => ({ readFile: async () => new TextEncoder().encode(text) });

test('the admin kubeconfig is the document yaml.stringify writes, and reads back as YAML', () => {
  for (const server of ['https://localhost:6443', 'https://[::1]:6443', 'https://10.0.0.1:443']) {
    const doc = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'edge-apiserver', cluster: { server, 'certificate-authority-data': btoa(ca) } }],
      users: [{ name: 'kubernetes-admin', user: { token } }],
      contexts: [
        {
          name: 'kubernetes-admin@edge-apiserver',
          context: { cluster: 'edge-apiserver', user: 'kubernetes-admin' },
        },
      ],
      'current-context': 'kubernetes-admin@edge-apiserver',
    };
    assert.equal(adminKubeconfig(server, ca, token), stringify(doc));
  }
  // Not a plain scalar: quoted, still the same value.
  assert.equal(parse(adminKubeconfig('https://a b:1', undefined, 'x: #y')).users[0].user.token, 'x: #y');
});

test('existingAdminToken: our own file, an edited one (YAML), and a bad token', async () => {
  const own = adminKubeconfig('https://localhost:6443', ca, token);
  assert.equal(await existingAdminToken(files(own), 'k'), token);
  const edited = stringify(parse(own), { indent: 4 }) + '# edited\n';
  assert.equal(await existingAdminToken(files(edited), 'k'), token);
  const bad = own.replace(token, 'short');
  assert.equal(await existingAdminToken(files(bad), 'k'), undefined);
  assert.equal(await existingAdminToken(files('users: [: bad'), 'k'), undefined);
  assert.equal(
    await existingAdminToken({ readFile: () => Promise.reject(new Error('open k: no such file')) }, 'k'),
    undefined,
  );
});

test('admin kubeconfig scalars (tokens, URLs, base64) are quoted exactly where yaml.stringify quotes them', () => {
  const values = ['-abc', '_abc', '1abc', '123', '-123', '0x1f', '0o17', '12e3', '-1E10', 'true', 'Null', 'yes', '~'];
  values.push('-', '--x', 'a-', '1_000', '.5', '1.5', 'inf', '.inf', '.NaN', '_', 'a:b', '[x', 'x y', 'é');
  for (let i = 0; i < 2000; i++) {
    const b = crypto.getRandomValues(new Uint8Array(1 + (i % 40)));
    values.push(Buffer.from(b).toString('base64url'));
  }
  for (const v of values) {
    const text = adminKubeconfig('https://localhost:6443', undefined, v);
    assert.equal(parse(text).users[0].user.token, v);
    // Other text (spaces, non-ASCII) may be quoted where yaml.stringify would not: same value.
    if (/^[\w.:/[\]=+-]+$/.test(v))
      assert.equal(text.split('\n')[9], stringify({ token: v }).trimEnd().replace(/^/, '      '), v);
  }
});
