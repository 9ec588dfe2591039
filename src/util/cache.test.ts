import assert from 'node:assert/strict';
import test from 'node:test';
import { TTLCache } from './cache.ts';

test('TTLCache: entries expire at their own TTL', () => {
  let now = 0;
  const c = new TTLCache<string, number>({ maxEntries: 10, now: () => now });
  c.set('a', 1, 100);
  c.set('b', 2, 50);
  now = 49;
  assert.equal(c.get('a'), 1);
  assert.equal(c.get('b'), 2);
  now = 50;
  assert.equal(c.get('b'), undefined);
  assert.equal(c.size, 1, 'an expired entry is dropped when read');
  now = 100;
  assert.equal(c.get('a'), undefined);
  assert.equal(c.size, 0);
});

test('TTLCache: a ttl of 0 or less stores nothing and drops the old value', () => {
  const c = new TTLCache<string, number>({ maxEntries: 10, now: () => 0 });
  c.set('a', 1, 10);
  c.set('a', 2, 0);
  assert.equal(c.get('a'), undefined);
  c.set('b', 1, -5);
  c.set('c', 1, NaN);
  assert.equal(c.size, 0);
});

test('TTLCache: bounded, least recently used evicted first', () => {
  const c = new TTLCache<string, number>({ maxEntries: 3, now: () => 0 });
  c.set('a', 1, 10);
  c.set('b', 2, 10);
  c.set('c', 3, 10);
  assert.equal(c.get('a'), 1); // a is now the most recent
  c.set('d', 4, 10);
  assert.equal(c.size, 3);
  assert.equal(c.get('b'), undefined, 'b was the least recently used');
  assert.equal(c.get('a'), 1);
  assert.equal(c.get('c'), 3);
  assert.equal(c.get('d'), 4);
  // Overwriting an entry does not evict another.
  c.set('d', 5, 10);
  assert.equal(c.size, 3);
  assert.equal(c.get('d'), 5);
  c.delete('d');
  assert.equal(c.get('d'), undefined);
  c.clear();
  assert.equal(c.size, 0);
});
