// Structural schemas (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/{structural,convert,
// validation,complete}.go): the JSONSchemaProps of a CRD version split into its structural part
// (types, properties, items, additionalProperties, defaults, the x-kubernetes-* extensions) and
// its value validations, and the structurality rules with upstream's field errors.

import { forbidden, invalid, Path, required, type ErrorList } from '../../util/validation/field.ts';
import { appendAll } from '../../util/append.ts';

/** apiextensions.k8s.io/v1 JSONSchemaProps as JSON. */
export interface JSONSchemaProps {
  id?: string;
  $schema?: string;
  $ref?: string;
  description?: string;
  type?: string;
  format?: string;
  title?: string;
  default?: unknown;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  dependencies?: Record<string, unknown>;
  additionalItems?: JSONSchemaProps | boolean;
  definitions?: Record<string, JSONSchemaProps>;
  externalDocs?: { description?: string; url?: string };
  example?: unknown;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: unknown[];
}

/** The structural part of a schema; `schema` is the node it came from (its value validations). */
export interface Structural {
  type: string;
  nullable: boolean;
  /** Present when the node has a default (`hasDefault` distinguishes `default: null`). */
  default?: unknown;
  hasDefault: boolean;
  items?: Structural;
  properties?: Map<string, Structural>;
  /** additionalProperties: a schema, or `true`/`false` without one. */
  additionalProperties?: { structural?: Structural; bool: boolean };
  xPreserveUnknownFields: boolean;
  xEmbeddedResource: boolean;
  xIntOrString: boolean;
  xListType?: string;
  xListMapKeys?: string[];
  xMapType?: string;
  schema: JSONSchemaProps;
}

export class StructuralError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** NewStructural: fails on the fields CRD validation already rejects (id, $ref, patternProperties …). */
export function newStructural(s: JSONSchemaProps | undefined): Structural | undefined {
  if (!s) return undefined;
  validateUnsupportedFields(s);
  if (s['x-kubernetes-preserve-unknown-fields'] === false)
    throw new StructuralError("internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined");
  const out: Structural = {
    type: s.type ?? '',
    nullable: s.nullable === true,
    hasDefault: s.default !== undefined,
    xPreserveUnknownFields: s['x-kubernetes-preserve-unknown-fields'] === true,
    xEmbeddedResource: s['x-kubernetes-embedded-resource'] === true,
    xIntOrString: s['x-kubernetes-int-or-string'] === true,
    schema: s,
  };
  if (s.default !== undefined) out.default = s.default;
  if (s['x-kubernetes-list-type'] !== undefined) out.xListType = s['x-kubernetes-list-type'];
  if (s['x-kubernetes-list-map-keys'] !== undefined) out.xListMapKeys = s['x-kubernetes-list-map-keys'];
  if (s['x-kubernetes-map-type'] !== undefined) out.xMapType = s['x-kubernetes-map-type'];
  if (s.items !== undefined) {
    if (Array.isArray(s.items)) throw new StructuralError("OpenAPIV3Schema 'items' must be a schema, but is an array");
    out.items = newStructural(s.items);
  }
  if (s.properties && Object.keys(s.properties).length > 0) {
    out.properties = new Map();
    for (const [k, v] of Object.entries(s.properties)) out.properties.set(k, newStructural(v)!);
  }
  if (s.additionalProperties !== undefined) {
    if (isObject(s.additionalProperties))
      out.additionalProperties = { structural: newStructural(s.additionalProperties), bool: true };
    else out.additionalProperties = { bool: s.additionalProperties === true };
  }
  for (const n of [...(s.allOf ?? []), ...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.not ? [s.not] : [])])
    validateNested(n);
  return out;
}

function validateNested(s: JSONSchemaProps): void {
  validateUnsupportedFields(s);
  if (s.items !== undefined && Array.isArray(s.items))
    throw new StructuralError("OpenAPIV3Schema 'items' must be a schema, but is an array");
}

function validateUnsupportedFields(s: JSONSchemaProps): void {
  if (s.id) throw new StructuralError("OpenAPIV3Schema 'id' is not supported");
  if (s.$schema) throw new StructuralError("OpenAPIV3Schema 'schema' is not supported");
  if (s.$ref) throw new StructuralError("OpenAPIV3Schema '$ref' is not supported");
  if (s.patternProperties && Object.keys(s.patternProperties).length)
    throw new StructuralError("OpenAPIV3Schema 'patternProperties' is not supported");
  if (s.dependencies && Object.keys(s.dependencies).length)
    throw new StructuralError("OpenAPIV3Schema 'dependencies' is not supported");
  if (s.additionalItems !== undefined) throw new StructuralError("OpenAPIV3Schema 'additionalItems' is not supported");
  if (s.definitions && Object.keys(s.definitions).length)
    throw new StructuralError("OpenAPIV3Schema 'definitions' is not supported");
}

// --- ValidateStructural ---

type Level = 'root' | 'item' | 'field';

/** The keys of a value validation (structural.go ValueValidation + ValidationExtensions). */
const valueValidationKeys = [
  'format',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'x-kubernetes-validations',
] as const;

/**
 * ValidateStructural: every structural invariant (types everywhere, items for arrays, no
 * additionalProperties at the root, metadata restricted to name/generateName, value validations
 * that only restrict what the structural part declares), errors sorted by their text.
 */
export function validateStructural(fldPath: Path, s: Structural): ErrorList {
  const errs = [...structuralInvariants(s, 'root', fldPath), ...completeness(s.schema, s, fldPath, fldPath)];
  return errs.sort((a, b) => (a.toString() < b.toString() ? -1 : a.toString() > b.toString() ? 1 : 0));
}

function isIntOrStringAnyOf(anyOf: JSONSchemaProps[] | undefined): boolean {
  if (!anyOf || anyOf.length !== 2) return false;
  const only = (n: JSONSchemaProps, t: string) => Object.keys(n).length === 1 && n.type === t;
  return only(anyOf[0]!, 'integer') && only(anyOf[1]!, 'string');
}

function structuralInvariants(s: Structural | undefined, lvl: Level, p: Path): ErrorList {
  if (!s) return [];
  const errs: ErrorList = [];
  if (s.type === 'array' && !s.items) errs.push(required(p.child('items'), 'must be specified'));
  appendAll(errs, structuralInvariants(s.items, 'item', p.child('items')));
  for (const [k, v] of s.properties ?? [])
    appendAll(errs, structuralInvariants(v, 'field', p.child('properties').key(k)));
  if (s.additionalProperties) {
    if (lvl === 'root') errs.push(forbidden(p.child('additionalProperties'), 'must not be used at the root'));
    if (s.additionalProperties.structural)
      appendAll(
        errs,
        structuralInvariants(s.additionalProperties.structural, 'field', p.child('additionalProperties')),
      );
  }
  if (s.xIntOrString && s.xPreserveUnknownFields)
    errs.push(
      invalid(
        p.child('x-kubernetes-preserve-unknown-fields'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  if (s.xIntOrString && s.xEmbeddedResource)
    errs.push(
      invalid(p.child('x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'),
    );
  const skipAnyOf = isIntOrStringAnyOf(s.schema.anyOf);
  const skipFirstAllOfAnyOf = (s.schema.allOf?.length ?? 0) >= 1 && isIntOrStringAnyOf(s.schema.allOf![0]!.anyOf);
  appendAll(errs, valueValidation(s.schema, skipAnyOf, skipFirstAllOfAnyOf, p));

  const checkMetadata = lvl === 'root' || s.xEmbeddedResource;
  if (s.xEmbeddedResource && s.type !== 'object') {
    if (!s.type) errs.push(required(p.child('type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(invalid(p.child('type'), s.type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (!s.type && !s.xIntOrString && !s.xPreserveUnknownFields) {
    const detail = {
      root: 'must not be empty at the root',
      item: 'must not be empty for specified array items',
      field: 'must not be empty for specified object fields',
    }[lvl];
    errs.push(required(p.child('type'), detail));
  }
  if (s.xEmbeddedResource && s.additionalProperties)
    errs.push(forbidden(p.child('additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  if (lvl === 'root' && s.type && s.type !== 'object')
    errs.push(invalid(p.child('type'), s.type, 'must be object at the root'));

  const kind = s.properties?.get('kind');
  if (kind && checkMetadata && kind.type !== 'string')
    errs.push(invalid(p.child('properties').key('kind').child('type'), kind.type, 'must be string'));
  const apiVersion = s.properties?.get('apiVersion');
  if (apiVersion && checkMetadata && apiVersion.type !== 'string')
    errs.push(invalid(p.child('properties').key('apiVersion').child('type'), apiVersion.type, 'must be string'));
  const metadata = s.properties?.get('metadata');
  if (metadata)
    appendAll(errs, metadataInvariants(metadata, checkMetadata, lvl, p.child('properties').key('metadata')));
  if (s.xEmbeddedResource && !s.xPreserveUnknownFields && !s.properties?.size)
    errs.push(
      required(
        p.child('properties'),
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  return errs;
}

function metadataInvariants(s: Structural, checkMetadata: boolean, lvl: Level, p: Path): ErrorList {
  const errs: ErrorList = [];
  if (checkMetadata && s.type !== 'object') errs.push(invalid(p.child('type'), s.type, 'must be object'));
  if (lvl === 'root') {
    // Only name and generateName may be restricted; type and default are checked elsewhere.
    const props = s.properties;
    const onlyNames = !props || [...props.keys()].every((k) => k === 'name' || k === 'generateName');
    const raw = s.schema;
    const extra =
      !onlyNames ||
      s.items !== undefined ||
      s.additionalProperties !== undefined ||
      s.nullable ||
      !!raw.description ||
      !!raw.title ||
      raw.example !== undefined ||
      raw.externalDocs !== undefined ||
      s.xPreserveUnknownFields ||
      s.xEmbeddedResource ||
      s.xIntOrString ||
      s.xListType !== undefined ||
      s.xListMapKeys !== undefined ||
      s.xMapType !== undefined ||
      valueValidationKeys.some((k) => raw[k] !== undefined);
    if (extra)
      errs.push(
        forbidden(
          p,
          'must not specify anything other than name and generateName, but metadata is implicitly specified',
        ),
      );
  }
  return errs;
}

function valueValidation(v: JSONSchemaProps, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, p: Path): ErrorList {
  const errs: ErrorList = [];
  if (!skipAnyOf) (v.anyOf ?? []).forEach((n, i) => appendAll(errs, nested(n, false, p.child('anyOf').index(i))));
  (v.allOf ?? []).forEach((n, i) =>
    appendAll(errs, nested(n, skipFirstAllOfAnyOf && i === 0, p.child('allOf').index(i), true)),
  );
  (v.oneOf ?? []).forEach((n, i) => appendAll(errs, nested(n, false, p.child('oneOf').index(i))));
  if (v.not) appendAll(errs, nested(v.not, false, p.child('not')));
  if (v.pattern) {
    const err = compilePatternError(v.pattern);
    if (err) errs.push(invalid(p.child('pattern'), v.pattern, `must be a valid regular expression, but isn't: ${err}`));
  }
  return errs;
}

function compilePatternError(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** validateNestedValueValidation: what a logic junctor (allOf, anyOf, oneOf, not) may not say. */
function nested(v: JSONSchemaProps, skipAnyOf: boolean, p: Path, allowXValidations = false): ErrorList {
  const errs = valueValidation(v, skipAnyOf, false, p);
  if (isObject(v.items)) appendAll(errs, nested(v.items, false, p.child('items')));
  for (const [k, f] of Object.entries(v.properties ?? {}))
    appendAll(errs, nested(f, false, p.child('properties').key(k)));
  if (v.type) errs.push(forbidden(p.child('type'), 'must be empty to be structural'));
  if (v.additionalProperties !== undefined && v.additionalProperties !== false)
    errs.push(forbidden(p.child('additionalProperties'), 'must be undefined to be structural'));
  if (v.default !== undefined) errs.push(forbidden(p.child('default'), 'must be undefined to be structural'));
  if (v.title) errs.push(forbidden(p.child('title'), 'must be empty to be structural'));
  if (v.description) errs.push(forbidden(p.child('description'), 'must be empty to be structural'));
  if (v.nullable) errs.push(forbidden(p.child('nullable'), 'must be false to be structural'));
  if (v['x-kubernetes-preserve-unknown-fields'])
    errs.push(forbidden(p.child('x-kubernetes-preserve-unknown-fields'), 'must be false to be structural'));
  if (v['x-kubernetes-embedded-resource'])
    errs.push(forbidden(p.child('x-kubernetes-embedded-resource'), 'must be false to be structural'));
  if (v['x-kubernetes-int-or-string'])
    errs.push(forbidden(p.child('x-kubernetes-int-or-string'), 'must be false to be structural'));
  if (v['x-kubernetes-list-map-keys']?.length)
    errs.push(forbidden(p.child('x-kubernetes-list-map-keys'), 'must be empty to be structural'));
  if (v['x-kubernetes-list-type'] !== undefined)
    errs.push(forbidden(p.child('x-kubernetes-list-type'), 'must be undefined to be structural'));
  if (v['x-kubernetes-map-type'] !== undefined)
    errs.push(forbidden(p.child('x-kubernetes-map-type'), 'must be undefined to be structural'));
  if (v['x-kubernetes-validations']?.length && !allowXValidations)
    errs.push(forbidden(p.child('x-kubernetes-validations'), 'must be empty to be structural'));
  if (v.properties && Object.hasOwn(v.properties, 'metadata'))
    errs.push(forbidden(p.child('properties').key('metadata'), 'must not be specified in a nested context'));
  return errs;
}

// --- completeness (complete.go) ---

function completeness(v: JSONSchemaProps, s: Structural | undefined, sPath: Path, vPath: Path): ErrorList {
  if (!s) return [required(sPath, `because it is defined in ${vPath}`)];
  const errs: ErrorList = [];
  if (v.not) appendAll(errs, nestedCompleteness(v.not, s, sPath, vPath.child('not')));
  (v.allOf ?? []).forEach((n, i) => appendAll(errs, nestedCompleteness(n, s, sPath, vPath.child('allOf').index(i))));
  (v.anyOf ?? []).forEach((n, i) => appendAll(errs, nestedCompleteness(n, s, sPath, vPath.child('anyOf').index(i))));
  (v.oneOf ?? []).forEach((n, i) => appendAll(errs, nestedCompleteness(n, s, sPath, vPath.child('oneOf').index(i))));
  return errs;
}

function nestedCompleteness(v: JSONSchemaProps, s: Structural | undefined, sPath: Path, vPath: Path): ErrorList {
  if (!s) return [required(sPath, `because it is defined in ${vPath}`)];
  const errs = completeness(v, s, sPath, vPath);
  if (isObject(v.items))
    appendAll(errs, nestedCompleteness(v.items, s.items, sPath.child('items'), vPath.child('items')));
  for (const [k, f] of Object.entries(v.properties ?? {})) {
    const sf = s.properties?.get(k);
    if (!sf)
      errs.push(
        required(sPath.child('properties').key(k), `because it is defined in ${vPath.child('properties').key(k)}`),
      );
    else appendAll(errs, nestedCompleteness(f, sf, sPath.child('properties').key(k), vPath.child('properties').key(k)));
  }
  return errs;
}
