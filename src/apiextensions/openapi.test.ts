import { test } from 'node:test';
import assert from 'node:assert/strict';
import { customResourceOpenAPI, gvkToModelName } from './openapi.ts';
import { buildV2Document, buildV3Document } from '../endpoints/openapi/builder.ts';
import type { CustomResourceDefinition } from './types.ts';
import type { JSONSchemaProps } from './schema/structural.ts';

const crd = (
  schema?: JSONSchemaProps,
  extra: Partial<CustomResourceDefinition['spec']> = {},
): CustomResourceDefinition =>
  ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: schema && { openAPIV3Schema: schema } }],
      ...extra,
    },
  }) as CustomResourceDefinition;

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['name', 'maybe'],
      properties: {
        name: { type: 'string' },
        maybe: { type: 'string', nullable: true },
        port: { 'x-kubernetes-int-or-string': true },
        either: { type: 'string', oneOf: [{ pattern: '^a' }, { pattern: '^b' }] },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
      },
    },
  },
};

test('gvkToModelName reverses the group', () => {
  assert.equal(gvkToModelName('stable.example.com', 'v1', 'CronTab'), 'com.example.stable.v1.CronTab');
});

test('v3: the structural schema with metadata, TypeMeta, int-or-string unfolded, embedded resources completed', () => {
  const o = customResourceOpenAPI(crd(schema), 'v1');
  assert.equal(o.name, 'com.example.v1.Widget');
  assert.equal(o.listName, 'com.example.v1.WidgetList');
  const k = o.definitions![o.name]!;
  assert.deepEqual(Object.keys(k.properties!), ['apiVersion', 'kind', 'metadata', 'spec']);
  assert.equal(k.properties!.metadata!.$ref, '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  assert.match(String(k.properties!.apiVersion!.description), /^APIVersion defines the versioned schema/);
  assert.deepEqual(k['x-kubernetes-group-version-kind'], [{ group: 'example.com', version: 'v1', kind: 'Widget' }]);
  const spec = k.properties!.spec!;
  assert.deepEqual(spec.properties!.port!.anyOf, [{ type: 'integer' }, { type: 'string' }]);
  assert.equal(spec.properties!.maybe!.nullable, true);
  assert.deepEqual(spec.required, ['name', 'maybe']);
  assert.ok(spec.properties!.free!.properties);
  const tpl = spec.properties!.template!;
  assert.deepEqual(Object.keys(tpl.properties!), ['apiVersion', 'kind', 'metadata', 'spec']);
  assert.deepEqual(tpl.required, ['kind', 'apiVersion']);
  const list = o.definitions![o.listName!]!;
  assert.deepEqual(list.required, ['items']);
  assert.equal(list.properties!.items!.items!.$ref, '#/components/schemas/com.example.v1.Widget');
  // The CRD's own schema is not changed.
  assert.equal(schema.properties!.spec!.properties!.port!.anyOf, undefined);
});

test('v2: ToStructuralOpenAPIV2 drops what swagger 2.0 cannot say', () => {
  const o = customResourceOpenAPI(crd(schema), 'v1');
  const spec = o.v2Definitions![o.name]!.properties!.spec!;
  assert.equal(spec.properties!.port!.anyOf, undefined);
  assert.equal(spec.properties!.port!['x-kubernetes-int-or-string'], true);
  assert.equal(spec.properties!.either!.oneOf, undefined);
  assert.deepEqual(spec.properties!.maybe, {});
  assert.deepEqual(spec.required, ['name'], 'a nullable field is not required in v2');
  assert.deepEqual(spec.properties!.free, { 'x-kubernetes-preserve-unknown-fields': true });
  // A root that keeps unknown fields is a bare object in v2.
  const free = customResourceOpenAPI(crd({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }), 'v1');
  assert.deepEqual(free.v2Definitions![free.name], {
    type: 'object',
    'x-kubernetes-group-version-kind': [{ group: 'example.com', version: 'v1', kind: 'Widget' }],
  });
});

test('a version without a (structural) schema is an object', () => {
  const o = customResourceOpenAPI(crd(undefined), 'v1');
  assert.deepEqual(o.definitions![o.name], {
    type: 'object',
    'x-kubernetes-group-version-kind': [{ group: 'example.com', version: 'v1', kind: 'Widget' }],
  });
});

test('documents: the CR kinds and their meta types, v2 references rewritten', () => {
  const openAPI = customResourceOpenAPI(crd(schema), 'v1');
  const gv = {
    group: 'example.com',
    version: 'v1',
    resources: [
      {
        name: 'widgets',
        kind: 'Widget',
        namespaced: true,
        verbs: ['create', 'get', 'list', 'patch', 'update', 'delete', 'watch'],
        openAPI,
      },
    ],
  };
  const v3 = buildV3Document(gv, { version: 'v1.34.0' }) as { components: { schemas: Record<string, unknown> } };
  assert.ok(v3.components.schemas['com.example.v1.Widget']);
  assert.ok(v3.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
  const v2 = buildV2Document([gv], { version: 'v1.34.0' }) as {
    definitions: Record<string, { properties: Record<string, { $ref?: string; properties?: object }> }>;
  };
  const w = v2.definitions['com.example.v1.Widget']!;
  assert.equal(w.properties.metadata!.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  assert.equal(
    (w.properties.spec!.properties as Record<string, { oneOf?: unknown }>).either!.oneOf,
    undefined,
    'the v2 definitions are used',
  );
});
