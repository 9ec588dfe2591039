import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  defaultMetaV1FieldSelectorConversion,
  fieldLabelConversion,
  FieldLabelError,
  selectableFields,
} from './fieldlabels.ts';

test('DefaultMetaV1FieldSelectorConversion: metadata.name and metadata.namespace, else upstream’s message', () => {
  assert.deepEqual(defaultMetaV1FieldSelectorConversion('metadata.name', 'a'), ['metadata.name', 'a']);
  assert.deepEqual(defaultMetaV1FieldSelectorConversion('metadata.namespace', 'b'), ['metadata.namespace', 'b']);
  assert.throws(
    () => defaultMetaV1FieldSelectorConversion('spec.x\n', 'v'),
    (e: Error) =>
      e instanceof FieldLabelError &&
      e.message === '"spec.x\\n" is not a known field selector: only "metadata.name", "metadata.namespace"',
  );
});

test('fieldLabelConversion: a list keeps names, a map renames them; others are not supported', () => {
  const list = fieldLabelConversion(['type', 'metadata.name']);
  assert.deepEqual(list('type', 'Opaque'), ['type', 'Opaque']);
  assert.throws(
    () => list('metadata.namespace', 'x'),
    /^Error: field label not supported: metadata.namespace$|field label not supported: metadata.namespace/,
  );
  const map = fieldLabelConversion({ 'regarding.kind': 'involvedObject.kind' });
  assert.deepEqual(map('regarding.kind', 'Pod'), ['involvedObject.kind', 'Pod']);
  assert.throws(() => map('involvedObject.kind', 'Pod'), FieldLabelError);
});

test('selectableFields: ObjectMetaFieldsSet (namespace only when namespaced) and the kind’s own', () => {
  const obj = { metadata: { name: 'n', namespace: 'ns', labels: { a: 'b' } }, type: 't' };
  assert.deepEqual(selectableFields(true, (o) => ({ type: String(o.type) }))(obj), {
    labels: { a: 'b' },
    fields: { 'metadata.name': 'n', 'metadata.namespace': 'ns', type: 't' },
  });
  assert.deepEqual(selectableFields(false, () => ({}))(obj).fields, { 'metadata.name': 'n' });
});
