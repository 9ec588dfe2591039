// The errors of kube-apiserver's typed JSON decode of a built-in kind (sigs.k8s.io/json, Go's
// encoding/json: UnmarshalTypeError, base64.CorruptInputError), found by walking the body along
// the kind's OpenAPI schema: a number where a string belongs, a string in an int32 field, bad
// base64 in a []byte field. The first error in document order is reported, worded as Go does:
// `json: cannot unmarshal number into Go struct field ConfigMap.data of type string` (Struct is the
// innermost struct holding the field, Field the JSON path from the root). Fields whose Go type
// decodes itself (Time, IntOrString, Quantity, RawExtension, FieldsV1) and unknown fields are left
// to their own checks.

import { builtinDefinition, refName, type SchemaObject } from '../openapi/schemas.ts';
import type { KnownFields } from './decode.ts';

/** Definitions with their own UnmarshalJSON, or free-form: not walked. */
const selfDecoding = new Set([
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
  'io.k8s.apimachinery.pkg.api.resource.Quantity',
  'io.k8s.apimachinery.pkg.runtime.RawExtension',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray',
]);

/** What one schema node decodes into. */
type GoType =
  | { kind: 'any' }
  | { kind: 'struct'; name: string; schema: SchemaObject }
  | { kind: 'string' | 'bytes' | 'bool' | 'float64' }
  | { kind: 'int'; bits: 'int32' | 'int64' }
  | { kind: 'map' | 'slice'; elem: GoType };

const anyType: GoType = { kind: 'any' };
/** goTypeOf of each (deep-frozen, built-in) schema: the walk asks for the same ones on every request. */
const goTypes = new WeakMap<SchemaObject, GoType>();

function goTypeOf(s: SchemaObject | undefined, depth = 0): GoType {
  if (!s || depth > 64) return anyType;
  if (depth > 0) return computeGoType(s, depth);
  let t = goTypes.get(s);
  if (!t) goTypes.set(s, (t = computeGoType(s, 0)));
  return t;
}

function computeGoType(s: SchemaObject, depth: number): GoType {
  const ref = s.$ref ?? (s.allOf?.length === 1 ? s.allOf[0]!.$ref : undefined);
  if (ref !== undefined) {
    const name = refName(ref);
    if (selfDecoding.has(name)) return { kind: 'any' };
    const def = builtinDefinition(name);
    if (!def) return { kind: 'any' };
    if (def.properties) return { kind: 'struct', name, schema: def };
    return goTypeOf(def, depth + 1);
  }
  if (s['x-kubernetes-int-or-string'] || s['x-kubernetes-preserve-unknown-fields']) return { kind: 'any' };
  switch (s.type) {
    case 'string':
      return { kind: s.format === 'byte' ? 'bytes' : 'string' };
    case 'boolean':
      return { kind: 'bool' };
    case 'number':
      return { kind: 'float64' };
    case 'integer':
      return { kind: 'int', bits: s.format === 'int32' ? 'int32' : 'int64' };
    case 'array':
      return { kind: 'slice', elem: goTypeOf(s.items as SchemaObject | undefined, depth + 1) };
    case 'object':
      if (s.properties) return { kind: 'struct', name: '', schema: s };
      if (s.additionalProperties && typeof s.additionalProperties === 'object')
        return { kind: 'map', elem: goTypeOf(s.additionalProperties as SchemaObject, depth + 1) };
      return { kind: 'any' };
    default:
      return { kind: 'any' };
  }
}

/** reflect.Type.String(): `v1.ObjectMeta`, `map[string]string`, `[]v1.OwnerReference`, `[]uint8`. */
function goTypeName(t: GoType): string {
  switch (t.kind) {
    case 'struct': {
      const parts = t.name.split('.');
      return parts.length >= 2 ? `${parts[parts.length - 2]}.${parts[parts.length - 1]}` : 'struct';
    }
    case 'bytes':
      return '[]uint8';
    case 'int':
      return t.bits;
    case 'map':
      return `map[string]${goTypeName(t.elem)}`;
    case 'slice':
      return `[]${goTypeName(t.elem)}`;
    default:
      return t.kind;
  }
}

/** UnmarshalTypeError.Value: what the JSON held. */
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return 'object';
}

/** base64.StdEncoding.Decode's CorruptInputError offset, or -1 when `s` is valid (Go skips \r and \n). */
function corruptBase64At(s: string): number {
  const t = s.replace(/[\r\n]/g, '');
  const bad = t.search(/[^A-Za-z0-9+/=]/);
  const pad = t.indexOf('=');
  if (bad >= 0 && (pad < 0 || bad < pad)) return bad;
  if (pad >= 0) {
    // Padding only at the end, completing a 4-character quantum.
    if (!/^=+$/.test(t.slice(pad)) || t.length % 4 !== 0 || t.length - pad > 2) return pad;
    return -1;
  }
  // An unfinished quantum: the error points at its start.
  return t.length % 4 === 0 ? -1 : t.length - (t.length % 4);
}

interface Where {
  /** The innermost struct holding the field (its Go name, without the package). */
  struct: string;
  /** JSON keys from the root. */
  path: string[];
}

function typeError(v: unknown, t: GoType, at: Where, value = jsonKind(v)): string {
  return `json: cannot unmarshal ${value} into Go struct field ${at.struct}.${at.path.join('.')} of type ${goTypeName(t)}`;
}

function check(v: unknown, t: GoType, at: Where): string | undefined {
  if (v === null || v === undefined) return undefined;
  switch (t.kind) {
    case 'any':
      return undefined;
    case 'string':
      return typeof v === 'string' ? undefined : typeError(v, t, at);
    case 'bytes': {
      if (typeof v !== 'string') return typeError(v, t, at);
      const i = corruptBase64At(v);
      return i < 0 ? undefined : `illegal base64 data at input byte ${i}`;
    }
    case 'bool':
      return typeof v === 'boolean' ? undefined : typeError(v, t, at);
    case 'float64':
      return typeof v === 'number' ? undefined : typeError(v, t, at);
    case 'int': {
      if (typeof v !== 'number') return typeError(v, t, at);
      if (!Number.isInteger(v)) return typeError(v, t, at, `number ${v}`);
      const max = t.bits === 'int32' ? 2 ** 31 : 2 ** 63;
      return v >= -max && v < max ? undefined : typeError(v, t, at, `number ${v}`);
    }
    case 'slice':
      if (!Array.isArray(v)) return typeError(v, t, at);
      for (const item of v) {
        const e = check(item, t.elem, at);
        if (e) return e;
      }
      return undefined;
    case 'map':
      if (typeof v !== 'object' || Array.isArray(v)) return typeError(v, t, at);
      for (const item of Object.values(v)) {
        const e = check(item, t.elem, at);
        if (e) return e;
      }
      return undefined;
    case 'struct':
      if (typeof v !== 'object' || Array.isArray(v)) return at.path.length ? typeError(v, t, at) : undefined;
      return checkStruct(v as Record<string, unknown>, t, at.path);
  }
}

function checkStruct(obj: Record<string, unknown>, t: GoType & { kind: 'struct' }, path: string[]): string | undefined {
  const props = t.schema.properties ?? {};
  const struct = t.name ? t.name.slice(t.name.lastIndexOf('.') + 1) : (path[path.length - 1] ?? '');
  for (const key in obj) {
    if (!Object.hasOwn(obj, key) || !Object.hasOwn(props, key)) continue;
    const value = obj[key];
    // Scalars of the right type are the common case: no Where to build.
    if (value === null || value === undefined) continue;
    const type = goTypeOf(props[key] as SchemaObject);
    if (type.kind === 'any' || (type.kind === 'string' && typeof value === 'string')) continue;
    const e = check(value, type, { struct, path: [...path, key] });
    if (e) return e;
  }
  return undefined;
}

/**
 * The typed decode's first error for a body of the built-in definition `definitionName`, or
 * undefined (also for a definition this build does not carry).
 */
export function typedDecodeError(obj: Record<string, unknown>, definitionName: string): string | undefined {
  const def = builtinDefinition(definitionName);
  if (!def?.properties) return undefined;
  return checkStruct(obj, { kind: 'struct', name: definitionName, schema: def }, []);
}

/** Whether walking `t` reports every value of the wrong shape that `fields` describes (see below). */
function coversShapes(fields: KnownFields, t: GoType): boolean {
  for (const key in fields) {
    if (!Object.hasOwn(fields, key)) continue;
    const spec = fields[key]!;
    if (spec === true) continue;
    if (t.kind !== 'struct' || !Object.hasOwn(t.schema.properties ?? {}, key)) return false;
    const inner = goTypeOf(t.schema.properties![key] as SchemaObject);
    if (Array.isArray(spec)) {
      if (inner.kind !== 'slice') return false;
    } else if (inner.kind === 'map') {
      // A map is checked to be an object; its values against the map's element type, not spec's keys.
      if (!Object.values(spec).every((s) => s === true)) return false;
    } else if (inner.kind !== 'struct' || !coversShapes(spec, inner)) return false;
  }
  return true;
}

const covered = new WeakMap<KnownFields, Map<string, boolean>>();

/**
 * Whether typedDecodeError(obj, definitionName) already reports every error of the shape check
 * over `fields` (an object or array where `fields` wants one): each non-leaf field is, along the
 * definition, a struct or map (an object is required) or a slice (an array is required), so a body
 * the typed walk passes has the shapes `fields` asks for. Once per kind.
 */
export function typedDecodeCoversShapes(definitionName: string, fields: KnownFields): boolean {
  let byName = covered.get(fields);
  if (!byName) covered.set(fields, (byName = new Map()));
  let c = byName.get(definitionName);
  if (c === undefined) {
    const def = builtinDefinition(definitionName);
    c = !!def?.properties && coversShapes(fields, { kind: 'struct', name: definitionName, schema: def });
    byName.set(definitionName, c);
  }
  return c;
}
