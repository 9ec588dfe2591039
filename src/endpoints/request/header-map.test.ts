import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HeaderMap } from './header-map.ts';

// Every operation gives what a Fetch Headers object gives.
function both(ops: (h: Headers) => void): [Headers, Headers] {
  const a = new Headers();
  const b = new HeaderMap();
  ops(a);
  ops(b);
  return [a, b];
}

test('HeaderMap behaves as Headers: set, append, delete, get, has, iteration order', () => {
  const [a, b] = both((h) => {
    h.set('Audit-Id', 'x');
    h.set('cache-control', 'no-cache, private');
    h.append('Warning', '299 - "a"');
    h.append('warning', '299 - "b"');
    h.set('X-Kubernetes-PF-FlowSchema-UID', ' u1 ');
    h.append('Set-Cookie', 'a=1');
    h.append('set-cookie', 'b=2');
    h.set('Zeta', '1');
    h.delete('zeta');
    h.append('Accept', 'x');
  });
  assert.deepEqual([...b], [...a]);
  assert.deepEqual([...b.keys()], [...a.keys()]);
  assert.deepEqual([...b.values()], [...a.values()]);
  assert.deepEqual(b.getSetCookie(), a.getSetCookie());
  for (const n of ['audit-id', 'WARNING', 'set-cookie', 'zeta', 'x-kubernetes-pf-flowschema-uid']) {
    assert.equal(b.get(n), a.get(n), n);
    assert.equal(b.has(n), a.has(n), n);
  }
  const seen: string[] = [];
  b.forEach((v, k, parent) => {
    assert.equal(parent, b);
    seen.push(`${k}=${v}`);
  });
  const want: string[] = [];
  a.forEach((v, k) => want.push(`${k}=${v}`));
  assert.deepEqual(seen, want);
  assert.deepEqual([...new Headers(b)], [...a]);
  assert.equal(Object.prototype.toString.call(b), '[object Headers]');
});

test('HeaderMap rejects what Headers rejects', () => {
  for (const [name, value] of [
    ['bad name', 'v'],
    ['', 'v'],
    ['x', 'a\r\nb'],
    ['x', 'a\0'],
    ['x', 'é€'],
  ] as const) {
    assert.throws(() => new Headers().set(name, value), TypeError);
    assert.throws(() => new HeaderMap().set(name, value), TypeError);
  }
  assert.throws(() => new HeaderMap().get('bad name'), TypeError);
});
