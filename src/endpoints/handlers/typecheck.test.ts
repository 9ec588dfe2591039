import { test } from 'node:test';
import assert from 'node:assert/strict';
import { typedDecodeCoversShapes, typedDecodeError } from './typecheck.ts';
import type { KnownFields } from './decode.ts';

const cm = 'io.k8s.api.core.v1.ConfigMap';
const svc = 'io.k8s.api.core.v1.Service';

test('typed decode: Go’s UnmarshalTypeError wording, innermost struct and full JSON path', () => {
  const cases: [string, Record<string, unknown>, string | undefined][] = [
    [cm, { metadata: { name: 'a' }, data: { a: 'x' }, binaryData: { b: 'eA==' }, immutable: true }, undefined],
    [cm, { data: { a: 12 } }, 'json: cannot unmarshal number into Go struct field ConfigMap.data of type string'],
    [cm, { data: ['x'] }, 'json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string'],
    [cm, { immutable: 'yes' }, 'json: cannot unmarshal string into Go struct field ConfigMap.immutable of type bool'],
    [
      cm,
      { metadata: 'a' },
      'json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta',
    ],
    [
      cm,
      { metadata: { labels: { a: true } } },
      'json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string',
    ],
    [
      cm,
      { metadata: { ownerReferences: [{ name: 5 }] } },
      'json: cannot unmarshal number into Go struct field OwnerReference.metadata.ownerReferences.name of type string',
    ],
    [
      cm,
      { metadata: { finalizers: 'x' } },
      'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string',
    ],
    [cm, { binaryData: { b: '!!' } }, 'illegal base64 data at input byte 0'],
    [cm, { binaryData: { b: 'abcde' } }, 'illegal base64 data at input byte 4'],
    [
      cm,
      { binaryData: { b: 5 } },
      'json: cannot unmarshal number into Go struct field ConfigMap.binaryData of type []uint8',
    ],
    [
      svc,
      { spec: { ports: [{ port: 1.5 }] } },
      'json: cannot unmarshal number 1.5 into Go struct field ServicePort.spec.ports.port of type int32',
    ],
    [
      svc,
      { spec: { ports: [{ port: '80' }] } },
      'json: cannot unmarshal string into Go struct field ServicePort.spec.ports.port of type int32',
    ],
    // Types that decode themselves are left alone: IntOrString, Time.
    [svc, { spec: { ports: [{ port: 80, targetPort: 'http' }] } }, undefined],
    [cm, { metadata: { creationTimestamp: '2026-01-01T00:00:00Z' }, unknown: 5 }, undefined],
    // The first error in document order.
    [
      cm,
      { immutable: 1, data: { a: 1 } },
      'json: cannot unmarshal number into Go struct field ConfigMap.immutable of type bool',
    ],
  ];
  for (const [def, obj, want] of cases) assert.equal(typedDecodeError(obj, def), want, JSON.stringify(obj));
});

test('typed decode: an unknown definition checks nothing', () => {
  assert.equal(typedDecodeError({ data: 1 }, 'io.example.v1.Nothing'), undefined);
});

// The decoder's own shape check (an object or array where the kind's known fields want one) is
// skipped where the typed walk makes it already: each such field is a struct, map or slice there.
test('typed decode: which known-field shapes the walk already checks', () => {
  const meta: KnownFields = { name: true, ownerReferences: [{ name: true }] };
  assert.equal(typedDecodeCoversShapes(cm, { metadata: meta, data: true }), true);
  assert.equal(typedDecodeCoversShapes(svc, { metadata: meta, spec: { ports: [{ port: true }] } }), true);
  for (const [def, obj, want] of [
    [
      cm,
      { metadata: 'x' },
      'json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta',
    ],
    [
      cm,
      { metadata: [] },
      'json: cannot unmarshal array into Go struct field ConfigMap.metadata of type v1.ObjectMeta',
    ],
    [
      cm,
      { metadata: { ownerReferences: {} } },
      'json: cannot unmarshal object into Go struct field ObjectMeta.metadata.ownerReferences of type []v1.OwnerReference',
    ],
    [svc, { spec: 1 }, 'json: cannot unmarshal number into Go struct field Service.spec of type v1.ServiceSpec'],
  ] as const)
    assert.equal(typedDecodeError(obj as Record<string, unknown>, def), want);
  // Not covered: a field the definition lacks, an array where it has a map, keys asked of a map,
  // an object where it has a string, a definition this build does not carry.
  assert.equal(typedDecodeCoversShapes(cm, { spec: { a: true } }), false);
  assert.equal(typedDecodeCoversShapes(cm, { data: [{ a: true }] }), false);
  assert.equal(typedDecodeCoversShapes(cm, { data: { a: { b: true } } }), false);
  assert.equal(typedDecodeCoversShapes(cm, { metadata: { name: { x: true } } }), false);
  assert.equal(typedDecodeCoversShapes('io.example.v1.Nothing', { spec: { a: true } }), false);
});
