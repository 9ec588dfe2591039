import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FieldSet, pathString } from './fieldpath.ts';
import { FieldManager, FieldManagerError, type ManagedObject } from './fieldmanager.ts';
import { objectMetaName, objectMetaSchema, objectMetaTypeSchema } from './objectmeta.ts';
import { rootNode, type TypeSchema } from './schema.ts';
import { merge, toFieldSet } from './typed.ts';

const at = new Date('2026-12-01T10:00:00.123Z');
const ref = (n: string) => ({ $ref: `#/components/schemas/${n}` });
const configMapSchema: TypeSchema = {
  root: {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { allOf: [ref(objectMetaName)] },
      data: { type: 'object', additionalProperties: { type: 'string' } },
    },
  },
  definitions: { [objectMetaName]: objectMetaSchema },
};
const cm = () => new FieldManager({ apiVersion: 'v1', kind: 'ConfigMap', schema: configMapSchema, now: () => at });

// A Pod-shaped schema: containers keyed by name, ports by containerPort+protocol (protocol defaults to TCP).
const podSchema: TypeSchema = {
  root: {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: ref(objectMetaName),
      spec: ref('PodSpec'),
    },
  },
  definitions: {
    [objectMetaName]: objectMetaSchema,
    PodSpec: {
      type: 'object',
      properties: {
        containers: {
          type: 'array',
          items: { allOf: [ref('Container')] },
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          'x-kubernetes-patch-merge-key': 'name',
          'x-kubernetes-patch-strategy': 'merge',
        },
        nodeSelector: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
      },
    },
    Container: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        image: { type: 'string' },
        args: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' },
        ports: {
          type: 'array',
          items: ref('ContainerPort'),
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
        },
      },
    },
    ContainerPort: {
      type: 'object',
      properties: {
        containerPort: { type: 'integer' },
        protocol: { type: 'string', default: 'TCP' },
        name: { type: 'string' },
      },
    },
  },
};

test('FieldsV1: members, children and "." round-trip in upstream order', () => {
  const s = FieldSet.of(['f:data'], ['f:data', 'f:b'], ['f:data', 'f:a'], ['f:metadata', 'f:labels', 'f:x']);
  const v1 = s.toFieldsV1();
  assert.equal(JSON.stringify(v1), '{"f:data":{".":{},"f:a":{},"f:b":{}},"f:metadata":{"f:labels":{"f:x":{}}}}');
  assert.ok(FieldSet.fromFieldsV1(v1).equals(s));
  assert.throws(() => FieldSet.fromFieldsV1({ 'x:y': {} }));
  assert.equal(
    pathString(['f:spec', 'k:{"name":"c1"}', 'f:ports', 'k:{"containerPort":80,"protocol":"TCP"}']),
    '.spec[name="c1"].ports[containerPort=80,protocol="TCP"]',
  );
  assert.equal(pathString(['f:metadata', 'f:finalizers', 'v:"a"']), '.metadata.finalizers[="a"]');
});

test('ToFieldSet: map keys, list-map items with their keys (defaults too), sets, atomic lists and maps', () => {
  const n = rootNode(podSchema);
  const pod = {
    metadata: { name: 'p', finalizers: ['a'] },
    spec: {
      containers: [{ name: 'c1', image: 'x', args: ['1'], ports: [{ containerPort: 80 }] }],
      nodeSelector: { a: 'b' },
    },
  };
  assert.deepEqual(toFieldSet(pod as never, n).toFieldsV1(), {
    'f:metadata': { 'f:finalizers': { 'v:"a"': {} }, 'f:name': {} },
    'f:spec': {
      'f:containers': {
        'k:{"name":"c1"}': {
          '.': {},
          'f:args': {},
          'f:image': {},
          'f:name': {},
          'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
        },
      },
      'f:nodeSelector': {},
    },
  });
});

test('Merge: list-map items merge by key, the applied order first; atomic lists replace', () => {
  const n = rootNode(podSchema);
  const live = {
    spec: {
      containers: [
        { name: 'a', image: '1', args: ['x'] },
        { name: 'b', image: '2' },
      ],
    },
  };
  const cfg = {
    spec: {
      containers: [
        { name: 'c', image: '3' },
        { name: 'a', args: ['y'] },
      ],
    },
  };
  assert.deepEqual(merge(live as never, cfg as never, n), {
    spec: {
      containers: [
        { name: 'c', image: '3' },
        { name: 'a', image: '1', args: ['y'] },
        { name: 'b', image: '2' },
      ],
    },
  });
});

test('create records an Update entry with the fields set; no-op updates keep it', () => {
  const fm = cm();
  const obj: ManagedObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'one', namespace: 'd', labels: { x: 'y' } },
    data: { a: '1' },
  };
  fm.update(undefined, obj, 'kubectl-create');
  assert.deepEqual(obj.metadata!.managedFields, [
    {
      manager: 'kubectl-create',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2026-12-01T10:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } },
    },
  ]);
  const same = fm.update(
    obj,
    structuredClone({ ...obj, metadata: { ...obj.metadata, managedFields: undefined } }),
    'other',
  );
  assert.deepEqual(same.metadata!.managedFields, obj.metadata!.managedFields);
  // `[{}]` resets them.
  const reset = fm.update(obj, structuredClone({ ...obj, metadata: { ...obj.metadata, managedFields: [{}] } }), 'x');
  assert.equal(reset.metadata!.managedFields, undefined);
});

test('apply: create, conflict with another applier (409 and message), force moves ownership', () => {
  const fm = cm();
  const a = fm.apply(
    undefined,
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: '1', j: '1' } },
    'alice',
    false,
  );
  assert.deepEqual(a.data, { k: '1', j: '1' });
  assert.deepEqual(a.metadata!.managedFields, [
    {
      manager: 'alice',
      operation: 'Apply',
      apiVersion: 'v1',
      time: '2026-12-01T10:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:j': {}, 'f:k': {} } },
    },
  ]);
  const bob = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: '2', j: '2' } };
  assert.throws(
    () => fm.apply(a, bob, 'bob', false),
    (e: unknown) =>
      e instanceof FieldManagerError &&
      e.code === 409 &&
      e.message === 'Apply failed with 2 conflicts: conflicts with "alice":\n- .data.j\n- .data.k' &&
      e.conflicts!.length === 2,
  );
  // The same value is shared ownership, not a conflict.
  const shared = fm.apply(a, { ...bob, data: { k: '1' } }, 'bob', false);
  assert.equal(shared.metadata!.managedFields!.length, 2);
  const forced = fm.apply(a, bob, 'bob', true);
  assert.deepEqual(forced.data, { k: '2', j: '2' });
  assert.deepEqual(
    forced.metadata!.managedFields!.map((e) => [e.manager, e.fieldsV1]),
    [['bob', { 'f:data': { 'f:j': {}, 'f:k': {} } }]],
  );
});

test('an Update takes the fields it changes; re-applying the old value conflicts with "<manager>" using v1', () => {
  const fm = cm();
  const a = fm.apply(
    undefined,
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: '1' } },
    'kubectl',
    false,
  );
  const edited = fm.update(a, { ...structuredClone(a), data: { k: 'edited' } }, 'kubectl-edit');
  assert.deepEqual(
    edited.metadata!.managedFields!.map((e) => [e.manager, e.operation]),
    [['kubectl-edit', 'Update']],
  );
  assert.throws(
    () =>
      fm.apply(
        edited,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: '1' } },
        'kubectl',
        false,
      ),
    (e: unknown) =>
      e instanceof FieldManagerError &&
      e.message === 'Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.k',
  );
});

test('apply prunes what the applier dropped unless another manager owns it', () => {
  const fm = cm();
  const base = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
  let o = fm.apply(undefined, { ...base, data: { a: '1', b: '1', c: '1' } }, 'alice', false);
  o = fm.apply(o, { ...base, data: { c: '1' } }, 'bob', false);
  o = fm.apply(o, { ...base, data: { a: '1' } }, 'alice', false);
  assert.deepEqual(o.data, { a: '1', c: '1' });
  // Dropping everything removes the (now empty) map.
  o = fm.apply(o, { ...base, data: {} }, 'bob', false);
  o = fm.apply(o, base, 'alice', false);
  assert.equal(o.data, undefined);
});

test('apply: list-map items owned per key, prune of an item, wrong kind and managedFields in the patch', () => {
  const fm = new FieldManager({ apiVersion: 'v1', kind: 'Pod', schema: podSchema, now: () => at });
  const pod = (containers: object[]) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { containers },
  });
  let o = fm.apply(undefined, pod([{ name: 'a', image: '1' }]), 'alice', false);
  o = fm.apply(o, pod([{ name: 'b', image: '2' }]), 'bob', false);
  assert.deepEqual((o.spec as { containers: unknown[] }).containers, [
    { name: 'a', image: '1' },
    { name: 'b', image: '2' },
  ]);
  assert.throws(
    () => fm.apply(o, pod([{ name: 'a', image: 'x' }]), 'bob', false),
    (e: unknown) => e instanceof FieldManagerError && e.message.endsWith(': .spec.containers[name="a"].image'),
  );
  o = fm.apply(o, pod([]), 'bob', false);
  assert.deepEqual((o.spec as { containers: unknown[] }).containers, [{ name: 'a', image: '1' }]);
  assert.throws(
    () => fm.apply(o, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p' } }, 'bob', false),
    (e: unknown) =>
      e instanceof FieldManagerError &&
      e.code === 400 &&
      e.message === 'invalid object type: /v1, Kind=ConfigMap, expected /v1, Kind=Pod',
  );
  assert.throws(
    () => fm.apply(o, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', managedFields: [] } }, 'bob', false),
    (e: unknown) => e instanceof FieldManagerError && e.message === 'metadata.managedFields must be nil',
  );
});

test('at most 10 Update managers: the oldest merge into ancient-changes', () => {
  let t = 0;
  const fm = new FieldManager({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    schema: objectMetaTypeSchema,
    now: () => new Date(1e12 + 1000 * t++),
  });
  let o: ManagedObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {} };
  for (let i = 0; i < 12; i++)
    o = fm.update(o, { ...structuredClone(o), data: { ...(o.data as object), [`k${i}`]: 'v' } }, `m${i}`);
  const managers = o.metadata!.managedFields!.map((e) => e.manager);
  assert.equal(managers.length, 10);
  assert.ok(managers.includes('ancient-changes'));
  assert.ok(!managers.includes('m0') && !managers.includes('m1') && !managers.includes('m2'));
});

test('FieldsV1 order: a path element that is a member and a parent is written once, kinds in PathElement order', () => {
  // Bad input first: an index beside keys, values and fields; numbers sort as numbers, a string value
  // against a number as text (PathElement.Compare).
  const s = FieldSet.of(['i:10'], ['i:2'], ['v:"b"'], ['k:{"a":1}'], ['f:z'], ['f:z', 'f:y'], ['v:3'], ['v:20']);
  assert.equal(
    JSON.stringify(s.toFieldsV1()),
    '{"f:z":{".":{},"f:y":{}},"k:{\\"a\\":1}":{},"v:\\"b\\"":{},"v:3":{},"v:20":{},"i:2":{},"i:10":{}}',
  );
  assert.deepEqual(new FieldSet().toFieldsV1(), {});
});

test('create with no earlier manager and a create that carries another manager’s entry: the same fields', () => {
  const fm = new FieldManager({ apiVersion: 'v1', kind: 'Pod', schema: podSchema, now: () => at });
  const pod = (): ManagedObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'd', finalizers: ['a'], labels: { x: 'y' } },
    spec: { containers: [{ name: 'c1', image: 'x', ports: [{ containerPort: 80 }] }], nodeSelector: { a: 'b' } },
  });
  const fields = {
    'f:metadata': { 'f:finalizers': { '.': {}, 'v:"a"': {} }, 'f:labels': { '.': {}, 'f:x': {} } },
    // compare.go marks every map and list it adds, the spec and the list of containers too.
    'f:spec': {
      '.': {},
      'f:containers': {
        '.': {},
        'k:{"name":"c1"}': {
          '.': {},
          'f:image': {},
          'f:name': {},
          'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
        },
      },
      'f:nodeSelector': {},
    },
  };
  const created = fm.update(undefined, pod(), 'creator');
  assert.deepEqual(created.metadata!.managedFields, [
    {
      manager: 'creator',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2026-12-01T10:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: fields,
    },
  ]);
  // The body names another manager owning a label: the creator takes what it sets from it.
  const withEntry = pod();
  withEntry.metadata!.managedFields = [
    {
      manager: 'earlier',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2026-11-30T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { 'f:x': {}, 'f:gone': {} } } },
    },
  ];
  const taken = fm.update(undefined, withEntry, 'creator');
  assert.deepEqual(
    taken.metadata!.managedFields!.map((e) => [e.manager, e.fieldsV1]),
    [
      ['earlier', { 'f:metadata': { 'f:labels': { 'f:gone': {} } } }],
      ['creator', fields],
    ],
  );
});

test('an update by a second manager: what it modifies alone, then modifies and adds (the entries before this change)', () => {
  const fm = new FieldManager({ apiVersion: 'v1', kind: 'Pod', schema: podSchema, now: () => at });
  const live: ManagedObject = fm.update(
    undefined,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'd', finalizers: ['a'], labels: { x: 'y' } },
      spec: { containers: [{ name: 'c1', image: 'x', ports: [{ containerPort: 80 }] }], nodeSelector: { a: 'b' } },
    },
    'a',
  );
  const next = structuredClone(live);
  next.metadata!.labels = { x: 'z' };
  delete next.metadata!.finalizers;
  const entries = (o: ManagedObject) => JSON.stringify(o.metadata!.managedFields!.map((e) => [e.manager, e.fieldsV1]));
  assert.equal(
    entries(fm.update(live, structuredClone(next), 'b')),
    '[["a",{"f:metadata":{"f:labels":{}},"f:spec":{".":{},"f:containers":{".":{},"k:{\\"name\\":\\"c1\\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}},"f:nodeSelector":{}}}],["b",{"f:metadata":{"f:labels":{"f:x":{}}}}]]',
  );
  const spec = next.spec as { containers: Record<string, unknown>[] };
  spec.containers[0]!.image = 'y';
  spec.containers.push({ name: 'c2', image: 'q' });
  assert.equal(
    entries(fm.update(live, next, 'b')),
    '[["a",{"f:metadata":{"f:labels":{}},"f:spec":{".":{},"f:containers":{".":{},"k:{\\"name\\":\\"c1\\"}":{".":{},"f:name":{},"f:ports":{".":{},"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}},"f:nodeSelector":{}}}],["b",{"f:metadata":{"f:labels":{"f:x":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"c1\\"}":{"f:image":{}},"k:{\\"name\\":\\"c2\\"}":{".":{},"f:image":{},"f:name":{}}}}}]]',
  );
});
