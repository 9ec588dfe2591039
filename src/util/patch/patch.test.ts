import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyJSONPatch, decodePatch, JSONPatchError } from './jsonpatch.ts';
import { applyMergePatch } from './mergepatch.ts';

const doc = () => ({ metadata: { name: 'a', labels: { x: '1' } }, data: { k: 'v' }, list: [1, 2, 3] });

test('json patch: add, remove, replace, move, copy, test', () => {
  const out = applyJSONPatch(doc(), [
    { op: 'add', path: '/metadata/labels/y', value: '2' },
    { op: 'remove', path: '/metadata/labels/x' },
    { op: 'replace', path: '/data/k', value: 'w' },
    { op: 'add', path: '/list/-', value: 4 },
    { op: 'add', path: '/list/0', value: 0 },
    { op: 'remove', path: '/list/-1' },
    { op: 'copy', from: '/data/k', path: '/data/c' },
    { op: 'move', from: '/data/c', path: '/data/m' },
    { op: 'test', path: '/list', value: [0, 1, 2, 3] },
    { op: 'add', path: '/a~1b', value: true },
  ]);
  assert.deepEqual(out, {
    metadata: { name: 'a', labels: { y: '2' } },
    data: { k: 'w', m: 'w' },
    list: [0, 1, 2, 3],
    'a/b': true,
  });
});

test('json patch: the input is not modified and errors carry evanphx messages', () => {
  const d = doc();
  const fails = (op: object, message: string) =>
    assert.throws(
      () => applyJSONPatch(d, [op]),
      (e: unknown) => e instanceof JSONPatchError && e.message === message,
    );
  fails({ op: 'test', path: '/data/k', value: 'x' }, 'testing value /data/k failed: test failed');
  fails(
    { op: 'remove', path: '/data/nope' },
    "error in remove for path: '/data/nope': Unable to remove nonexistent key: nope: missing value",
  );
  fails(
    { op: 'add', path: '/missing/x', value: 1 },
    'add operation does not apply: doc is missing path: "/missing/x": missing value',
  );
  fails(
    { op: 'replace', path: '/data/nope', value: 1 },
    'replace operation does not apply: doc is missing key: /data/nope: missing value',
  );
  fails(
    { op: 'add', path: '/list/9', value: 1 },
    "error in add for path: '/list/9': Unable to access invalid index: 9: invalid index referenced",
  );
  fails(
    { op: 'add', path: '/list/x', value: 1 },
    `error in add for path: '/list/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`,
  );
  fails({ op: 'frob', path: '/x' }, 'Unexpected kind: frob');
  assert.deepEqual(d, doc());
});

test('json patch: the body must be an array of operations', () => {
  assert.equal(decodePatch({ op: 'add' }), 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  assert.equal(decodePatch(['x']), 'json: cannot unmarshal string into Go value of type jsonpatch.Operation');
  assert.deepEqual(decodePatch([{ op: 'add', path: '/a', value: 1 }]), [{ op: 'add', path: '/a', value: 1 }]);
});

test('merge patch: objects merge, null deletes, arrays and scalars replace', () => {
  assert.deepEqual(
    applyMergePatch(doc(), {
      metadata: { labels: { x: null, z: '3' } },
      list: [9],
      data: null,
      n: { a: { b: null, c: 1 } },
    }),
    {
      metadata: { name: 'a', labels: { z: '3' } },
      list: [9],
      n: { a: { c: 1 } },
    },
  );
  assert.equal(applyMergePatch({ a: 1 }, 'x'), 'x');
});
