import assert from 'node:assert/strict';
import { test } from 'node:test';
import { aggregateMessage, invalid, notSupported, Path, required, statusCauses, tooLong } from './field.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.ts';
import { nameIsDNSSubdomain, validateConfigMapKey, validateDNS1123Label, validateQualifiedName } from './validation.ts';

test('field paths print as upstream', () => {
  assert.equal(Path.of('metadata', 'name').toString(), 'metadata.name');
  assert.equal(Path.of('spec').child('containers').index(0).child('name').toString(), 'spec.containers[0].name');
  assert.equal(Path.of('metadata', 'labels').key('app').toString(), 'metadata.labels[app]');
});

test('field errors print the bad value by type', () => {
  const p = Path.of('metadata', 'name');
  assert.equal(invalid(p, 'Foo', 'bad').toString(), 'metadata.name: Invalid value: "Foo": bad');
  assert.equal(invalid(p, 3, 'bad').toString(), 'metadata.name: Invalid value: 3: bad');
  assert.equal(invalid(p, ['a'], 'bad').toString(), 'metadata.name: Invalid value: ["a"]: bad');
  assert.equal(
    required(p, 'name or generateName is required').toString(),
    'metadata.name: Required value: name or generateName is required',
  );
  assert.equal(tooLong(p, 10).toString(), 'metadata.name: Too long: may not be more than 10 bytes');
  assert.equal(
    notSupported(p, 'x', ['A', 'B']).toString(),
    'metadata.name: Unsupported value: "x": supported values: "A", "B"',
  );
});

test('a name that is not DNS-1123 gets upstream message, aggregate and causes', () => {
  const errs = validateObjectMeta({ name: 'Not_Valid', namespace: 'default' }, true, nameIsDNSSubdomain);
  const msg =
    `metadata.name: Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', ` +
    `and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is ` +
    `'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
  assert.equal(aggregateMessage(errs), msg);
  assert.deepEqual(statusCauses(errs), [
    { reason: 'FieldValueInvalid', message: msg.slice('metadata.name: '.length), field: 'metadata.name' },
  ]);
});

test('several errors aggregate in brackets, duplicates once', () => {
  const errs = validateObjectMeta({ generateName: '', namespace: '' }, true, nameIsDNSSubdomain);
  assert.equal(
    aggregateMessage(errs),
    '[metadata.name: Required value: name or generateName is required, metadata.namespace: Required value]',
  );
  const p = Path.of('x');
  assert.equal(aggregateMessage([invalid(p, 1, 'a'), invalid(p, 1, 'a')]), 'x: Invalid value: 1: a');
  assert.equal(aggregateMessage([]), '');
});

test('cluster-scoped objects may not carry a namespace; generateName may end in a dash', () => {
  assert.equal(
    aggregateMessage(validateObjectMeta({ name: 'a', namespace: 'x' }, false, nameIsDNSSubdomain)),
    'metadata.namespace: Forbidden: not allowed on this type',
  );
  assert.deepEqual(validateObjectMeta({ name: 'web-abcde', generateName: 'web-' }, false, nameIsDNSSubdomain), []);
});

test('labels, annotations, finalizers and owner references', () => {
  const errs = validateObjectMeta(
    {
      name: 'a',
      labels: { 'bad key!': 'v', ok: 'bad value!' },
      finalizers: ['orphan', 'foregroundDeletion'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }],
    },
    false,
    nameIsDNSSubdomain,
  );
  const fields = errs.map((e) => e.field);
  assert.deepEqual(fields, ['metadata.labels', 'metadata.labels', 'metadata.ownerReferences', 'metadata.finalizers']);
  assert.match(errs[2].toString(), /\/v1, Kind=Event is disallowed from being an owner$/);
  assert.match(errs[3].toString(), /finalizer orphan and foregroundDeletion cannot be both set$/);
});

test('updates: resourceVersion required, immutable fields, no new finalizers while deleting', () => {
  const old = {
    name: 'a',
    uid: 'u1',
    resourceVersion: '5',
    deletionTimestamp: '2026-01-01T00:00:00Z',
    finalizers: ['x'],
  };
  const errs = validateObjectMetaUpdate(
    { name: 'a', uid: 'u2', deletionTimestamp: old.deletionTimestamp, finalizers: ['x', 'y'] },
    old,
  );
  assert.deepEqual(
    errs.map((e) => e.toString()),
    [
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"y"}',
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
      'metadata.uid: Invalid value: "u2": field is immutable',
    ],
  );
});

test('label names, DNS labels and config keys', () => {
  assert.deepEqual(validateQualifiedName('example.com/app'), []);
  assert.deepEqual(validateQualifiedName('/app'), ['prefix part must be non-empty']);
  assert.deepEqual(validateDNS1123Label('a.b'), ['must not contain dots']);
  assert.deepEqual(validateDNS1123Label('a'.repeat(64)), ['must be no more than 63 characters']);
  assert.deepEqual(validateConfigMapKey('..x'), ["must not start with '..'"]);
});
