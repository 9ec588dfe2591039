import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deepCopyJSON, deepCopyJSONValue } from './deepcopy.ts';

test('deepCopyJSON copies every level and shares nothing', () => {
  const o = { a: [1, 'x', { b: null, c: [true] }], d: { e: { f: 1.5 } }, u: undefined };
  const c = deepCopyJSON(o);
  assert.deepEqual(c, o);
  assert.ok('u' in c);
  assert.notEqual(c.a, o.a);
  assert.notEqual(c.a[2], o.a[2]);
  assert.notEqual(c.d.e, o.d.e);
  (c.a[2] as { c: boolean[] }).c.push(false);
  assert.deepEqual((o.a[2] as { c: boolean[] }).c, [true]);
});

test('deepCopyJSONValue: primitives as they are; non-JSON objects by structuredClone', () => {
  for (const v of [null, 0, 'x', false, undefined]) assert.equal(deepCopyJSONValue(v), v);
  const when = new Date(0);
  const bytes = new Uint8Array([1, 2]);
  const c = deepCopyJSON({ when, bytes, bare: Object.assign(Object.create(null), { k: 'v' }) });
  assert.ok(c.when instanceof Date && c.when !== when && c.when.getTime() === 0);
  assert.ok(c.bytes instanceof Uint8Array && c.bytes !== bytes);
  assert.deepEqual([...c.bytes], [1, 2]);
  assert.equal(c.bare.k, 'v');
});

test('deepCopyJSON: a __proto__ key is copied as a property, not as the prototype', () => {
  const o = JSON.parse('{"data":{"__proto__":{"polluted":1},"a":"b"},"s":{"__proto__":"x"}}') as Record<
    string,
    Record<string, unknown>
  >;
  const c = deepCopyJSON(o);
  assert.equal(JSON.stringify(c), JSON.stringify(o));
  assert.equal(Object.getPrototypeOf(c.data), Object.prototype);
  assert.equal(c.data.polluted, undefined);
});
