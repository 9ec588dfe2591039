import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SortedKeys } from './sorted-keys.ts';

// Random inserts and deletes against a plain sorted array, across block splits and emptied blocks.
test('SortedKeys: inserts, deletes and range walks agree with a sorted array', () => {
  const keys = new SortedKeys();
  const ref = new Set<string>();
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  for (let step = 0; step < 20_000; step++) {
    const k = `/registry/configmaps/ns-${rand(5)}/cm-${rand(3000)}`;
    if (rand(3) === 0) assert.equal(keys.delete(k), ref.delete(k));
    else {
      const had = ref.has(k);
      ref.add(k);
      assert.equal(keys.insert(k), !had);
    }
  }
  const sorted = [...ref].sort();
  assert.equal(keys.size, sorted.length);
  assert.deepEqual(keys.toArray(), sorted);
  for (const start of ['', '/registry/configmaps/ns-2/', '/registry/configmaps/ns-2/cm-15', '/zzz']) {
    assert.deepEqual(
      [...keys.from(start)],
      sorted.filter((k) => k >= start),
    );
  }
  // Not present: false, nothing changes.
  assert.equal(keys.delete('/nope'), false);
  assert.equal(keys.size, sorted.length);
});

test('SortedKeys: reset takes more keys than one call has arguments for', () => {
  const keys = new SortedKeys();
  const many = Array.from({ length: 200_000 }, (_, i) => `k-${String(199_999 - i).padStart(6, '0')}`);
  keys.reset(many);
  assert.equal(keys.size, 200_000);
  assert.deepEqual([...keys.from('k-199998')], ['k-199998', 'k-199999']);
  assert.deepEqual(keys.toArray().slice(0, 2), ['k-000000', 'k-000001']);
  keys.reset([]);
  assert.deepEqual([...keys.from('')], []);
  assert.equal(keys.insert('a'), true);
  assert.deepEqual(keys.toArray(), ['a']);
});
