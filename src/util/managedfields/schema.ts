// A kind's OpenAPI v3 schema seen as the types strategic merge patch and server-side apply walk:
// plain OpenAPI v3 schema objects whose `$ref` (or `allOf: [{$ref}]`, as kube-openapi writes
// fields with descriptions) names an entry of `components.schemas`. The conversion to
// structured-merge-diff atoms follows k8s.io/kube-openapi/pkg/schemaconv (list types from
// `x-kubernetes-list-type`, else from the patch strategy; maps granular unless
// `x-kubernetes-map-type: atomic`); anything without a schema is "deduced" as upstream's untyped
// schema does (maps granular, lists atomic).

/** An OpenAPI v3 schema object, with the Kubernetes extensions these walkers read. */
export interface OpenAPISchema {
  type?: string | string[];
  properties?: Record<string, OpenAPISchema>;
  additionalProperties?: OpenAPISchema | boolean;
  items?: OpenAPISchema;
  $ref?: string;
  allOf?: OpenAPISchema[];
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  [extension: string]: unknown;
}

/**
 * One kind's schema: the root (the kind's definition, or a CRD version's structural schema) and
 * the named definitions its `$ref`s point to (`#/components/schemas/<name>`).
 */
export interface TypeSchema {
  root: OpenAPISchema;
  definitions?: Record<string, OpenAPISchema>;
}

/** A position in a schema: the schema object (undefined = no schema, deduced) and where refs resolve. */
export interface SchemaNode {
  schema: OpenAPISchema | undefined;
  /** The Go type name of a named definition (`ConfigMap`), for strategic merge patch's messages. */
  name?: string;
  definitions?: Record<string, OpenAPISchema>;
}

export type Atom =
  | { kind: 'scalar' }
  | { kind: 'deduced' }
  | {
      kind: 'map';
      atomic: boolean;
      /** Declared fields (a struct); absent for a plain map. */
      fields?: Record<string, OpenAPISchema>;
      /** The element type of a map (additionalProperties), or of undeclared struct fields. */
      element?: OpenAPISchema;
      elementDeduced: boolean;
    }
  | { kind: 'list'; relationship: 'atomic' | 'set' | 'map'; keys: string[]; element?: OpenAPISchema };

const refPrefix = '#/components/schemas/';

export function rootNode(t: TypeSchema | undefined): SchemaNode {
  if (!t) return { schema: undefined };
  return resolveNode({ schema: t.root, definitions: t.definitions });
}

/** Follows `allOf[0]` and `$ref` to the schema that holds the type. */
export function resolveNode(n: SchemaNode): SchemaNode {
  let s = n.schema;
  let name = n.name;
  for (let i = 0; s && i < 32; i++) {
    if (!s.$ref && s.allOf?.length === 1 && !s.properties && !s.items && !s.type) {
      s = s.allOf[0];
      continue;
    }
    if (s.$ref) {
      const key = s.$ref.startsWith(refPrefix) ? s.$ref.slice(refPrefix.length) : s.$ref;
      const target = n.definitions?.[key];
      if (!target) return { schema: undefined, definitions: n.definitions };
      name = key.slice(key.lastIndexOf('.') + 1);
      s = target;
      continue;
    }
    break;
  }
  return { schema: s, name, definitions: n.definitions };
}

/** Resolved child nodes by definitions and schema: the walkers ask for the same ones on every object. */
const children = new WeakMap<object, WeakMap<OpenAPISchema, SchemaNode>>();
const noDefinitions = {};
const unschemed = new WeakMap<object, SchemaNode>();

export function child(n: SchemaNode, schema: OpenAPISchema | undefined): SchemaNode {
  const defsKey = n.definitions ?? noDefinitions;
  if (!schema) {
    let u = unschemed.get(defsKey);
    if (!u) unschemed.set(defsKey, (u = resolveNode({ schema, definitions: n.definitions })));
    return u;
  }
  let byDefs = children.get(defsKey);
  if (!byDefs) children.set(defsKey, (byDefs = new WeakMap()));
  let c = byDefs.get(schema);
  if (!c) byDefs.set(schema, (c = resolveNode({ schema, definitions: n.definitions })));
  return c;
}

const atoms = new WeakMap<OpenAPISchema, Atom>();
const deduced: Atom = { kind: 'deduced' };

/** The structured-merge-diff atom of a (resolved) schema node. */
export function atomOf(n: SchemaNode): Atom {
  const s = n.schema;
  if (!s) return deduced;
  let a = atoms.get(s);
  if (!a) {
    a = computeAtom(s);
    atoms.set(s, a);
  }
  return a;
}

function typeOf(s: OpenAPISchema): string | undefined {
  return Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
}

function computeAtom(s: OpenAPISchema): Atom {
  if (s['x-kubernetes-int-or-string']) return { kind: 'scalar' };
  const t = typeOf(s);
  if (t === 'array' || (t === undefined && s.items)) {
    let relationship: 'atomic' | 'set' | 'map' = 'atomic';
    let keys: string[] = [];
    const lt = s['x-kubernetes-list-type'];
    if (lt) {
      relationship = lt;
      if (lt === 'map') keys = [...(s['x-kubernetes-list-map-keys'] ?? [])];
    } else if ((s['x-kubernetes-patch-strategy'] ?? '').split(',').includes('merge')) {
      const key = s['x-kubernetes-patch-merge-key'];
      relationship = key ? 'map' : 'set';
      if (key) keys = [key];
    }
    return { kind: 'list', relationship, keys, element: s.items };
  }
  if (t === 'object' || (t === undefined && (s.properties || s.additionalProperties !== undefined))) {
    const atomic = s['x-kubernetes-map-type'] === 'atomic';
    const ap = s.additionalProperties;
    const element = typeof ap === 'object' ? ap : undefined;
    if (!s.properties && !element && (ap === true || s['x-kubernetes-preserve-unknown-fields'] || ap === undefined))
      return atomic ? { kind: 'map', atomic, elementDeduced: true } : deduced;
    return { kind: 'map', atomic, fields: s.properties, element, elementDeduced: !element };
  }
  if (t === 'string' || t === 'integer' || t === 'number' || t === 'boolean') return { kind: 'scalar' };
  if (s['x-kubernetes-preserve-unknown-fields']) return deduced;
  return deduced;
}

/** The schema of a map's key (a declared field or the element type). */
export function fieldSchema(a: Atom, key: string): OpenAPISchema | undefined {
  if (a.kind !== 'map') return undefined;
  if (a.fields && Object.hasOwn(a.fields, key)) return a.fields[key];
  return a.element;
}

export function isDeclaredField(a: Atom, key: string): boolean {
  return a.kind === 'map' && !!a.fields && Object.hasOwn(a.fields, key);
}
