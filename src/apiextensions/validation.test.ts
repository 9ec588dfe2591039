// CRD validation with upstream's paths and messages; printer columns as Table cells.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate } from './validation.ts';
import { crdStrategy } from './customresourcedefinition.ts';
import { namingConflict } from './controller.ts';
import { newTableConvertor, parseJSONPath, evalJSONPath } from './tableconvertor.ts';
import type { CustomResourceDefinition } from './types.ts';

function crd(
  over: Partial<CustomResourceDefinition['spec']> = {},
  name = 'widgets.example.com',
): CustomResourceDefinition {
  const c: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } },
        },
      ],
      ...over,
    },
  };
  crdStrategy.prepareForCreate!(c);
  return c;
}

const errs = (c: CustomResourceDefinition) => validateCustomResourceDefinition(c).map(String);

test('a valid CRD has no errors', () => {
  assert.deepEqual(errs(crd()), []);
});

test('names, group, scope and the metadata.name rule', () => {
  assert.deepEqual(errs(crd({}, 'other.example.com')), [
    'metadata.name: Invalid value: "other.example.com": must be spec.names.plural+"."+spec.group',
  ]);
  assert.deepEqual(errs(crd({ group: 'example', scope: 'Global' }, 'widgets.example')), [
    'spec.group: Invalid value: "example": should be a domain with at least one dot',
    'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
  ]);
  assert.deepEqual(
    errs(
      crd(
        { names: { plural: 'Widgets', kind: 'Widget', listKind: 'Widget', shortNames: ['w_1'] } },
        'Widgets.example.com',
      ),
    ).filter((e) => e.startsWith('spec.names')),
    [
      "spec.names.plural: Invalid value: \"Widgets\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      "spec.names.shortNames[0]: Invalid value: \"w_1\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      'spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same',
    ],
  );
});

test('versions: exactly one storage version, unique names, schema required', () => {
  const two = crd();
  two.spec.versions!.push({ ...two.spec.versions![0]!, name: 'v2' });
  const e = errs(two);
  assert.ok(
    e.some((x) => x.endsWith('must have exactly one version marked as storage version')),
    e.join('\n'),
  );
  const none = crd();
  none.spec.versions![0]!.storage = false;
  assert.ok(errs(none).some((x) => x.endsWith('must have exactly one version marked as storage version')));
  const noSchema = crd();
  delete noSchema.spec.versions![0]!.schema;
  assert.deepEqual(errs(noSchema), ['spec.versions[0].schema.openAPIV3Schema: Required value']);
});

test('schemas: structural errors under spec.validation (identical per-version schemas are promoted)', () => {
  const c = crd();
  c.spec.versions![0]!.schema = {
    openAPIV3Schema: { type: 'object', properties: { spec: { properties: { size: { type: 'string' } } } } },
  };
  assert.deepEqual(errs(c), [
    'spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
  ]);
  // Two versions with different schemas: per-version paths.
  const d = crd();
  d.spec.versions!.push({
    name: 'v2',
    served: true,
    storage: false,
    schema: { openAPIV3Schema: { type: 'object', properties: { a: { type: 'strin' } } } },
  });
  assert.deepEqual(errs(d), [
    'spec.versions[1].schema.openAPIV3Schema.properties[a].type: Unsupported value: "strin": supported values: "array", "boolean", "integer", "number", "object", "string"',
  ]);
});

test('schemas: defaults must validate and be pruned; no defaults in metadata; uniqueItems forbidden; CEL named', () => {
  const c = crd();
  c.spec.versions![0]!.schema = {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        metadata: { type: 'object', default: {} },
        spec: {
          type: 'object',
          properties: {
            size: { type: 'string', enum: ['s', 'l'], default: 'm' },
            obj: { type: 'object', properties: { a: { type: 'string' } }, default: { a: 'x', b: 1 } },
            list: { type: 'array', items: { type: 'string' }, uniqueItems: true },
          },
          'x-kubernetes-validations': [{ rule: 'self.size != "x"' }],
        },
      },
    },
  };
  assert.deepEqual(errs(c), [
    'spec.validation.openAPIV3Schema.properties[spec].properties[obj].default: Invalid value: {"a":"x","b":1}: must not have unknown fields',
    'spec.validation.openAPIV3Schema.properties[spec].properties[size].default: Unsupported value: "m": supported values: "s", "l"',
    'spec.validation.openAPIV3Schema.properties[metadata].default: Forbidden: must not be set in top-level metadata',
    'spec.validation.openAPIV3Schema.properties[spec].properties[list].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
    'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: CEL validation rules are not supported by this server: "self.size != \\"x\\""',
  ]);
});

test('printer columns, subresources, conversion', () => {
  const c = crd();
  c.spec.versions![0]!.additionalPrinterColumns = [{ name: 'X', type: 'text', jsonPath: 'spec.x' }, { name: 'Y' }];
  c.spec.versions![0]!.subresources = {
    status: {},
    scale: { specReplicasPath: '.status.r', statusReplicasPath: '.status.r' },
  };
  assert.deepEqual(errs(c), [
    'spec.subresources.scale.specReplicasPath: Invalid value: ".status.r": should be a json path under .spec',
    'spec.additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
    'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.x": must be a simple json path starting with .',
    'spec.additionalPrinterColumns[1].type: Required value: must be one of boolean,date,integer,number,string',
    'spec.additionalPrinterColumns[1].JSONPath: Required value',
  ]);
  const w = crd({ conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x' } } } });
  assert.deepEqual(errs(w), [
    'spec.conversion.strategy: Forbidden: Webhook conversion is not supported by this server; use None (versions differ only in apiVersion)',
  ]);
});

test('update: group and plural immutable; generation bumps on spec changes', () => {
  const old = crd();
  old.status!.conditions = [{ type: 'Established', status: 'True' }];
  const next = structuredClone(old);
  next.spec.scope = 'Cluster';
  crdStrategy.prepareForUpdate!(next, old);
  assert.equal(next.metadata.generation, 2);
  assert.deepEqual(validateCustomResourceDefinitionUpdate(next, old).map(String), [
    'spec.scope: Invalid value: "Cluster": field is immutable',
  ]);
});

test('printer columns: first JSONPath match, types, Age when none', () => {
  const now = new Date('2026-01-01T00:10:00Z');
  const obj = {
    metadata: { name: 'w', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { size: 'large', replicas: 3.7, tags: ['a', 'b'], on: true },
    status: {
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'Other', status: 'False' },
      ],
    },
  };
  const t = newTableConvertor([
    { name: 'Size', type: 'string', jsonPath: '.spec.size' },
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'Tags', type: 'string', jsonPath: '.spec.tags[*]' },
    { name: 'Missing', type: 'string', jsonPath: '.spec.nope' },
    { name: 'On', type: 'boolean', jsonPath: '.spec.on', priority: 1 },
    { name: 'Created', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ]);
  assert.deepEqual(
    t.columns.map((c) => c.name),
    ['Name', 'Size', 'Replicas', 'Ready', 'Tags', 'Missing', 'On', 'Created'],
  );
  assert.equal(t.columns[6]!.priority, 1);
  assert.deepEqual(t.cells(obj as never, now), ['w', 'large', 3, 'True', 'a', null, true, '10m']);
  const age = newTableConvertor(undefined);
  assert.deepEqual(
    age.columns.map((c) => [c.name, c.type]),
    [
      ['Name', 'string'],
      ['Age', 'date'],
    ],
  );
  assert.deepEqual(age.cells(obj as never, now), ['w', '10m']);
  assert.deepEqual(evalJSONPath(parseJSONPath("{.metadata['name']}"), obj), ['w']);
});

test('upstream messages: list and map types, resource meta, preserveUnknownFields, protected groups, storedVersions', () => {
  const obj = (props: object) => ({
    openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: props } } },
  });
  const withSchema = (schema: object, over: Partial<CustomResourceDefinition['spec']> = {}) =>
    crd({ versions: [{ name: 'v1', served: true, storage: true, schema: schema as never }], ...over });
  const item = { type: 'object', properties: { a: { type: 'string' } } };
  const p = 'spec.validation.openAPIV3Schema.properties[spec].properties[l]';
  assert.deepEqual(errs(withSchema(obj({ l: { type: 'array', 'x-kubernetes-list-type': 'set', items: item } }))), [
    `${p}.items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set`,
  ]);
  assert.deepEqual(
    errs(
      withSchema(
        obj({
          l: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['a'], items: item },
        }),
      ),
    ),
    [
      `${p}.items.properties[a].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
    ],
  );
  assert.deepEqual(
    errs(
      withSchema({
        openAPIV3Schema: {
          type: 'object',
          properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } },
        },
      }),
    ),
    [
      'spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
    ],
  );
  assert.ok(
    errs(crd({ preserveUnknownFields: true, conversion: { strategy: 'Webhook' } })).includes(
      'spec.conversion.strategy: Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true',
    ),
  );
  assert.deepEqual(errs({ ...crd({ group: 'foo.k8s.io' }, 'widgets.foo.k8s.io') }), [
    'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
  ]);
  const none = crd();
  none.status = { storedVersions: [] };
  assert.deepEqual(errs(none), ['status.storedVersions: Invalid value: []: must have at least one stored version']);
  const old = crd();
  old.status = { storedVersions: ['v0', 'v1'] };
  assert.deepEqual(errs(old), [
    'status.storedVersions[0]: Invalid value: "v0": missing from spec.versions; v0 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v0 and removes v0 from status.storedVersions',
  ]);
});

test('naming conflicts with the other CRDs of the group, as the naming controller reports them', () => {
  const accepted = (names: CustomResourceDefinition['spec']['names'], name: string) => {
    const c = crd({ names }, name);
    c.status = { acceptedNames: names };
    return c;
  };
  const other = accepted(
    { plural: 'gadgets', singular: 'gadget', shortNames: ['gd'], kind: 'Gadget', listKind: 'GadgetList' },
    'gadgets.example.com',
  );
  const mine = (names: CustomResourceDefinition['spec']['names']) => namingConflict(crd({ names }), [other]);
  const n = { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' };
  assert.equal(mine(n), undefined);
  assert.deepEqual(mine({ ...n, plural: 'gadget' }), {
    reason: 'PluralConflict',
    message: '"gadget" is already in use',
  });
  assert.deepEqual(mine({ ...n, singular: 'gd' }), { reason: 'SingularConflict', message: '"gd" is already in use' });
  assert.deepEqual(mine({ ...n, shortNames: ['gadgets'] }), {
    reason: 'ShortNamesConflict',
    message: '"gadgets" is already in use',
  });
  assert.deepEqual(mine({ ...n, kind: 'Gadget' }), { reason: 'KindConflict', message: '"Gadget" is already in use' });
  assert.deepEqual(mine({ ...n, listKind: 'GadgetList' }), {
    reason: 'ListKindConflict',
    message: '"GadgetList" is already in use',
  });
  // Another group's names never conflict.
  assert.equal(
    namingConflict(crd({ names: { ...n, plural: 'gadgets' } }), [
      { ...other, spec: { ...other.spec, group: 'other.com' } },
    ]),
    undefined,
  );
});
