// Structural schemas, pruning, defaulting and validation, with upstream's messages
// (apiextensions-apiserver pkg/apiserver/schema and pkg/apiserver/validation tests, kube-openapi's
// validate messages).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newStructural, validateStructural, type JSONSchemaProps } from './structural.ts';
import { applyDefaults, prune, pruneNonNullableNullsWithoutDefaults } from './pruning.ts';
import { goFloat, validateCustomResource, validateListSetsAndMaps } from './validation.ts';
import { Path } from '../../util/validation/field.ts';
import { supportedFormat, validatesFormat } from './formats.ts';

const root = Path.of('spec', 'validation', 'openAPIV3Schema');
const structuralErrors = (s: JSONSchemaProps) => validateStructural(root, newStructural(s)!).map(String);
const errors = (s: JSONSchemaProps, data: unknown, p?: Path) => validateCustomResource(p, data, s).map(String);

test('non-structural schemas: upstream messages, sorted', () => {
  assert.deepEqual(structuralErrors({ properties: { spec: { type: 'object' } } }), [
    'spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root',
  ]);
  assert.deepEqual(structuralErrors({ type: 'string' }), [
    'spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root',
  ]);
  assert.deepEqual(
    structuralErrors({
      type: 'object',
      additionalProperties: { type: 'string' },
      properties: { a: {}, b: { type: 'array' }, c: { type: 'array', items: {} } },
    }),
    [
      'spec.validation.openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root',
      'spec.validation.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields',
      'spec.validation.openAPIV3Schema.properties[b].items: Required value: must be specified',
      'spec.validation.openAPIV3Schema.properties[c].items.type: Required value: must not be empty for specified array items',
    ],
  );
  // Value validations may not add types or fields the structural part lacks.
  assert.deepEqual(
    structuralErrors({
      type: 'object',
      properties: { a: { type: 'string' } },
      anyOf: [{ type: 'object', properties: { b: { description: 'x' } } }],
    }),
    [
      'spec.validation.openAPIV3Schema.anyOf[0].properties[b].description: Forbidden: must be empty to be structural',
      'spec.validation.openAPIV3Schema.anyOf[0].type: Forbidden: must be empty to be structural',
      'spec.validation.openAPIV3Schema.properties[b]: Required value: because it is defined in spec.validation.openAPIV3Schema.anyOf[0].properties[b]',
    ],
  );
  // metadata may only restrict name and generateName; kind/apiVersion are strings.
  assert.deepEqual(
    structuralErrors({
      type: 'object',
      properties: {
        kind: { type: 'integer' },
        metadata: { type: 'object', properties: { labels: { type: 'object' } } },
      },
    }),
    [
      'spec.validation.openAPIV3Schema.properties[kind].type: Invalid value: "integer": must be string',
      'spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
    ],
  );
  assert.deepEqual(
    structuralErrors({
      type: 'object',
      properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } } },
    }),
    [],
  );
  // Embedded resources and int-or-string.
  assert.deepEqual(
    structuralErrors({
      type: 'object',
      properties: {
        e: { 'x-kubernetes-embedded-resource': true },
        i: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true },
        ok: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      },
    }),
    [
      'spec.validation.openAPIV3Schema.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      'spec.validation.openAPIV3Schema.properties[e].type: Required value: must be object if x-kubernetes-embedded-resource is true',
      'spec.validation.openAPIV3Schema.properties[i].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true',
    ],
  );
  assert.deepEqual(structuralErrors({ type: 'object', properties: { p: { type: 'string', pattern: '(' } } }).length, 1);
  assert.throws(() => newStructural({ type: 'object', $ref: '#/x' }), /'\$ref' is not supported/);
});

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'string', enum: ['small', 'large'], default: 'small' },
        replicas: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
        name: { type: 'string', maxLength: 5, minLength: 2, pattern: '^[a-z]+$' },
        ratio: { type: 'number', exclusiveMaximum: true, maximum: 1.5 },
        port: { 'x-kubernetes-int-or-string': true },
        email: { type: 'string', format: 'email' },
        custom: { type: 'string', format: 'not-a-format' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 2, 'x-kubernetes-list-type': 'set' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
        labels: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 2 },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { k: { type: 'string' } } },
        nested: { type: 'object', nullable: true, properties: { a: { type: 'string', default: 'x' } } },
        child: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } },
        },
      },
    },
  },
};

test('validation: kube-openapi messages as field errors', () => {
  assert.deepEqual(errors(schema, { spec: { size: 'medium' } }), [
    'spec.size: Unsupported value: "medium": supported values: "small", "large"',
  ]);
  assert.deepEqual(errors(schema, { spec: {} }), ['spec.size: Required value']);
  assert.deepEqual(errors(schema, { spec: { size: 'small', replicas: 'three' } }), [
    'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
  ]);
  assert.deepEqual(errors(schema, { spec: { size: 'small', replicas: 1.5 } }), [
    'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
    // numberValidator's range check (IsValueValidAgainstRange) also fires, as upstream.
    '<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.replicas',
  ]);
  assert.deepEqual(errors(schema, { spec: { size: 'small', replicas: -1 } }), [
    'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
  ]);
  assert.deepEqual(errors(schema, { spec: { size: 'small', replicas: 11 } }), [
    'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
  ]);
  assert.deepEqual(errors(schema, { spec: { size: 'small', ratio: 1.5 } }), [
    'spec.ratio: Invalid value: 1.5: spec.ratio in body should be less than 1.5',
  ]);
  assert.deepEqual(errors(schema, { spec: { size: 'small', name: 'abcdef' } }), [
    'spec.name: Too long: may not be more than 5 bytes',
  ]);
  assert.deepEqual(errors(schema, { spec: { size: 'small', name: 'a' } }), [
    'spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long',
  ]);
  assert.deepEqual(errors(schema, { spec: { size: 'small', name: 'A1' } }), [
    `spec.name: Invalid value: "A1": spec.name in body should match '^[a-z]+$'`,
  ]);
  assert.deepEqual(errors(schema, { spec: { size: 'small', port: true } }), [
    'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
  ]);
  assert.deepEqual(errors(schema, { spec: { size: 'small', port: 80 } }), []);
  assert.deepEqual(errors(schema, { spec: { size: 'small', port: 'http' } }), []);
  assert.deepEqual(errors(schema, { spec: { size: 'small', email: 'nope' } }), [
    'spec.email: Invalid value: "nope": spec.email in body must be of type email: "nope"',
  ]);
  // An unsupported format is stripped, not checked.
  assert.deepEqual(errors(schema, { spec: { size: 'small', custom: 'anything' } }), []);
  assert.deepEqual(errors(schema, { spec: { size: 'small', tags: ['a', 'b', 'c'] } }), [
    'spec.tags: Too many: 3: must have at most 2 items',
  ]);
  assert.deepEqual(errors(schema, { spec: { size: 'small', labels: { a: 'x', b: 1, c: 'z' } } }), [
    'spec.labels: Too many: 3: must have at most 2 items',
    'spec.labels.b: Invalid value: "integer": spec.labels.b in body must be of type string: "integer"',
  ]);
  assert.deepEqual(errors(schema, { spec: { size: 'small', name: null } }), [
    'spec.name: Invalid value: "null": spec.name in body must be of type string: "null"',
  ]);
  assert.deepEqual(errors(schema, { spec: { size: 'small', nested: null } }), []);
  // The /status path roots the errors at `status`, names relative (upstream's status.num case).
  assert.deepEqual(
    errors({ type: 'object', properties: { num: { type: 'integer', maximum: 10 } } }, { num: 15 }, Path.of('status')),
    ['status.num: Invalid value: 15: num in body should be less than or equal to 10'],
  );
  assert.deepEqual(
    errors({ type: 'object', properties: { f: { type: 'string', pattern: '+' } } }, { f: 'x' }).length,
    1,
  );
  assert.match(
    errors({ type: 'object', properties: { f: { type: 'string', pattern: '(' } } }, { f: 'x' })[0]!,
    /^f: Invalid value: "x": f in body should match '\(, but pattern is invalid: /,
  );
  assert.deepEqual(errors({ type: 'object', properties: { i: { type: 'integer', format: 'int64' } } }, { i: 1.5 }), [
    'i: Invalid value: "float64": i in body must be of type int64: "float64"',
    '<nil>: Invalid value: "": Checked value must be of type integer with format int64 in i',
  ]);
  assert.deepEqual(
    errors({ type: 'object', properties: { i: { type: 'integer', format: 'int32' } } }, { i: 2 ** 40 }),
    ['<nil>: Invalid value: "": Checked value must be of type integer with format int32 in i'],
  );
  assert.deepEqual(
    errors(
      { type: 'object', properties: { a: { type: 'string', anyOf: [{ maxLength: 1 }, { pattern: '^b' }] } } },
      {
        a: 'cc',
      },
    ),
    [
      '<nil>: Invalid value: "": "a" must validate at least one schema (anyOf)',
      'a: Too long: may not be more than 1 byte',
    ],
  );
  assert.deepEqual(
    errors({ type: 'object', properties: { a: { type: 'string', not: { enum: ['x'] } } } }, { a: 'x' }),
    ['<nil>: Invalid value: "": "a" must not validate the schema (not)'],
  );
});

test('list-type set and map: duplicates', () => {
  const s = newStructural(schema)!;
  const obj = {
    spec: {
      tags: ['a', 'b', 'a'],
      ports: [{ name: 'http', port: 80 }, { name: 'http', port: 81 }, { port: 1 }, {}],
    },
  };
  assert.deepEqual(validateListSetsAndMaps(undefined, s, obj).map(String), [
    'spec.tags[2]: Duplicate value: "a"',
    'spec.ports[1]: Duplicate value: {"name":"http"}',
    'spec.ports[3]: Duplicate value: {}',
  ]);
  assert.deepEqual(validateListSetsAndMaps(undefined, s, { spec: { ports: [1] } }).map(String), [
    'spec.ports[0]: Invalid value: 1: must be an object for an array of list-type map',
  ]);
});

test('pruning: unknown fields go, preserve-unknown-fields and embedded metadata stay', () => {
  const s = newStructural(schema)!;
  const obj: Record<string, unknown> = {
    apiVersion: 'x/v1',
    kind: 'X',
    metadata: { name: 'a' },
    extra: 1,
    spec: {
      size: 'small',
      bogus: { deep: true },
      tags: ['a'],
      ports: [{ name: 'p', unknown: 1 }],
      labels: { a: 'b' },
      free: { anything: [1], k: 'v' },
      child: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 'y', z: 1 }, other: 2 },
    },
  };
  const pruned = prune(obj, s, true);
  assert.deepEqual(pruned, ['extra', 'spec.bogus', 'spec.child.other', 'spec.child.spec.z', 'spec.ports[0].unknown']);
  assert.deepEqual(obj, {
    apiVersion: 'x/v1',
    kind: 'X',
    metadata: { name: 'a' },
    spec: {
      size: 'small',
      tags: ['a'],
      ports: [{ name: 'p' }],
      labels: { a: 'b' },
      free: { anything: [1], k: 'v' },
      child: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 'y' } },
    },
  });
  // Nested (non-root) metadata is an unknown field like any other.
  const o2 = { spec: { metadata: 1 } };
  assert.deepEqual(prune(o2, s, true), ['spec.metadata']);
});

test('defaulting: missing and non-nullable nulls, deep copies, nullable nulls kept', () => {
  const s = newStructural(schema)!;
  const obj: Record<string, unknown> = { spec: { replicas: null, nested: null } };
  pruneNonNullableNullsWithoutDefaults(obj, s);
  applyDefaults(obj, s);
  assert.deepEqual(obj, { spec: { size: 'small', replicas: 1, nested: null } });
  const o2: Record<string, unknown> = { spec: { nested: {}, name: null } };
  pruneNonNullableNullsWithoutDefaults(o2, s);
  applyDefaults(o2, s);
  assert.deepEqual(o2, { spec: { size: 'small', replicas: 1, nested: { a: 'x' } } });
  const d = { type: 'object', properties: { a: { type: 'object', default: { k: [1] } } } } as JSONSchemaProps;
  const ds = newStructural(d)!;
  const x: Record<string, { k: number[] }> = {};
  const y: Record<string, { k: number[] }> = {};
  applyDefaults(x, ds);
  applyDefaults(y, ds);
  x.a!.k.push(2);
  assert.deepEqual(y.a, { k: [1] });
});

test('formats: the supported set, stripped otherwise', () => {
  assert.equal(supportedFormat('string', 'date-time'), 'date-time');
  assert.equal(supportedFormat('string', 'int-or-string'), '');
  assert.equal(supportedFormat('integer', 'int32'), 'int32');
  assert.equal(supportedFormat('integer', 'uint8'), '');
  const ok: [string, string][] = [
    ['date-time', '2024-01-02T03:04:05Z'],
    ['date', '2024-02-29'],
    ['uuid', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'],
    ['ipv4', '10.0.0.1'],
    ['ipv6', '::1'],
    ['cidr', '10.0.0.0/8'],
    ['hostname', 'example.com'],
    ['byte', 'aGVsbG8='],
    ['duration', '1h30m'],
    ['k8s-short-name', 'my-name'],
    ['k8s-long-name', 'a.b-c.d'],
    ['mac', '00:11:22:33:44:55'],
    ['isbn10', '0321751043'],
    ['isbn13', '978-0321751041'],
  ];
  for (const [f, v] of ok) assert.ok(validatesFormat(f, v), `${f} ${v}`);
  const bad: [string, string][] = [
    ['date-time', '2024-01-02'],
    ['date', '2023-02-29'],
    ['uuid', 'x'],
    ['ipv4', '10.0.0.256'],
    ['ipv6', '1.2.3.4'],
    ['k8s-short-name', 'My-Name'],
    ['k8s-long-name', '-a'],
    ['byte', 'not base64!'],
  ];
  for (const [f, v] of bad) assert.ok(!validatesFormat(f, v), `${f} ${v}`);
});

test('goFloat prints as Go %v', () => {
  assert.equal(goFloat(1.5), '1.5');
  assert.equal(goFloat(1e21), '1e+21');
  assert.equal(goFloat(0.00001), '1e-05');
  assert.equal(goFloat(10), '10');
});

// A body within the request size limit can hold more wrong items than one call takes arguments
// (V8: ~125k): every error is reported, none overflows the stack into a 500.
test('more errors than a call has arguments for: allOf over an array, duplicates in a set', () => {
  const many = Array.from({ length: 200_000 }, () => 1);
  const allOf = validateCustomResource(
    undefined,
    { spec: many },
    { type: 'object', properties: { spec: { allOf: [{ type: 'array', items: { type: 'string' } }] } } },
  );
  assert.equal(allOf.length, 200_001);
  assert.equal(
    String(allOf[0]),
    'spec[0]: Invalid value: "integer": spec[0] in body must be of type string: "integer"',
  );
  assert.equal(
    String(allOf[200_000]),
    '<nil>: Invalid value: "": "spec" must validate all the schemas (allOf). None validated',
  );
  // One error per value seen twice (upstream validateListSet).
  const tags = Array.from({ length: 300_000 }, (_, i) => `v${i % 150_000}`);
  const dups = validateListSetsAndMaps(undefined, newStructural(schema)!, { spec: { tags } });
  assert.equal(dups.length, 150_000);
  assert.equal(String(dups[0]), 'spec.tags[150000]: Duplicate value: "v0"');
});
