// The create handler's request-body path (k8s.io/apiserver/pkg/endpoints/handlers/create.go):
// body size limit, input media type negotiation (JSON, YAML, protobuf), decoding into the
// expected kind, unknown-field handling per `fieldValidation` (Strict → 400, Warn (default) →
// Warning header, Ignore), and the errors' upstream wording.

import { parse as parseYAML } from 'yaml';
import type { RequestContext } from '../request/context.ts';
import { StatusError, newBadRequest, type Status } from '../responsewriters/status.ts';
import { writeObjectNegotiated } from '../responsewriters/writers.ts';
import { addWarning } from '../request/warning.ts';
import { decodeEnvelope, decodeMessage, ProtobufError, type Schema } from '../../util/protobuf.ts';
import { builtinDefinitionName } from '../openapi/schemas.ts';
import { typedDecodeCoversShapes, typedDecodeError } from './typecheck.ts';
import { appendAll } from '../../util/append.ts';
import { exceedsJSONNestingDepth, mayExceedYAMLNestingDepth, maxNestingDepth } from '../../util/nesting-depth.ts';

/** Allowed JSON keys, recursively: `true` = anything below, a nested object = its keys. */
export type KnownFields = { [key: string]: true | KnownFields | [KnownFields] };

export interface KindInfo {
  group: string;
  version: string;
  kind: string;
  /** Protobuf schema of the message (kubectl ≥ 1.32 bodies). */
  schema: Schema;
  /** JSON keys the kind knows (for unknown-field detection); `kind`/`apiVersion` are implicit. */
  fields: KnownFields;
  /** Fix-ups after protobuf decoding (e.g. ExtraValue → string[]). */
  afterProtobuf?: (obj: Record<string, unknown>) => void;
  /** Unstructured (custom resources): no typed field checks; the schema's pruning finds unknown fields. */
  unstructured?: boolean;
}

export const acceptedMediaTypes = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/** metav1.ObjectMeta's JSON keys. */
export const objectMetaFields: KnownFields = {
  name: true,
  generateName: true,
  namespace: true,
  selfLink: true,
  uid: true,
  resourceVersion: true,
  generation: true,
  creationTimestamp: true,
  deletionTimestamp: true,
  deletionGracePeriodSeconds: true,
  labels: true,
  annotations: true,
  ownerReferences: true,
  finalizers: true,
  managedFields: true,
};

function unsupportedMediaType(): Status {
  return {
    status: 'Failure',
    message: `the body of the request was in an unknown format - accepted media types include: ${acceptedMediaTypes.join(', ')}`,
    reason: 'UnsupportedMediaType',
    code: 415,
  };
}

/** summarizeData: the first 30 bytes, as text for JSON-looking data, else hex. */
function summarizeData(data: Uint8Array, maxLength = 30): string {
  if (data.length === 0) return '<empty>';
  const slice = data.length > maxLength ? data.subarray(0, maxLength) : data;
  const more = data.length > maxLength ? ' ...' : '';
  if (data[0] === 0x7b) return new TextDecoder().decode(slice) + more;
  return [...slice].map((b) => b.toString(16).padStart(2, '0')).join('') + more;
}

/** Go's json error text for the common cases (JS engines word it differently). */
function goJSONError(text: string, err: unknown): string {
  const t = text.trimEnd();
  if (t.trim() === '') return 'unexpected end of JSON input';
  const m = /position (\d+)/.exec(err instanceof Error ? err.message : '');
  const pos = m ? Number(m[1]) : -1;
  if (pos >= t.length || /Unexpected end|Unterminated/.test(err instanceof Error ? err.message : ''))
    return 'unexpected end of JSON input';
  const c = pos >= 0 ? t[pos]! : t.trimStart()[0]!;
  return pos <= 0 || t.slice(0, pos).trim() === ''
    ? `invalid character '${c}' looking for beginning of value`
    : `invalid character '${c}' after object key:value pair`;
}

/**
 * Kinds kube-apiserver's scheme (pkg/api/legacyscheme) registers, by group version: a body of one of
 * these kinds decodes, then fails to convert into the URL's kind; any other kind is not registered.
 */
const legacySchemeKinds: Record<string, readonly string[]> = {
  v1: [
    'Binding',
    'ComponentStatus',
    'ConfigMap',
    'Endpoints',
    'Event',
    'LimitRange',
    'Namespace',
    'Node',
    'PersistentVolume',
    'PersistentVolumeClaim',
    'Pod',
    'PodTemplate',
    'ReplicationController',
    'ResourceQuota',
    'Secret',
    'Service',
    'ServiceAccount',
  ],
  'apps/v1': ['ControllerRevision', 'DaemonSet', 'Deployment', 'ReplicaSet', 'StatefulSet'],
  'batch/v1': ['CronJob', 'Job'],
  'coordination.k8s.io/v1': ['Lease'],
  'discovery.k8s.io/v1': ['EndpointSlice'],
  'events.k8s.io/v1': ['Event'],
  'networking.k8s.io/v1': ['Ingress', 'IngressClass', 'NetworkPolicy'],
  'policy/v1': ['PodDisruptionBudget'],
  'rbac.authorization.k8s.io/v1': ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
};

/** The internal (hub) package of a group, as Go's reflect names the conversion target. */
function internalPackage(group: string): string {
  if (group === '' || group === 'events.k8s.io') return 'core';
  return group.split('.')[0]!;
}

/**
 * Why a body of `kind` in `gv` is not the URL's kind: the versioning decoder's conversion error for a
 * registered kind (runtime.Converter: `converting (v1.Secret) to (core.ConfigMap): unknown conversion`),
 * the scheme's for any other (`no kind "X" is registered for version "v" in scheme "…"`).
 */
const definitions = new WeakMap<KindInfo, { name: string | undefined }>();
/** The kind's built-in OpenAPI definition name, once per kind. */
function definitionOf(k: KindInfo): string | undefined {
  let d = definitions.get(k);
  if (!d)
    definitions.set(k, (d = { name: builtinDefinitionName({ group: k.group, version: k.version, kind: k.kind }) }));
  return d.name;
}

const topLevel = new WeakMap<KnownFields, KnownFields>();
/** A kind's known fields with `kind` and `apiVersion`, once per kind. */
function topLevelFields(fields: KnownFields): KnownFields {
  let t = topLevel.get(fields);
  if (!t) topLevel.set(fields, (t = { kind: true, apiVersion: true, ...fields }));
  return t;
}

/** One decoder for every body (decode() without streaming keeps no state between calls). */
const utf8 = new TextDecoder();

function kindMismatch(k: KindInfo, gv: string, kind: string): string {
  if (legacySchemeKinds[gv]?.includes(kind)) {
    const version = gv.includes('/') ? gv.slice(gv.indexOf('/') + 1) : gv;
    return `converting (${version}.${kind}) to (${internalPackage(k.group)}.${k.kind}): unknown conversion`;
  }
  return `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(gv)} in scheme "pkg/api/legacyscheme/scheme.go:30"`;
}

/** Unknown keys of `obj` against `known`, as `a.b[0].c` paths (sorted like upstream's strict decoder). */
function unknownFields(obj: unknown, known: KnownFields, prefix: string, out: string[]): void {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return;
  // Own keys in Object.entries order; a path is built only where one is reported or walked into.
  for (const k in obj) {
    if (!Object.hasOwn(obj, k)) continue;
    const v = (obj as Record<string, unknown>)[k];
    const spec = known[k];
    if (spec === true) continue;
    const path = prefix ? `${prefix}.${k}` : k;
    if (spec === undefined) {
      out.push(path);
      continue;
    }
    if (Array.isArray(spec)) {
      if (Array.isArray(v)) v.forEach((item, i) => unknownFields(item, spec[0], `${path}[${i}]`, out));
      continue;
    }
    unknownFields(v, spec, path, out);
  }
}

export async function readBody(ctx: RequestContext, limit: number): Promise<Uint8Array> {
  const tooLarge = (): Status => ({
    status: 'Failure',
    message: `Request entity too large: limit is ${limit}`,
    reason: 'RequestEntityTooLarge',
    code: 413,
  });
  const length = ctx.request.headers.get('content-length');
  const declared = Number(length ?? '');
  if (limit > 0 && Number.isFinite(declared) && declared > limit) throw new StatusError(tooLarge());
  // Within the limit and no longer than declared: read whole, without a stream (on Node straight
  // from the socket; a web stream costs a create about a quarter of its instructions).
  if (length !== null && ctx.transport.bodyWithinContentLength && Number.isFinite(declared)) {
    const whole = new Uint8Array(await ctx.request.arrayBuffer());
    if (limit > 0 && whole.length > limit) throw new StatusError(tooLarge());
    return whole;
  }
  if (!ctx.request.body) return new Uint8Array();
  const reader = ctx.request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (limit > 0 && total > limit) {
      await reader.cancel().catch(() => {});
      throw new StatusError(tooLarge());
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

function fieldValidation(ctx: RequestContext): FieldValidation {
  const v = ctx.url.searchParams.get('fieldValidation') ?? '';
  if (v === '') return 'Warn';
  if (v === 'Ignore' || v === 'Warn' || v === 'Strict') return v;
  throw new StatusError(
    newBadRequest(
      `fieldValidation: Invalid value: ${JSON.stringify(v)}: fieldValidation must be one of "Ignore", "Strict", or "Warn"`,
    ),
  );
}

/**
 * Reads and decodes a create body into `kind`. Throws StatusError with upstream's status for
 * every failure. The result is the JSON-shaped object with `kind` and `apiVersion` set.
 */
export async function decodeCreateBody(
  ctx: RequestContext,
  k: KindInfo,
  maxBytes: number,
): Promise<Record<string, unknown>> {
  const validation = fieldValidation(ctx);
  const contentType =
    (ctx.request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase() || 'application/json';
  const isJSON = contentType === 'application/json' || contentType === '*/*';
  const isYAML = contentType === 'application/yaml';
  const isProto = contentType === 'application/vnd.kubernetes.protobuf';
  if (!isJSON && !isYAML && !isProto) throw new StatusError(unsupportedMediaType());
  const body = await readBody(ctx, maxBytes);
  const apiVersion = k.group ? `${k.group}/${k.version}` : k.version;
  const unrecognized = (err: string) =>
    new StatusError(
      newBadRequest(`the object provided is unrecognized (must be of type ${k.kind}): ${err} (${summarizeData(body)})`),
    );
  const cannotHandle = (kind: string, version: string, err: string) =>
    new StatusError(
      newBadRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${k.kind}: ${err}`),
    );

  let obj: Record<string, unknown>;
  if (isProto) {
    let env;
    try {
      env = decodeEnvelope(body);
    } catch (err) {
      throw unrecognized(err instanceof Error ? err.message : String(err));
    }
    const gv = env.apiVersion || apiVersion;
    const kind = env.kind || k.kind;
    if (kind !== k.kind || gv !== apiVersion) {
      throw cannotHandle(kind, gv.includes('/') ? gv.slice(gv.indexOf('/') + 1) : gv, kindMismatch(k, gv, kind));
    }
    if (env.contentEncoding)
      throw cannotHandle(kind, k.version, `unsupported content encoding ${JSON.stringify(env.contentEncoding)}`);
    try {
      obj = decodeMessage(env.raw, k.schema);
    } catch (err) {
      throw cannotHandle(kind, k.version, err instanceof ProtobufError ? err.message : String(err));
    }
    k.afterProtobuf?.(obj);
  } else {
    const text = utf8.decode(body);
    let parsed: unknown;
    if (isYAML && mayExceedYAMLNestingDepth(text))
      throw unrecognized(`error converting YAML to JSON: yaml: exceeded max depth of ${maxNestingDepth}`);
    try {
      parsed = isYAML ? parseYAML(text, { uniqueKeys: false }) : JSON.parse(text);
    } catch (err) {
      const msg = isYAML
        ? `error converting YAML to JSON: yaml: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`
        : `couldn't get version/kind; json parse error: ${goJSONError(text, err)}`;
      throw unrecognized(msg);
    }
    if (!isYAML && exceedsJSONNestingDepth(text))
      throw unrecognized(`couldn't get version/kind; json parse error: exceeded max depth`);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw unrecognized(
        `couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(parsed) ? 'array' : parsed === null ? 'null' : typeof parsed} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
      );
    }
    obj = parsed as Record<string, unknown>;
    const kind = typeof obj.kind === 'string' && obj.kind ? obj.kind : k.kind;
    const gv = typeof obj.apiVersion === 'string' && obj.apiVersion ? obj.apiVersion : apiVersion;
    if (kind !== k.kind || gv !== apiVersion) {
      throw cannotHandle(kind, gv.includes('/') ? gv.slice(gv.indexOf('/') + 1) : gv, kindMismatch(k, gv, kind));
    }
    if (!k.unstructured) {
      const definition = definitionOf(k);
      // The shape check only where the typed walk does not already make it (see typedDecodeCoversShapes).
      const typeErr =
        (definition && typedDecodeError(obj, definition)) ??
        (definition && typedDecodeCoversShapes(definition, k.fields) ? undefined : checkTypes(obj, k.fields));
      if (typeErr) throw cannotHandle(kind, k.version, typeErr);
      let unknown: string[] | undefined;
      if (validation !== 'Ignore') {
        unknown = [];
        unknownFields(obj, topLevelFields(k.fields), '', unknown);
        if (unknown.length) {
          if (validation === 'Strict') {
            const list = unknown.map((u) => `unknown field ${JSON.stringify(u)}`);
            throw cannotHandle(kind, k.version, `strict decoding error: ${list.join(', ')}`);
          }
          for (const u of unknown) addWarning(ctx, '', `unknown field ${JSON.stringify(u)}`);
        }
      }
      // stripUnknown drops a subset of what unknownFields reports: with nothing reported, nothing to drop.
      if (unknown?.length !== 0) stripUnknown(obj, k.fields);
    }
  }
  obj.kind = k.kind;
  obj.apiVersion = apiVersion;
  return obj;
}

/**
 * The unknown fields of a patched object (kind and apiVersion are always known), dropped as the
 * typed decode drops them; returns their paths.
 */
export function dropUnknownFields(obj: Record<string, unknown>, k: KindInfo): string[] {
  const unknown: string[] = [];
  unknownFields(obj, { kind: true, apiVersion: true, ...k.fields }, '', unknown);
  stripUnknown(obj, k.fields);
  return unknown;
}

/** Drops unknown keys (the typed decode never keeps them). */
function stripUnknown(obj: Record<string, unknown>, known: KnownFields): string[] {
  const dropped: string[] = [];
  for (const key of Object.keys(obj)) {
    if (key === 'kind' || key === 'apiVersion') continue;
    const spec = known[key];
    if (spec === undefined) {
      delete obj[key];
      dropped.push(key);
    } else if (
      spec !== true &&
      !Array.isArray(spec) &&
      typeof obj[key] === 'object' &&
      obj[key] !== null &&
      !Array.isArray(obj[key])
    ) {
      appendAll(dropped, stripUnknown(obj[key] as Record<string, unknown>, spec));
    }
  }
  return dropped;
}

/**
 * The type errors Go's decoder reports for the common mistakes (a string where an object is
 * expected and the like), worded like encoding/json.
 */
function checkTypes(obj: Record<string, unknown>, known: KnownFields, prefix = ''): string | undefined {
  // Own keys in Object.entries order, without the pairs; the path only for a field walked into.
  for (const key in known) {
    if (!Object.hasOwn(known, key)) continue;
    const spec = known[key]!;
    const v = obj[key];
    if (v === undefined || v === null) continue;
    if (spec === true) continue;
    const path = prefix ? `${prefix}.${key}` : key;
    if (Array.isArray(spec)) {
      if (!Array.isArray(v)) return `json: cannot unmarshal ${jsType(v)} into Go struct field ${path} of type []`;
      continue;
    }
    if (typeof v !== 'object' || Array.isArray(v))
      return `json: cannot unmarshal ${jsType(v)} into Go struct field ${path} of type struct`;
    const inner = checkTypes(v as Record<string, unknown>, spec, path);
    if (inner) return inner;
  }
  return undefined;
}

function jsType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return 'object';
}

/** A typed string-field check: `json: cannot unmarshal number into Go struct field X of type string`. */
export function expectStrings(
  obj: Record<string, unknown> | undefined,
  fields: string[],
  path: string,
  kind: string,
  version: string,
): void {
  if (!obj) return;
  for (const f of fields) {
    const v = obj[f];
    if (v !== undefined && v !== null && typeof v !== 'string') {
      throw new StatusError(
        newBadRequest(
          `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: json: cannot unmarshal ${jsType(v)} into Go struct field ${path}.${f} of type string`,
        ),
      );
    }
  }
}

/**
 * The created object as the create handler answers it: 201 in the negotiated media type (JSON or
 * YAML; these kinds have no protobuf encoding here, so `protobuf, json` answers JSON).
 */
export function createdResponse(ctx: RequestContext, obj: unknown, code = 201): Response {
  return writeObjectNegotiated(ctx.request, ctx.url, code, obj);
}
