// Validation of a CustomResourceDefinition (k8s.io/apiextensions-apiserver/pkg/apis/
// apiextensions/validation/validation.go): group, names, scope, versions (unique, DNS-1035, exactly
// one storage version), schemas (the OpenAPI rules, structural schema, valid and pruned defaults),
// subresources, printer columns and conversion, with upstream's field paths and messages.
//
// Upstream validates the internal type, into which v1 is converted by promoting per-version
// schemas, subresources and columns that are identical in every version to spec.validation,
// spec.subresources and spec.additionalPrinterColumns; the error paths follow that.

import { forbidden, invalid, notSupported, Path, required, type ErrorList } from '../util/validation/field.ts';
import { validateDNS1035Label, validateDNS1123Subdomain } from '../util/validation/validation.ts';
import { prune } from './schema/pruning.ts';
import {
  newStructural,
  StructuralError,
  validateStructural,
  type JSONSchemaProps,
  type Structural,
} from './schema/structural.ts';
import { canonicalJSON, validateCustomResource } from './schema/validation.ts';
import {
  isCRDConditionTrue,
  isProtectedCommunityGroup,
  type CRDNames,
  type CRDVersion,
  type CustomResourceDefinition,
  type PrinterColumn,
  type Subresources,
} from './types.ts';
import { appendAll } from '../util/append.ts';

const printerColumnDatatypes = ['boolean', 'date', 'integer', 'number', 'string'];
const columnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const openapiV3Types = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const allowedFieldsAtRootSchema = [
  'Description',
  'Type',
  'Format',
  'Title',
  'Maximum',
  'ExclusiveMaximum',
  'Minimum',
  'ExclusiveMinimum',
  'MaxLength',
  'MinLength',
  'Pattern',
  'MaxItems',
  'MinItems',
  'UniqueItems',
  'MultipleOf',
  'Required',
  'Items',
  'Properties',
  'ExternalDocs',
  'Example',
  'XPreserveUnknownFields',
  'XValidations',
];
/** JSON keys allowed at the root of a schema when /status is enabled. */
const allowedRootKeys = new Set([
  'description',
  'type',
  'format',
  'title',
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
  'required',
  'items',
  'properties',
  'externalDocs',
  'example',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-validations',
]);
const metaFields = new Set(['metadata', 'kind', 'apiVersion']);

const same = (a: unknown, b: unknown) => canonicalJSON(a ?? null) === canonicalJSON(b ?? null);
const join = (errs: string[]) => errs.join(',');

/** The internal view of a v1 spec: identical per-version fields promoted to the top level. */
interface InternalSpec {
  validation?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: Subresources;
  columns?: PrinterColumn[];
  versions: CRDVersion[];
}

function internalSpec(crd: CustomResourceDefinition): InternalSpec {
  const versions = (crd.spec.versions ?? []).map((v) => ({ ...v }));
  const out: InternalSpec = { versions };
  if (versions.length === 0) return out;
  const first = versions[0]!;
  if (versions.every((v) => same(v.schema, first.schema))) {
    out.validation = first.schema;
    for (const v of versions) delete v.schema;
  }
  if (versions.every((v) => same(v.subresources, first.subresources))) {
    out.subresources = first.subresources;
    for (const v of versions) delete v.subresources;
  }
  if (versions.every((v) => same(v.additionalPrinterColumns, first.additionalPrinterColumns))) {
    out.columns = first.additionalPrinterColumns;
    for (const v of versions) delete v.additionalPrinterColumns;
  }
  return out;
}

interface Options {
  requireImmutableNames: boolean;
}

/** ValidateCustomResourceDefinition (create); the metadata checks are the Store's. */
export function validateCustomResourceDefinition(crd: CustomResourceDefinition): ErrorList {
  const errs: ErrorList = [];
  const spec = crd.spec ?? {};
  const requiredName = `${spec.names?.plural ?? ''}.${spec.group ?? ''}`;
  if (crd.metadata.name && crd.metadata.name !== requiredName)
    errs.push(invalid(Path.of('metadata', 'name'), crd.metadata.name, 'must be spec.names.plural+"."+spec.group'));
  appendAll(errs, validateSpec(crd, { requireImmutableNames: false }));
  appendAll(errs, validateNames(crd.status?.acceptedNames ?? {}, Path.of('status', 'acceptedNames')));
  appendAll(errs, validateStoredVersions(crd));
  appendAll(errs, validateAPIApproval(crd, undefined));
  appendAll(errs, validatePreserveUnknownFields(crd));
  return errs;
}

/** ValidateCustomResourceDefinitionUpdate: names and scope are immutable once established. */
export function validateCustomResourceDefinitionUpdate(
  crd: CustomResourceDefinition,
  old: CustomResourceDefinition,
): ErrorList {
  const opts = { requireImmutableNames: isCRDConditionTrue(old, 'Established') };
  const errs = validateSpec(crd, opts);
  const p = Path.of('spec');
  if (opts.requireImmutableNames) {
    if (crd.spec.scope !== old.spec.scope) errs.push(invalid(p.child('scope'), crd.spec.scope, 'field is immutable'));
    if (crd.spec.names?.kind !== old.spec.names?.kind)
      errs.push(invalid(p.child('names', 'kind'), crd.spec.names?.kind, 'field is immutable'));
  }
  if (crd.spec.group !== old.spec.group) errs.push(invalid(p.child('group'), crd.spec.group, 'field is immutable'));
  if (crd.spec.names?.plural !== old.spec.names?.plural)
    errs.push(invalid(p.child('names', 'plural'), crd.spec.names?.plural, 'field is immutable'));
  appendAll(errs, validateNames(crd.status?.acceptedNames ?? {}, Path.of('status', 'acceptedNames')));
  appendAll(errs, validateStoredVersions(crd));
  appendAll(errs, validateAPIApproval(crd, old));
  if (!old.spec.preserveUnknownFields) appendAll(errs, validatePreserveUnknownFields(crd));
  return errs;
}

function validateStoredVersions(crd: CustomResourceDefinition): ErrorList {
  const stored = crd.status?.storedVersions ?? [];
  const p = Path.of('status', 'storedVersions');
  if (stored.length === 0) return [invalid(p, stored, 'must have at least one stored version')];
  const errs: ErrorList = [];
  const left = new Map(stored.map((v, i) => [v, i]));
  for (const v of crd.spec.versions ?? []) {
    const has = left.has(v.name ?? '');
    if (v.storage && !has) errs.push(invalid(p, stored, 'must have the storage version ' + (v.name ?? '')));
    if (has) left.delete(v.name ?? '');
  }
  for (const [v, i] of left)
    errs.push(
      invalid(
        p.index(i),
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  return errs;
}

function validateSpec(crd: CustomResourceDefinition, _opts: Options): ErrorList {
  const spec = crd.spec ?? {};
  const p = Path.of('spec');
  const errs: ErrorList = [];
  const g = spec.group ?? '';
  if (!g) errs.push(required(p.child('group')));
  else {
    const e = validateDNS1123Subdomain(g);
    if (e.length) errs.push(invalid(p.child('group'), g, join(e)));
    else if (g.split('.').length < 2)
      errs.push(invalid(p.child('group'), g, 'should be a domain with at least one dot'));
  }
  const scope = spec.scope ?? '';
  if (!scope) errs.push(required(p.child('scope')));
  else if (scope !== 'Cluster' && scope !== 'Namespaced')
    errs.push(notSupported(p.child('scope'), scope, ['Cluster', 'Namespaced']));

  const internal = internalSpec(crd);
  const versions = internal.versions;
  if (!internal.validation?.openAPIV3Schema)
    versions.forEach((v, i) => {
      if (!v.schema?.openAPIV3Schema)
        errs.push(required(p.child('versions').index(i).child('schema').child('openAPIV3Schema')));
    });

  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    if (v.storage) storageCount++;
    if (seen.has(v.name ?? '')) unique = false;
    seen.add(v.name ?? '');
    const vp = p.child('versions').index(i);
    const e = validateDNS1035Label(v.name ?? '');
    if (e.length) errs.push(invalid(vp.child('name'), v.name ?? '', join(e)));
    const subresources = v.subresources ?? internal.subresources;
    appendAll(errs, validateVersion(v, vp, subresources?.status !== undefined));
  });
  if (!unique) errs.push(invalid(p.child('versions'), spec.versions, 'must contain unique version names'));
  if (storageCount !== 1)
    errs.push(invalid(p.child('versions'), spec.versions, 'must have exactly one version marked as storage version'));

  const names = spec.names ?? {};
  if (!names.plural) errs.push(required(p.child('names', 'plural')));
  if (!names.singular) errs.push(required(p.child('names', 'singular')));
  if (!names.kind) errs.push(required(p.child('names', 'kind')));
  if (!names.listKind) errs.push(required(p.child('names', 'listKind')));
  appendAll(errs, validateNames(names, p.child('names')));

  const anyStatus =
    internal.subresources?.status !== undefined || versions.some((v) => v.subresources?.status !== undefined);
  if (internal.validation) appendAll(errs, validateValidation(internal.validation, anyStatus, p.child('validation')));
  appendAll(errs, validateSubresources(internal.subresources, p.child('subresources')));
  (internal.columns ?? []).forEach((c, i) =>
    appendAll(errs, validateColumn(c, p.child('additionalPrinterColumns').index(i))),
  );

  const conversion = spec.conversion;
  if (conversion) {
    const cp = p.child('conversion');
    const strategy = conversion.strategy ?? '';
    if (!strategy) errs.push(required(cp.child('strategy')));
    else if (strategy !== 'None' && strategy !== 'Webhook')
      errs.push(notSupported(cp.child('strategy'), strategy, ['None', 'Webhook']));
    if (strategy !== 'None' && spec.preserveUnknownFields)
      errs.push(invalid(cp.child('strategy'), strategy, 'must be None if spec.preserveUnknownFields is true'));
    if (strategy === 'Webhook') {
      if (!conversion.webhook?.clientConfig)
        errs.push(required(cp.child('webhookClientConfig'), 'required when strategy is set to Webhook'));
      // Conversion webhooks are not implemented: refused rather than accepted and never called.
      else
        errs.push(
          forbidden(
            cp.child('strategy'),
            'Webhook conversion is not supported by this server; use None (versions differ only in apiVersion)',
          ),
        );
    } else if (conversion.webhook) {
      if (conversion.webhook.clientConfig)
        errs.push(forbidden(cp.child('webhookClientConfig'), 'should not be set when strategy is not set to Webhook'));
      if (conversion.webhook.conversionReviewVersions?.length)
        errs.push(
          forbidden(cp.child('conversionReviewVersions'), 'should not be set when strategy is not set to Webhook'),
        );
    }
  }
  return errs;
}

function validateVersion(v: CRDVersion, p: Path, statusEnabled: boolean): ErrorList {
  const errs: ErrorList = [];
  if (!v.deprecated && v.deprecationWarning !== undefined)
    errs.push(invalid(p.child('deprecationWarning'), v.deprecationWarning, 'can only be set for deprecated versions'));
  else if (v.deprecationWarning !== undefined) {
    if (v.deprecationWarning.length > 256)
      errs.push(invalid(p.child('deprecationWarning'), v.deprecationWarning, 'must be <= 256 characters long'));
    if (v.deprecationWarning.length === 0)
      errs.push(invalid(p.child('deprecationWarning'), v.deprecationWarning, 'must not be an empty string'));
  }
  if (v.schema) appendAll(errs, validateValidation(v.schema, statusEnabled, p.child('schema')));
  appendAll(errs, validateSubresources(v.subresources, p.child('subresources')));
  (v.additionalPrinterColumns ?? []).forEach((c, i) =>
    appendAll(errs, validateColumn(c, p.child('additionalPrinterColumns').index(i))),
  );
  return errs;
}

export function validateNames(names: CRDNames, p: Path): ErrorList {
  const errs: ErrorList = [];
  const dns = (v: string | undefined, f: string) => {
    if (!v) return;
    const e = validateDNS1035Label(v);
    if (e.length) errs.push(invalid(p.child(f), v, join(e)));
  };
  dns(names.plural, 'plural');
  dns(names.singular, 'singular');
  for (const f of ['kind', 'listKind'] as const) {
    const v = names[f];
    if (!v) continue;
    const e = validateDNS1035Label(v.toLowerCase());
    if (e.length) errs.push(invalid(p.child(f), v, 'may have mixed case, but should otherwise match: ' + join(e)));
  }
  (names.shortNames ?? []).forEach((s, i) => {
    const e = validateDNS1035Label(s);
    if (e.length) errs.push(invalid(p.child('shortNames').index(i), s, join(e)));
  });
  if (names.kind && names.kind === names.listKind)
    errs.push(invalid(p.child('listKind'), names.listKind, 'kind and listKind may not be the same'));
  (names.categories ?? []).forEach((s, i) => {
    const e = validateDNS1035Label(s);
    if (e.length) errs.push(invalid(p.child('categories').index(i), s, join(e)));
  });
  return errs;
}

function validateSimpleJSONPath(s: string, p: Path): ErrorList {
  if (s.length === 0) return [invalid(p, s, 'must not be empty')];
  if (s[0] !== '.') return [invalid(p, s, 'must be a simple json path starting with .')];
  return [];
}

function validateColumn(c: PrinterColumn, p: Path): ErrorList {
  const errs: ErrorList = [];
  if (!c.name) errs.push(required(p.child('name')));
  if (!c.type) errs.push(required(p.child('type'), `must be one of ${printerColumnDatatypes.join(',')}`));
  else if (!printerColumnDatatypes.includes(c.type))
    errs.push(invalid(p.child('type'), c.type, `must be one of ${printerColumnDatatypes.join(',')}`));
  if (c.format && !columnFormats.includes(c.format))
    errs.push(invalid(p.child('format'), c.format, `must be one of ${columnFormats.join(',')}`));
  if (!c.jsonPath) errs.push(required(p.child('JSONPath')));
  else appendAll(errs, validateSimpleJSONPath(c.jsonPath, p.child('JSONPath')));
  return errs;
}

function validateSubresources(s: Subresources | undefined, p: Path): ErrorList {
  const errs: ErrorList = [];
  const scale = s?.scale;
  if (!scale) return errs;
  const check = (v: string | undefined, f: string, prefix: string, under: string) => {
    const fp = p.child(`scale.${f}`);
    if (!v) {
      errs.push(required(fp));
      return;
    }
    const e = validateSimpleJSONPath(v, fp);
    if (e.length) appendAll(errs, e);
    else if (!v.startsWith(prefix)) errs.push(invalid(fp, v, `should be a json path under ${under}`));
  };
  check(scale.specReplicasPath, 'specReplicasPath', '.spec.', '.spec');
  check(scale.statusReplicasPath, 'statusReplicasPath', '.status.', '.status');
  if (scale.labelSelectorPath) {
    const fp = p.child('scale.labelSelectorPath');
    const e = validateSimpleJSONPath(scale.labelSelectorPath, fp);
    if (e.length) appendAll(errs, e);
    else if (!scale.labelSelectorPath.startsWith('.spec.') && !scale.labelSelectorPath.startsWith('.status.'))
      errs.push(invalid(fp, scale.labelSelectorPath, 'should be a json path under either .spec or .status'));
  }
  return errs;
}

function validateValidation(v: { openAPIV3Schema?: JSONSchemaProps }, statusEnabled: boolean, p: Path): ErrorList {
  const schema = v.openAPIV3Schema;
  if (!schema) return [];
  const sp = p.child('openAPIV3Schema');
  const errs: ErrorList = [];
  if (statusEnabled) {
    for (const k of Object.keys(schema)) {
      if (k === 'type') {
        if (schema.type !== 'object') {
          errs.push(
            invalid(
              p.child('openAPIV3Schema.type'),
              schema.type,
              'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
            ),
          );
          break;
        }
        continue;
      }
      if (!allowedRootKeys.has(k)) {
        errs.push(
          invalid(
            sp,
            schema,
            `only [${allowedFieldsAtRootSchema.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`,
          ),
        );
        break;
      }
    }
  }
  if (schema.nullable) errs.push(forbidden(p.child('openAPIV3Schema.nullable'), 'nullable cannot be true at the root'));

  const initErrs: ErrorList = [];
  let ss: Structural | undefined;
  try {
    ss = newStructural(schema);
  } catch (err) {
    if (!(err instanceof StructuralError)) throw err;
    initErrs.push(invalid(sp, '', err.message));
  }
  if (ss) {
    const structural = validateStructural(sp, ss);
    if (structural.length) appendAll(errs, structural);
    else appendAll(errs, validateDefaults(sp, ss, true));
  }
  appendAll(errs, validateOpenAPISchema(schema, sp, { allowDefaults: true, insideMeta: false }, true));
  if (errs.length === 0) appendAll(errs, initErrs);
  return errs;
}

interface SSV {
  allowDefaults: boolean;
  disallowDefaultsReason?: string;
  insideMeta: boolean;
}

function standardValidate(s: JSONSchemaProps, p: Path, v: SSV): ErrorList {
  const errs: ErrorList = [];
  if (s.type && !openapiV3Types.includes(s.type)) errs.push(notSupported(p.child('type'), s.type, openapiV3Types));
  if (s.default !== undefined && !v.allowDefaults)
    errs.push(
      forbidden(
        p.child('default'),
        'must not be set' + (v.disallowDefaultsReason ? ' ' + v.disallowDefaultsReason : ''),
      ),
    );
  if (s.id) errs.push(forbidden(p.child('id'), 'id is not supported'));
  if (s.additionalItems !== undefined)
    errs.push(forbidden(p.child('additionalItems'), 'additionalItems is not supported'));
  if (s.patternProperties && Object.keys(s.patternProperties).length)
    errs.push(forbidden(p.child('patternProperties'), 'patternProperties is not supported'));
  if (s.definitions && Object.keys(s.definitions).length)
    errs.push(forbidden(p.child('definitions'), 'definitions is not supported'));
  if (s.dependencies !== undefined) errs.push(forbidden(p.child('dependencies'), 'dependencies is not supported'));
  if (s.$ref !== undefined) errs.push(forbidden(p.child('$ref'), '$ref is not supported'));
  if (s.type === 'null')
    errs.push(forbidden(p.child('type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items)) errs.push(forbidden(p.child('items'), 'items must be a schema object and not an array'));
  if (v.insideMeta && s['x-kubernetes-embedded-resource'])
    errs.push(forbidden(p.child('x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  return errs;
}

/** ValidateCustomResourceDefinitionOpenAPISchema (without CEL: its rules are refused, naming them). */
function validateOpenAPISchema(s: JSONSchemaProps | undefined, p: Path, v: SSV, isRoot: boolean): ErrorList {
  if (!s || typeof s !== 'object') return [];
  const errs = standardValidate(s, p, v);
  if (s.uniqueItems)
    errs.push(
      forbidden(
        p.child('uniqueItems'),
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  const hasProps = s.properties !== undefined && Object.keys(s.properties).length > 0;
  if (s.additionalProperties !== undefined) {
    if (hasProps && (s.additionalProperties === false || typeof s.additionalProperties === 'object'))
      errs.push(forbidden(p.child('additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    const sub = v.insideMeta
      ? {
          ...v,
          allowDefaults: false,
          disallowDefaultsReason: 'inside additionalProperties applying to object metadata',
        }
      : v;
    if (typeof s.additionalProperties === 'object')
      appendAll(errs, validateOpenAPISchema(s.additionalProperties, p.child('additionalProperties'), sub, false));
  }
  for (const [k, ps] of Object.entries(s.properties ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    let sub = v;
    if ((isRoot || s['x-kubernetes-embedded-resource']) && metaFields.has(k)) {
      sub = { ...sub, insideMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${k}` };
    }
    appendAll(errs, validateOpenAPISchema(ps, p.child('properties').key(k), sub, false));
  }
  if (s.not) appendAll(errs, validateOpenAPISchema(s.not, p.child('not'), v, false));
  (s.allOf ?? []).forEach((x, i) => appendAll(errs, validateOpenAPISchema(x, p.child('allOf').index(i), v, false)));
  (s.oneOf ?? []).forEach((x, i) => appendAll(errs, validateOpenAPISchema(x, p.child('oneOf').index(i), v, false)));
  (s.anyOf ?? []).forEach((x, i) => appendAll(errs, validateOpenAPISchema(x, p.child('anyOf').index(i), v, false)));
  if (s.items !== undefined && !Array.isArray(s.items))
    appendAll(errs, validateOpenAPISchema(s.items, p.child('items'), v, false));

  if (s['x-kubernetes-preserve-unknown-fields'] === false)
    errs.push(invalid(p.child('x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && s.type !== 'object') {
    if (!s.type) errs.push(required(p.child('type'), 'must be object if x-kubernetes-map-type is specified'));
    else errs.push(invalid(p.child('type'), s.type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular')
    errs.push(notSupported(p.child('x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  const listType = s['x-kubernetes-list-type'];
  const items = s.items !== undefined && !Array.isArray(s.items) ? s.items : undefined;
  if (listType !== undefined && s.type !== 'array') {
    if (!s.type) errs.push(required(p.child('type'), 'must be array if x-kubernetes-list-type is specified'));
    else errs.push(invalid(p.child('type'), s.type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && items) {
    if (
      items.type === 'array' &&
      items['x-kubernetes-list-type'] !== undefined &&
      items['x-kubernetes-list-type'] !== 'atomic'
    )
      errs.push(
        invalid(
          p.child('items').child('x-kubernetes-list-type'),
          items['x-kubernetes-list-type'],
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic')
      errs.push(
        invalid(
          p.child('items').child('x-kubernetes-map-type'),
          items['x-kubernetes-list-type'] ?? null,
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
  }
  if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType))
    errs.push(notSupported(p.child('x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  const mapKeys = s['x-kubernetes-list-map-keys'] ?? [];
  if (mapKeys.length > 0) {
    if (listType === undefined)
      errs.push(required(p.child('x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map')
      errs.push(
        invalid(p.child('x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'),
      );
  }
  if (listType === 'map') {
    if (mapKeys.length === 0)
      errs.push(required(p.child('x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (s.items === undefined)
      errs.push(required(p.child('items'), 'must have a schema if x-kubernetes-list-type is map'));
    if (items && items.type !== 'object')
      errs.push(
        invalid(
          p.child('items').child('type'),
          items.type ?? '',
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    if (items && items.type === 'object') {
      const seen = new Set<string>();
      for (const k of mapKeys) {
        const ks = items.properties?.[k];
        if (ks) {
          if (ks.type === 'array' || ks.type === 'object')
            errs.push(
              invalid(
                p.child('items').child('properties').key(k).child('type'),
                items.type,
                "must be a scalar type if parent array's x-kubernetes-list-type is map",
              ),
            );
        } else
          errs.push(
            invalid(p.child('x-kubernetes-list-map-keys'), mapKeys, 'entries must all be names of item properties'),
          );
        if (seen.has(k))
          errs.push(invalid(p.child('x-kubernetes-list-map-keys'), mapKeys, 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
  // validateMapListKeysMapSet.
  if (items && (listType === 'set' || listType === 'map')) {
    if (items.nullable)
      errs.push(
        forbidden(p.child('items').child('nullable'), 'cannot be nullable when x-kubernetes-list-type is ' + listType),
      );
    if (listType === 'map') {
      const req = new Set(items.required ?? []);
      for (const k of mapKeys) {
        const ks = items.properties?.[k];
        if (!ks) continue;
        if (!req.has(k) && ks.default === undefined)
          errs.push(
            required(
              p.child('items').child('properties').key(k).child('default'),
              'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
            ),
          );
        if (ks.nullable)
          errs.push(
            forbidden(
              p.child('items').child('properties').key(k).child('nullable'),
              'this property is in x-kubernetes-list-map-keys, so it cannot be nullable',
            ),
          );
      }
    }
  }
  // CEL is not evaluated here: a CRD that relies on rules is refused, naming each rule.
  (s['x-kubernetes-validations'] ?? []).forEach((r, i) => {
    const rule = (r as { rule?: unknown } | null)?.rule;
    const rp = p.child('x-kubernetes-validations').index(i).child('rule');
    if (typeof rule !== 'string' || rule.trim() === '') errs.push(required(rp, 'rule is not specified'));
    else errs.push(forbidden(rp, `CEL validation rules are not supported by this server: ${JSON.stringify(rule)}`));
  });
  return errs;
}

/** ValidateDefaults: each default validates against its schema and has no unknown fields. */
function validateDefaults(p: Path, s: Structural, isResourceRoot: boolean): ErrorList {
  if (isResourceRoot && !s.xEmbeddedResource) s = { ...s, xEmbeddedResource: true };
  return defaultsOf(p, s, s, false);
}

function defaultsOf(p: Path, s: Structural, root: Structural, insideMeta: boolean): ErrorList {
  const errs: ErrorList = [];
  if (s.xEmbeddedResource) {
    insideMeta = false;
    root = s;
  }
  if (s.hasDefault && s.default !== null && !insideMeta) {
    const pruned = structuredClone(s.default);
    prune(pruned, s, s.xEmbeddedResource);
    if (!same(pruned, s.default)) errs.push(invalid(p.child('default'), s.default, 'must not have unknown fields'));
    else appendAll(errs, validateCustomResource(p.child('default'), s.default, s.schema));
  }
  if (s.items) appendAll(errs, defaultsOf(p.child('items'), s.items, root, insideMeta));
  for (const [k, sub] of [...(s.properties ?? [])].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const subMeta = insideMeta || (s.xEmbeddedResource && metaFields.has(k));
    appendAll(errs, defaultsOf(p.child('properties').key(k), sub, root, subMeta));
  }
  return errs;
}

function validateAPIApproval(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): ErrorList {
  if (!isProtectedCommunityGroup(crd.spec.group ?? '')) return [];
  const key = 'api-approved.kubernetes.io';
  const val = crd.metadata.annotations?.[key];
  if (old && old.metadata.annotations?.[key] === val) return [];
  const p = Path.of('metadata', 'annotations').key(key);
  if (val === undefined)
    return [
      required(
        p,
        `protected groups must have approval annotation "${key}", see https://github.com/kubernetes/enhancements/pull/1111`,
      ),
    ];
  if (val.startsWith('unapproved') || /^https?:\/\//.test(val)) return [];
  return [
    invalid(
      p,
      val,
      `protected groups must have approval annotation "${key}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
    ),
  ];
}

function validatePreserveUnknownFields(crd: CustomResourceDefinition): ErrorList {
  if (crd.spec.preserveUnknownFields)
    return [
      invalid(
        Path.of('spec').child('preserveUnknownFields'),
        true,
        'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
      ),
    ];
  return [];
}
