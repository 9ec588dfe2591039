// The schema of a kind whose own schema is not at hand: apiVersion, kind and
// io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta with the extensions upstream's OpenAPI carries
// (finalizers a set merged by strategic merge patch, ownerReferences a map keyed by uid), every
// other field deduced (maps granular, lists atomic).

import type { OpenAPISchema, TypeSchema } from './schema.ts';

const str: OpenAPISchema = { type: 'string' };
const stringMap: OpenAPISchema = { type: 'object', additionalProperties: { type: 'string' } };

export const objectMetaName = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

export const objectMetaSchema: OpenAPISchema = {
  type: 'object',
  properties: {
    annotations: stringMap,
    creationTimestamp: str,
    deletionGracePeriodSeconds: { type: 'integer' },
    deletionTimestamp: str,
    finalizers: {
      type: 'array',
      items: { type: 'string' },
      'x-kubernetes-list-type': 'set',
      'x-kubernetes-patch-strategy': 'merge',
    },
    generateName: str,
    generation: { type: 'integer' },
    labels: stringMap,
    managedFields: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    name: str,
    namespace: str,
    ownerReferences: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          apiVersion: str,
          blockOwnerDeletion: { type: 'boolean' },
          controller: { type: 'boolean' },
          kind: str,
          name: str,
          uid: str,
        },
      },
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-patch-strategy': 'merge',
    },
    resourceVersion: str,
    selfLink: str,
    uid: str,
  },
};

/** A kind known only by its ObjectMeta. */
export const objectMetaTypeSchema: TypeSchema = {
  root: {
    type: 'object',
    properties: { apiVersion: str, kind: str, metadata: { $ref: `#/components/schemas/${objectMetaName}` } },
    additionalProperties: true,
  },
  definitions: { [objectMetaName]: objectMetaSchema },
};

/**
 * A kind known by its ObjectMeta and the names of its other fields: declared (as a typed kind's
 * fields are), their types deduced.
 */
export function typeSchemaFromFields(fields: Iterable<string>): TypeSchema {
  const properties: Record<string, OpenAPISchema> = { ...objectMetaTypeSchema.root.properties };
  for (const f of fields) if (!Object.hasOwn(properties, f)) properties[f] = {};
  return { root: { ...objectMetaTypeSchema.root, properties }, definitions: objectMetaTypeSchema.definitions };
}
