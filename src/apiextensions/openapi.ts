// The OpenAPI schemas of a CRD version (k8s.io/apiextensions-apiserver/pkg/controller/openapi/
// builder/builder.go buildKubeNative and buildListSchema, v2/conversion.go ToStructuralOpenAPIV2):
// the version's structural schema with `int-or-string` unfolded, metadata as a reference to
// ObjectMeta, apiVersion and kind as TypeMeta describes them, embedded resources completed, and
// `x-kubernetes-group-version-kind`; the list kind with `items` and ListMeta. Swagger 2.0 gets
// the schema without what it cannot say (value validations' allOf/anyOf/oneOf/not, nullable
// types, the insides of preserve-unknown-fields nodes).

import type { ResourceOpenAPI } from '../endpoints/openapi/builder.ts';
import { builtinDefinition, refPrefix, type SchemaObject } from '../endpoints/openapi/schemas.ts';
import { Path } from '../util/validation/field.ts';
import { newStructural, validateStructural, type JSONSchemaProps } from './schema/structural.ts';
import type { CustomResourceDefinition } from './types.ts';

const meta = (k: string) => `io.k8s.apimachinery.pkg.apis.meta.v1.${k}`;
// metav1beta1.PartialObjectMetadata{,List}.SwaggerDoc()["metadata"].
const objectMetaDoc =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const listMetaDoc =
  'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const embeddedAPIVersionDoc =
  'apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const embeddedKindDoc =
  'kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** gvkToModelName: the group reversed, then version and kind (`com.example.v1.Widget`). */
export function gvkToModelName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/** TypeMeta's apiVersion and kind properties (as every built-in kind carries them). */
function typeMetaProperty(name: 'apiVersion' | 'kind'): SchemaObject {
  const p = builtinDefinition('io.k8s.api.core.v1.ConfigMap')?.properties?.[name];
  return p ? { ...p } : { type: 'string' };
}

const ref = (name: string, description: string): SchemaObject => ({ $ref: refPrefix + name, description });

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Unfold: `x-kubernetes-int-or-string` gets its `anyOf: [integer, string]` unless it spells it out. */
function unfold(s: Schema): void {
  if (s['x-kubernetes-int-or-string'] === true) {
    const intOrString = [{ type: 'integer' }, { type: 'string' }];
    const isPattern = (x: unknown) =>
      Array.isArray(x) &&
      x.length === 2 &&
      isObject(x[0]) &&
      x[0].type === 'integer' &&
      Object.keys(x[0]).length === 1 &&
      isObject(x[1]) &&
      x[1].type === 'string' &&
      Object.keys(x[1]).length === 1;
    const allOf0 = Array.isArray(s.allOf) && isObject(s.allOf[0]) ? s.allOf[0] : undefined;
    if (!isPattern(s.anyOf) && !(allOf0 && isPattern(allOf0.anyOf) && Object.keys(allOf0).length === 1)) {
      if (s.anyOf === undefined) s.anyOf = intOrString;
      else s.allOf = [{ anyOf: intOrString }, ...((s.allOf as unknown[] | undefined) ?? [])];
    }
  }
  forChildren(s, unfold);
}

function forChildren(s: Schema, fn: (c: Schema) => void): void {
  if (isObject(s.properties)) for (const c of Object.values(s.properties)) if (isObject(c)) fn(c);
  if (isObject(s.items)) fn(s.items);
  if (isObject(s.additionalProperties)) fn(s.additionalProperties);
}

/** addEmbeddedProperties: an embedded resource gets apiVersion, kind (required) and metadata. */
function addEmbeddedProperties(s: Schema, v2: boolean): void {
  forChildren(s, (c) => addEmbeddedProperties(c, v2));
  if (v2 && s['x-kubernetes-preserve-unknown-fields'] === true) return;
  if (s['x-kubernetes-embedded-resource'] !== true) return;
  const props = (isObject(s.properties) ? s.properties : (s.properties = {})) as Record<string, SchemaObject>;
  props.apiVersion = { ...typeMetaProperty('apiVersion'), description: embeddedAPIVersionDoc };
  props.kind = { ...typeMetaProperty('kind'), description: embeddedKindDoc };
  props.metadata = ref(meta('ObjectMeta'), objectMetaDoc);
  const req = Array.isArray(s.required) ? (s.required as string[]) : [];
  if (!req.includes('kind')) req.push('kind');
  if (!req.includes('apiVersion')) req.push('apiVersion');
  s.required = req;
}

/** ToStructuralOpenAPIV2 over the structural nodes (properties, items, additionalProperties). */
function toStructuralV2(s: Schema): void {
  delete s.allOf;
  delete s.oneOf;
  delete s.anyOf;
  delete s.not;
  const props = isObject(s.properties) ? s.properties : undefined;
  // Nullable fields are not required in swagger 2.0 (null is no value there).
  if (props && Array.isArray(s.required)) {
    const req = (s.required as string[]).filter((f) => !(isObject(props[f]) && props[f].nullable === true));
    if (req.length) s.required = req;
    else delete s.required;
  }
  if (isObject(s.additionalProperties) && s.additionalProperties.nullable === true) delete s.required;
  if (s.nullable === true) {
    delete s.type;
    delete s.nullable;
    delete s.items;
    delete s.properties;
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === true) {
    delete s.items;
    delete s.properties;
    if (s.type === 'object') delete s.type;
  }
  if (s.items === undefined && s.type === 'array') delete s.type;
  forChildren(s, toStructuralV2);
}

/** The version's schema if it is structural (what upstream publishes; otherwise a bare object). */
function structuralSchema(crd: CustomResourceDefinition, version: string): JSONSchemaProps | undefined {
  const schema = crd.spec.versions?.find((v) => v.name === version)?.schema?.openAPIV3Schema;
  if (!schema) return undefined;
  try {
    const s = newStructural(schema);
    if (!s || validateStructural(Path.of('openAPIV3Schema'), s).length > 0) return undefined;
  } catch {
    return undefined;
  }
  return schema;
}

function kindSchema(crd: CustomResourceDefinition, version: string, v2: boolean): SchemaObject {
  const gvk = [{ group: crd.spec.group!, version, kind: crd.spec.names!.kind! }];
  const schema = structuralSchema(crd, version);
  const preserve = crd.spec.preserveUnknownFields === true;
  if (!schema || (v2 && (schema['x-kubernetes-preserve-unknown-fields'] === true || preserve)))
    return { type: 'object', 'x-kubernetes-group-version-kind': gvk };
  const s = structuredClone(schema) as Schema;
  unfold(s);
  if (v2) toStructuralV2(s);
  const props = (isObject(s.properties) ? s.properties : (s.properties = {})) as Record<string, SchemaObject>;
  props.metadata = ref(meta('ObjectMeta'), objectMetaDoc);
  props.apiVersion = typeMetaProperty('apiVersion');
  props.kind = typeMetaProperty('kind');
  addEmbeddedProperties(s, v2);
  sortProperties(s);
  s['x-kubernetes-group-version-kind'] = gvk;
  return s as SchemaObject;
}

/** Properties by name, as Go marshals a map. */
function sortProperties(s: Schema): void {
  if (isObject(s.properties))
    s.properties = Object.fromEntries(Object.entries(s.properties).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  forChildren(s, sortProperties);
}

function listSchema(crd: CustomResourceDefinition, version: string): SchemaObject {
  const names = crd.spec.names!;
  return {
    description: `${names.listKind} is a list of ${names.kind}`,
    properties: {
      apiVersion: typeMetaProperty('apiVersion'),
      items: {
        description: `List of ${names.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`,
        items: { $ref: refPrefix + gvkToModelName(crd.spec.group!, version, names.kind!) },
        type: 'array',
      },
      kind: typeMetaProperty('kind'),
      metadata: ref(meta('ListMeta'), listMetaDoc),
    },
    required: ['items'],
    type: 'object',
    'x-kubernetes-group-version-kind': [{ group: crd.spec.group!, version, kind: names.listKind! }],
  };
}

/** The OpenAPI of one served version of a CRD: its kind and list kind, for v3 and for swagger 2.0. */
export function customResourceOpenAPI(crd: CustomResourceDefinition, version: string): ResourceOpenAPI {
  const g = crd.spec.group!;
  const names = crd.spec.names!;
  const name = gvkToModelName(g, version, names.kind!);
  const listName = gvkToModelName(g, version, names.listKind!);
  const list = listSchema(crd, version);
  return {
    name,
    listName,
    definitions: { [name]: kindSchema(crd, version, false), [listName]: list },
    v2Definitions: { [name]: kindSchema(crd, version, true), [listName]: list },
  };
}
