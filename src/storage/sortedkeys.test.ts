import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SortedKeys } from './sortedkeys.ts';

const from = (s: SortedKeys, start: string, until?: string): string[] => {
  const out: string[] = [];
  s.forEachFrom(start, (k) => {
    if (until !== undefined && k >= until) return false;
    out.push(k);
  });
  return out;
};

// Against a plain sorted array, across many chunk splits and merges: inserts in random order,
// duplicates refused, deletes, range reads from any start.
test('SortedKeys: the order and ranges of one sorted array, across chunk splits', () => {
  const s = new SortedKeys();
  const ref: string[] = [];
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let i = 0; i < 5000; i++) {
    const k = `/registry/configmaps/ns-${rand(7)}/cm-${rand(3000)}`;
    const had = ref.includes(k);
    assert.equal(s.insert(k), !had);
    if (!had) ref.push(k);
  }
  ref.sort();
  assert.equal(s.size, ref.length);
  assert.deepEqual(s.toArray(), ref);
  for (const start of ['', '/registry/configmaps/ns-3/', '/registry/configmaps/ns-3/cm-15', '/z']) {
    const end = start + '\uffff';
    assert.deepEqual(
      from(s, start, end),
      ref.filter((k) => k >= start && k < end),
    );
  }
  // Stops when the visitor says so.
  assert.deepEqual(from(s, '', ref[3]), ref.slice(0, 3));

  for (let i = 0; i < ref.length; i += 2) assert.equal(s.delete(ref[i]!), true);
  assert.equal(s.delete('/absent'), false);
  const left = ref.filter((_, i) => i % 2 === 1);
  assert.deepEqual(s.toArray(), left);
  assert.equal(s.size, left.length);
  for (const k of left) s.delete(k);
  assert.equal(s.size, 0);
  assert.deepEqual(from(s, ''), []);
  assert.equal(s.delete('x'), false);

  s.assign(['a', 'b', 'c']);
  s.retain((k) => k !== 'b');
  assert.deepEqual(s.toArray(), ['a', 'c']);
  assert.equal(s.insert('b'), true);
  assert.deepEqual(from(s, 'b'), ['b', 'c']);
});
