// CustomResourceStorage: readOnly reaches the inner store on create and guaranteedUpdate, which is
// safe only because serving a stored object (apiVersion, pruning of nulls, defaults) works on a
// clone and never changes the object the inner store shares with its watchers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CustomResourceStorage } from './customresource.ts';
import { newStructural } from './schema/structural.ts';
import type { StorageObject } from '../storage/interfaces.ts';
import { expectReadOnlyForwarded, frozenInner } from '../storage/testing/frozen-inner.ts';

/** A stored Widget whose served form gets a default and loses a null (both would write into it). */
const stored = (): StorageObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'default', resourceVersion: '5' },
  spec: { size: null, nested: {} },
});

const structural = newStructural({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer' },
        color: { type: 'string', default: 'blue' },
        nested: { type: 'object', properties: { n: { type: 'integer', default: 1 } } },
      },
    },
  },
});

test('CustomResourceStorage: serving a frozen stored object defaults a copy and changes nothing of it', async () => {
  const { inner } = frozenInner(stored);
  const s = new CustomResourceStorage(inner, 'example.com/v2', 'example.com/v1', structural);
  const created = await s.create('/default/w', { apiVersion: 'example.com/v2', kind: 'Widget', metadata: {} });
  const updated = await s.guaranteedUpdate('/default/w', false, undefined, async (o) => ({ object: o }));
  const got = await s.get('/default/w', { readOnly: true });
  for (const o of [created, updated, got]) {
    assert.equal(o!.apiVersion, 'example.com/v2');
    assert.deepEqual(o!.spec, { color: 'blue', nested: { n: 1 } });
    assert.equal(Object.isFrozen(o), false);
  }
});

test('CustomResourceStorage forwards readOnly on create and guaranteedUpdate, and only when given', async () => {
  const { inner, seen } = frozenInner(stored);
  const s = new CustomResourceStorage(inner, 'example.com/v1', 'example.com/v1', structural);
  await expectReadOnlyForwarded(s, seen, '/default/w');
});
