// Validation of a custom resource against its CRD schema: the checks of
// k8s.io/kube-openapi/pkg/validation/validate (type, allOf/anyOf/oneOf/not, string, format,
// number, slice, enum, object, in that order per node) with its messages, mapped to field errors
// as k8s.io/apiextensions-apiserver/pkg/apiserver/validation/validation.go
// kubeOpenAPIResultToFieldErrors does; plus listtype/validation.go (x-kubernetes-list-type set
// and map uniqueness). An interpreter over the schema: no code generation.

import { goQuote } from '../../util/go.ts';
import {
  duplicate,
  type FieldError,
  invalid,
  notSupported,
  Path,
  required,
  tooLong,
  tooMany,
  typeInvalid,
  type ErrorList,
} from '../../util/validation/field.ts';
import { isKnownStringFormat, supportedFormat, validatesFormat } from './formats.ts';
import type { JSONSchemaProps, Structural } from './structural.ts';
import { appendAll } from '../../util/append.ts';

type Code = 'required' | 'enum' | 'tooLong' | 'maxItems' | 'tooManyProperties' | 'invalidType' | 'other';

/** A kube-openapi validation error (errors.Validation), or a plain error (`value` absent). */
interface OpenAPIError {
  validation: boolean;
  code: Code;
  name: string;
  value?: unknown;
  valid?: number;
  values?: unknown[];
  message: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go's %v of a float64 (shortest form; exponent below 1e-4 and from 1e21). */
export function goFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e21)) {
    const [m, e] = n.toExponential().split('e');
    const exp = Number(e);
    return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(n);
}

/** The JSON type Go's decoder gives a value: integers and floats differ (int64 vs float64). */
function schemaType(v: unknown): string {
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

const pathIn = (name: string, tail: string) => `${name} in body ${tail}`;

/** What one node checks, precomputed once per schema node (the types and the stripped format). */
interface NodeInfo {
  types: string[];
  format: string;
  pattern?: RegExp | string;
}

const nodeInfos = new WeakMap<JSONSchemaProps, NodeInfo>();

function info(s: JSONSchemaProps): NodeInfo {
  let i = nodeInfos.get(s);
  if (!i) {
    const types = s['x-kubernetes-int-or-string'] ? ['integer', 'string'] : s.type ? [s.type] : [];
    const i2: NodeInfo = { types, format: supportedFormat(types, s.format) };
    if (s.pattern) {
      try {
        i2.pattern = new RegExp(s.pattern, 'u');
      } catch (err) {
        i2.pattern = err instanceof Error ? err.message : String(err);
      }
    }
    nodeInfos.set(s, (i = i2));
  }
  return i;
}

function invalidType(name: string, typeName: string, value: unknown): OpenAPIError {
  const message =
    typeof value === 'string'
      ? pathIn(name, `must be of type ${typeName}: ${goQuote(value)}`)
      : pathIn(name, `must be of type ${typeName}`);
  return { validation: true, code: 'invalidType', name, value, message };
}

/** SchemaValidator.Validate for one node. */
function validateNode(s: JSONSchemaProps, data: unknown, path: string, out: OpenAPIError[]): void {
  const ni = info(s);
  if (data === null || data === undefined) {
    if (ni.types.length > 0 && !ni.types.includes('null') && !s.nullable)
      out.push(invalidType(path, ni.types.join(','), 'null'));
    enumCheck(s, null, path, out);
    return;
  }
  typeCheck(s, ni, data, path, out);
  schemaProps(s, data, path, out);
  if (typeof data === 'string') {
    stringCheck(s, ni, data, path, out);
    if (ni.format && isKnownStringFormat(ni.format) && !validatesFormat(ni.format, data))
      out.push(invalidType(path, ni.format, data));
  }
  if (typeof data === 'number') numberCheck(s, ni, data, path, out);
  if (Array.isArray(data)) sliceCheck(s, data, path, out);
  enumCheck(s, data, path, out);
  if (isObject(data)) objectCheck(s, data, path, out);
}

function typeCheck(s: JSONSchemaProps, ni: NodeInfo, data: unknown, path: string, out: OpenAPIError[]): void {
  if (ni.types.length === 0 && !ni.format) return;
  const schType = schemaType(data);
  const has = (t: string) => ni.types.includes(t);
  const isIntFloat = schType === 'integer' && has('number');
  const isStringOrSlice = typeof data === 'string' || Array.isArray(data);
  const dataFormat = schType === 'integer' ? 'int64' : schType === 'number' ? 'float64' : '';
  if (!isStringOrSlice && ni.format && !(has(schType) || dataFormat === ni.format || isIntFloat)) {
    out.push(invalidType(path, ni.format, dataFormat));
    return;
  }
  if (!(has('number') || has('integer')) && ni.format && isStringOrSlice) return;
  if (!(has(schType) || isIntFloat)) out.push(invalidType(path, ni.types.join(','), schType));
}

function plain(message: string): OpenAPIError {
  return { validation: false, code: 'other', name: '', message };
}

function nodeErrors(s: JSONSchemaProps, data: unknown, path: string): OpenAPIError[] {
  const out: OpenAPIError[] = [];
  validateNode(s, data, path, out);
  return out;
}

function schemaProps(s: JSONSchemaProps, data: unknown, path: string, out: OpenAPIError[]): void {
  if (s.anyOf?.length) {
    let first: OpenAPIError[] | undefined;
    let ok = false;
    for (const sub of s.anyOf) {
      const r = nodeErrors(sub, data, path);
      if (r.length === 0) {
        ok = true;
        break;
      }
      first ??= r;
    }
    if (!ok) {
      out.push(plain(`${goQuote(path)} must validate at least one schema (anyOf)`));
      appendAll(out, first!);
    }
  }
  if (s.oneOf?.length) {
    let valid = 0;
    let first: OpenAPIError[] | undefined;
    for (const sub of s.oneOf) {
      const r = nodeErrors(sub, data, path);
      if (r.length === 0) valid++;
      else if (valid === 0) first ??= r;
    }
    if (valid !== 1) {
      const more = valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`;
      out.push(plain(`${goQuote(path)} must validate one and only one schema (oneOf). ${more}`));
      if (valid === 0 && first) appendAll(out, first);
    }
  }
  if (s.allOf?.length) {
    let valid = 0;
    for (const sub of s.allOf) {
      const r = nodeErrors(sub, data, path);
      if (r.length === 0) valid++;
      appendAll(out, r);
    }
    if (valid !== s.allOf.length)
      out.push(plain(`${goQuote(path)} must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}`));
  }
  if (s.not && nodeErrors(s.not, data, path).length === 0)
    out.push(plain(`${goQuote(path)} must not validate the schema (not)`));
}

function stringCheck(s: JSONSchemaProps, ni: NodeInfo, data: string, path: string, out: OpenAPIError[]): void {
  const runes = [...data].length;
  if (s.maxLength !== undefined && runes > s.maxLength) {
    out.push({
      validation: true,
      code: 'tooLong',
      name: path,
      value: data,
      valid: s.maxLength,
      message: pathIn(path, `should be at most ${s.maxLength} chars long`),
    });
    return;
  }
  if (s.minLength !== undefined && runes < s.minLength) {
    out.push({
      validation: true,
      code: 'other',
      name: path,
      value: data,
      message: pathIn(path, `should be at least ${s.minLength} chars long`),
    });
    return;
  }
  if (s.pattern) {
    const re = ni.pattern!;
    if (typeof re === 'string')
      out.push({
        validation: true,
        code: 'other',
        name: path,
        value: data,
        message: pathIn(path, `should match '${s.pattern}, but pattern is invalid: ${re}'`),
      });
    else if (!re.test(data))
      out.push({
        validation: true,
        code: 'other',
        name: path,
        value: data,
        message: pathIn(path, `should match '${s.pattern}'`),
      });
  }
}

const int32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };
const int64 = { min: -(2 ** 63), max: 2 ** 63 - 1 };

function numberCheck(s: JSONSchemaProps, ni: NodeInfo, data: number, path: string, out: OpenAPIError[]): void {
  const isInt = Number.isInteger(data);
  const type = ni.types.length === 1 ? ni.types[0] : '';
  const format = type === 'integer' || type === 'number' ? ni.format : '';
  // IsValueValidAgainstRange: the value must fit the declared integer format.
  if (type === 'integer') {
    const r = format === 'int32' ? int32 : int64;
    if (!Number.isInteger(data) || data < r.min || data > r.max)
      out.push(
        plain(
          format
            ? `Checked value must be of type integer with format ${format} in ${path}`
            : `Checked value must be of type integer (default format) in ${path}`,
        ),
      );
  }
  const bound = (v: number) => (isInt ? String(Math.trunc(v)) : goFloat(v));
  if (s.multipleOf !== undefined) {
    const f = s.multipleOf;
    let bad: boolean;
    if (f <= 0) {
      out.push(plain(`factor MultipleOf declared for ${path} must be positive: ${goFloat(f)}`));
      bad = false;
    } else if (isInt && Number.isInteger(f)) bad = data % f !== 0;
    else {
      const mult = f < 1 ? (1 / f) * data : data / f;
      bad = !Number.isInteger(mult);
    }
    if (bad)
      out.push({
        validation: true,
        code: 'other',
        name: path,
        value: data,
        message: pathIn(path, `should be a multiple of ${isInt && Number.isInteger(f) ? String(f) : goFloat(f)}`),
      });
  }
  if (s.minimum !== undefined) {
    const min = isInt ? Math.trunc(s.minimum) : s.minimum;
    if (s.exclusiveMinimum ? data <= min : data < min)
      out.push({
        validation: true,
        code: 'other',
        name: path,
        value: data,
        message: pathIn(path, `should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${bound(s.minimum)}`),
      });
  }
  if (s.maximum !== undefined) {
    const max = isInt ? Math.trunc(s.maximum) : s.maximum;
    if (s.exclusiveMaximum ? data >= max : data > max)
      out.push({
        validation: true,
        code: 'other',
        name: path,
        value: data,
        message: pathIn(path, `should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${bound(s.maximum)}`),
      });
  }
}

/** Canonical JSON (sorted keys) for equality of compound values. */
export function canonicalJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJSON).join(',')}]`;
  if (isObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJSON(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v ?? null);
}

function sliceCheck(s: JSONSchemaProps, data: unknown[], path: string, out: OpenAPIError[]): void {
  if (isObject(s.items)) {
    const items = s.items;
    data.forEach((v, i) => validateNode(items, v, `${path}[${i}]`, out));
  }
  if (s.minItems !== undefined && data.length < s.minItems)
    out.push({
      validation: true,
      code: 'other',
      name: path,
      value: data.length,
      message: pathIn(path, `should have at least ${s.minItems} items`),
    });
  if (s.maxItems !== undefined && data.length > s.maxItems)
    out.push({
      validation: true,
      code: 'maxItems',
      name: path,
      value: data.length,
      valid: s.maxItems,
      message: pathIn(path, `should have at most ${s.maxItems} items`),
    });
  if (s.uniqueItems) {
    const seen = new Set<string>();
    for (const v of data) {
      const k = canonicalJSON(v);
      if (seen.has(k)) {
        out.push({
          validation: true,
          code: 'other',
          name: path,
          message: pathIn(path, "shouldn't contain duplicates"),
        });
        break;
      }
      seen.add(k);
    }
  }
}

function enumCheck(s: JSONSchemaProps, data: unknown, path: string, out: OpenAPIError[]): void {
  if (!s.enum?.length) return;
  const k = canonicalJSON(data);
  if (data !== null && s.enum.some((e) => canonicalJSON(e) === k)) return;
  out.push({
    validation: true,
    code: 'enum',
    name: path,
    value: data,
    values: s.enum,
    message: pathIn(path, 'should be one of'),
  });
}

function objectCheck(s: JSONSchemaProps, data: Record<string, unknown>, path: string, out: OpenAPIError[]): void {
  const keys = Object.keys(data);
  if (s.minProperties !== undefined && keys.length < s.minProperties)
    out.push({
      validation: true,
      code: 'other',
      name: path,
      value: keys.length,
      message: pathIn(path, `should have at least ${s.minProperties} properties`),
    });
  if (s.maxProperties !== undefined && keys.length > s.maxProperties)
    out.push({
      validation: true,
      code: 'tooManyProperties',
      name: path,
      value: keys.length,
      valid: s.maxProperties,
      message: pathIn(path, `should have at most ${s.maxProperties} properties`),
    });
  const props = s.properties ?? {};
  if (s.additionalProperties === false) {
    for (const k of keys.sort())
      if (!Object.hasOwn(props, k))
        out.push({
          validation: true,
          code: 'other',
          name: path,
          value: k,
          message: `${path}.${k} in body is a forbidden property`,
        });
  } else if (isObject(s.additionalProperties)) {
    const ap = s.additionalProperties;
    for (const k of keys.sort()) if (!Object.hasOwn(props, k)) validateNode(ap, data[k], `${path}.${k}`, out);
  }
  for (const name of Object.keys(props).sort()) {
    if (Object.hasOwn(data, name)) validateNode(props[name]!, data[name], path ? `${path}.${name}` : name, out);
  }
  for (const k of s.required ?? []) {
    if (!Object.hasOwn(data, k))
      out.push({
        validation: true,
        code: 'required',
        name: `${path}.${k}`,
        message: pathIn(`${path}.${k}`, 'is required'),
      });
  }
}

/** The field path of an error (kubeOpenAPIResultToFieldErrors): the root path, plus its name. */
function errorPath(root: Path | undefined, name: string): Path {
  if (name.length > 0 && name !== '.') {
    const child = name.startsWith('.') ? name.slice(1) : name;
    return root ? root.child(child) : Path.of(child);
  }
  // A nil *field.Path prints as <nil>.
  return root ?? Path.of('<nil>');
}

function toFieldError(root: Path | undefined, e: OpenAPIError): FieldError {
  if (!e.validation) return invalid(root ?? Path.of('<nil>'), '', e.message);
  const p = errorPath(root, e.name);
  switch (e.code) {
    case 'required':
      return required(p);
    case 'enum':
      return notSupported(
        p,
        e.value,
        e.values!.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
      );
    case 'tooLong':
      return tooLong(p, e.valid ?? -1);
    case 'maxItems':
    case 'tooManyProperties':
      return tooMany(p, (e.value as number | undefined) ?? -1, e.valid ?? -1);
    case 'invalidType':
      return typeInvalid(p, e.value ?? '', e.message);
    default:
      return invalid(p, e.value ?? '', e.message);
  }
}

/**
 * ValidateCustomResource: the field errors of `data` against `schema` (the CRD version's
 * openAPIV3Schema), rooted at `fldPath` (undefined for the object; `status` for /status).
 */
export function validateCustomResource(fldPath: Path | undefined, data: unknown, schema: JSONSchemaProps): ErrorList {
  const out: OpenAPIError[] = [];
  validateNode(schema, data, '', out);
  return out.map((e) => toFieldError(fldPath, e));
}

// --- listtype/validation.go ---

/** ValidateListSetsAndMaps: duplicates in `x-kubernetes-list-type: set` and `map` lists. */
export function validateListSetsAndMaps(fldPath: Path | undefined, s: Structural | undefined, obj: unknown): ErrorList {
  if (!s || !isObject(obj)) return [];
  const errs: ErrorList = [];
  const child = (k: string) => (fldPath ? fldPath.child(k) : Path.of(k));
  const key = (k: string) => (fldPath ? fldPath.key(k) : Path.of('').key(k));
  if (s.additionalProperties?.structural)
    for (const [k, v] of Object.entries(obj))
      appendAll(errs, listSetsAndMaps(key(k), s.additionalProperties.structural, v));
  if (s.properties)
    for (const [k, v] of Object.entries(obj)) {
      const sub = s.properties.get(k);
      if (sub) appendAll(errs, listSetsAndMaps(child(k), sub, v));
    }
  return errs;
}

function listSetsAndMaps(p: Path, s: Structural, obj: unknown): ErrorList {
  if (Array.isArray(obj)) return listSetsAndMapsArray(p, s, obj);
  if (isObject(obj)) return validateListSetsAndMaps(p, s, obj);
  return [];
}

function listSetsAndMapsArray(p: Path, s: Structural, obj: unknown[]): ErrorList {
  const errs: ErrorList = [];
  if (s.xListType === 'set') {
    for (const i of nonUnique(obj)) errs.push(duplicate(p.index(i), obj[i]));
  } else if (s.xListType === 'map') {
    appendAll(errs, listMap(p, s, obj));
  }
  if (s.items) obj.forEach((v, i) => appendAll(errs, listSetsAndMaps(p.index(i), s.items!, v)));
  return errs;
}

/** The index of each value's second appearance. */
function nonUnique(obj: unknown[]): number[] {
  if (obj.length <= 1) return [];
  const seen = new Map<string, number>();
  const out: number[] = [];
  obj.forEach((x, i) => {
    const k = x === unspecified ? '\u0000unspecified' : canonicalJSON(x);
    const n = seen.get(k) ?? 0;
    if (n === 1) out.push(i);
    seen.set(k, n + 1);
  });
  return out;
}

const unspecified = Symbol('unspecifiedKeyValue');

function listMap(p: Path, s: Structural, obj: unknown[]): ErrorList {
  for (let i = 0; i < obj.length; i++) {
    const x = obj[i];
    if (x !== null && !isObject(x)) return [invalid(p.index(i), x, 'must be an object for an array of list-type map')];
  }
  if (obj.length <= 1) return [];
  const mapKeys = s.xListMapKeys ?? [];
  if (mapKeys.length === 1) {
    const kf = mapKeys[0]!;
    const keys = obj.map((x) => (isObject(x) && Object.hasOwn(x, kf) ? x[kf] : unspecified));
    return nonUnique(keys).map((i) => duplicate(p.index(i), keys[i] === unspecified ? {} : { [kf]: keys[i] }));
  }
  const keys = obj.map((x) => {
    const key: Record<string, unknown> = {};
    if (isObject(x)) for (const kf of mapKeys) if (Object.hasOwn(x, kf)) key[kf] = x[kf];
    return key;
  });
  return nonUnique(keys).map((i) => duplicate(p.index(i), keys[i]));
}
