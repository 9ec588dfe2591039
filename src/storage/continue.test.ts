import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanPath, decodeContinue, encodeContinue, prepareKey, validateListOptions } from './continue.ts';
import { SelectionPredicate } from './interfaces.ts';

test('continue tokens: the format of pkg/storage/continue.go', () => {
  const t = encodeContinue('/registry/pods/ns/a\x00', '/registry/pods/', 42);
  assert.equal(Buffer.from(t, 'base64url').toString(), '{"v":"meta.k8s.io/v1","rv":42,"start":"ns/a\\u0000"}');
  assert.deepEqual(decodeContinue(t, '/registry/pods/'), { fromKey: '/registry/pods/ns/a\x00', rv: 42 });
  assert.throws(() => encodeContinue('/other/x', '/registry/pods/', 1), /key and key prefix do not match/);
  assert.equal(cleanPath('/a/../b'), '/b');
  assert.equal(cleanPath('/a//b/'), '/a/b');
});

test('ValidateListOptions: revision rules', () => {
  const p = (limit: number) => new SelectionPredicate({ limit });
  assert.deepEqual(validateListOptions('/k/', { recursive: true, resourceVersion: '5', predicate: p(1) }), {
    withRev: 5,
    continueKey: '',
  });
  assert.deepEqual(validateListOptions('/k/', { recursive: true, resourceVersion: '5' }), {
    withRev: 0,
    continueKey: '',
  });
  assert.deepEqual(
    validateListOptions('/k/', { recursive: true, resourceVersion: '5', resourceVersionMatch: 'Exact' }),
    { withRev: 5, continueKey: '' },
  );
  assert.deepEqual(
    validateListOptions('/k/', { recursive: true, resourceVersion: '5', resourceVersionMatch: 'NotOlderThan' }),
    { withRev: 0, continueKey: '' },
  );
  const inconsistent = encodeContinue('/k/a\x00', '/k/', -1);
  assert.deepEqual(
    validateListOptions('/k/', { recursive: true, predicate: new SelectionPredicate({ continue: inconsistent }) }),
    { withRev: 0, continueKey: '/k/a\x00' },
  );
  assert.throws(() => validateListOptions('/k/', { recursive: true, resourceVersion: 'x' }), {
    message:
      'invalid resource version: resourceVersion: Invalid value: "x": strconv.ParseUint: parsing "x": invalid syntax',
  });
});

test('PrepareKey refuses traversal and empty keys', () => {
  assert.equal(prepareKey('/pods', '/pods/ns', true), '/pods/ns/');
  for (const k of ['..', '../a', '/pods/..', '/pods/../x', '.', './a', '/pods/.', '/pods/./x']) {
    assert.throws(() => prepareKey('/pods', k, false), /^Error: invalid key/);
  }
  assert.throws(() => prepareKey('/pods', '', false), { message: 'empty key: ""' });
  assert.throws(() => prepareKey('/pods', '/secrets/a', false), {
    message: 'invalid key: "/secrets/a" lacks resource prefix: "/pods"',
  });
});
