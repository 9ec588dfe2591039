// ConfigMap and Secret data keys (pkg/apis/core/validation ValidateConfigMap, ValidateSecret): the
// errors in sorted key order, a key in both data and binaryData, the total size limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResources } from './resources.ts';
import { aggregateMessage } from '../../util/validation/field.ts';
import type { KubeObject } from '../generic/store.ts';

const def = (kind: string) => builtinResources.find((d) => d.resource.kind === kind && !d.group)!;
const validate = (kind: string, o: Record<string, unknown>) =>
  aggregateMessage(def(kind).strategy.validate!({ metadata: { name: 'x', namespace: 'd' }, ...o } as KubeObject));

test('data keys: bad keys reported in sorted order whatever their order in the object', () => {
  const msg = validate('ConfigMap', {
    data: { 'z z': '1', ok: '2', 'a/b': '3' },
    binaryData: { ok: 'AA==', 'b!': 'AA==' },
  });
  const bad = (k: string) =>
    `Invalid value: ${JSON.stringify(k)}: a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`;
  assert.equal(
    msg,
    `[data[a/b]: ${bad('a/b')}, data[ok]: Invalid value: "ok": duplicate of key present in binaryData, data[z z]: ${bad('z z')}, binaryData[b!]: ${bad('b!')}]`,
  );
  // Secrets check only data.
  assert.match(validate('Secret', { data: { 'a b': 'AA==' } }), /data\[a b\]/);
});

test('data keys: the total size limit, with or without bad keys; a valid object has no errors', () => {
  const big = 'x'.repeat(1024 * 1024);
  assert.equal(validate('ConfigMap', { data: { a: big } }), '');
  assert.match(validate('ConfigMap', { data: { a: big, b: 'y' } }), /Too long/);
  assert.match(validate('ConfigMap', { data: { a: big, 'b b': 'y' } }), /data\[b b\].*Too long/s);
  assert.equal(validate('ConfigMap', { data: { a: '1' }, binaryData: { b: 'AA==' } }), '');
  assert.equal(validate('ConfigMap', { data: 'not a map' }), '');
});
