// Builds the OpenAPI documents of the resources a server serves, as kube-apiserver generates them
// from its go-restful routes (k8s.io/apiserver/pkg/endpoints/installer.go names the operations,
// k8s.io/apiserver/pkg/endpoints/openapi/openapi.go the operation ids and tags, kube-openapi's
// builder3 / builder the v3 and v2 documents): one v3 document per group version and one swagger
// 2.0 document for all. Paths per resource and verb with their parameters (fieldValidation,
// dryRun, fieldManager …), `x-kubernetes-action` and `x-kubernetes-group-version-kind` (what
// kubectl's query-param verifier reads), and `components.schemas` holding every definition the
// paths reference, transitively.

import { parametersJSON } from './definitions.generated.ts';
import {
  builtinDefinition,
  builtinDefinitionName,
  definitionClosure,
  parseWithDescriptions,
  refPrefix,
  type GroupVersionKind,
  type SchemaObject,
} from './schemas.ts';

/** A subresource served under a resource (`status`, `scale`, `token`, `finalize` …). */
export interface OpenAPISubresource {
  name: string;
  /** The kind it takes and returns (the parent's kind for `status`). */
  kind: string;
  verbs: string[];
  /** Its group/version when the kind is not the parent's (autoscaling/v1 Scale, authentication.k8s.io/v1 TokenRequest). */
  group?: string;
  version?: string;
}

/** What a resource's schema is: a definition name and, for kinds that are not built in, its definitions. */
export interface ResourceOpenAPI {
  /** Definition name of the kind (`io.k8s.api.core.v1.ConfigMap`, `com.example.stable.v1.CronTab`). */
  name: string;
  /** Definition name of the list kind; defaults to `name + 'List'`. */
  listName?: string;
  /** Definitions this resource brings (its kind, its list, their parts); meta types come built in. */
  definitions?: Readonly<Record<string, SchemaObject>>;
  /** The swagger 2.0 form of `definitions` where it differs (a CRD's: ToStructuralOpenAPIV2); defaults to them. */
  v2Definitions?: Readonly<Record<string, SchemaObject>>;
}

/** One resource as the documents describe it (discovery's APIResource plus its schema). */
export interface OpenAPIResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: readonly string[];
  subresources?: readonly OpenAPISubresource[];
  /** Its schema; by default the built-in definition of its group/version/kind. */
  openAPI?: ResourceOpenAPI;
}

export interface OpenAPIGroupVersion {
  group: string;
  version: string;
  resources: readonly OpenAPIResource[];
}

/** `api/v1` or `apis/<group>/<version>`: the key in `/openapi/v3`'s `paths`. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

type V2Parameter = {
  name: string;
  in: string;
  description?: string;
  type?: string;
  required?: boolean;
  uniqueItems?: boolean;
};
let params: Record<string, V2Parameter> | undefined;
const param = (key: string): V2Parameter =>
  (params ??= parseWithDescriptions<Record<string, V2Parameter>>(parametersJSON))[key]!;

const listParams = [
  'allowWatchBookmarks',
  'continue',
  'fieldSelector',
  'labelSelector',
  'limit',
  'resourceVersion',
  'resourceVersionMatch',
  'sendInitialEvents',
  'timeoutSeconds',
  'watch',
];
const writeParams = ['dryRun', 'fieldManager', 'fieldValidation'];
const patchParams = ['dryRun', 'fieldManagerPatch', 'fieldValidation', 'force'];
const deleteParams = [
  'dryRun',
  'gracePeriodSeconds',
  'ignoreStoreReadErrorWithClusterBreakingPotential',
  'orphanDependents',
  'propagationPolicy',
];
const deleteCollectionParams = [
  ...deleteParams,
  ...listParams.filter((p) => p !== 'allowWatchBookmarks' && p !== 'watch'),
];

const objectTypes = ['application/json', 'application/vnd.kubernetes.protobuf', 'application/yaml'];
const streamTypes = [
  'application/json',
  'application/json;stream=watch',
  'application/vnd.kubernetes.protobuf',
  'application/vnd.kubernetes.protobuf;stream=watch',
  'application/yaml',
];
const patchTypes = [
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

const v2PatchTypes = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

const meta = (k: string) => `io.k8s.apimachinery.pkg.apis.meta.v1.${k}`;
const statusDef = meta('Status');

/** An operation before it is written as v3 or v2: what both forms are made from. */
interface Operation {
  method: 'get' | 'put' | 'post' | 'delete' | 'patch';
  /** swagger 2.0 `consumes` of an operation without a body (default `*\/*`). */
  consumes?: string[];
  description: string;
  operationId: string;
  /** Parameter keys (see parametersJSON), plus `name`/`namespace` path parameters. */
  params: string[];
  body?: { types: string[]; definition: string; required?: boolean };
  responses: [code: string, description: string, definition?: string][];
  produces: string[];
  action?: string;
  gvk?: GroupVersionKind;
}

interface PathOps {
  path: string;
  ops: Operation[];
  /** Description of the `name` path parameter. */
  nameOf?: string;
}

/** ToValidOperationID (k8s.io/apiserver/pkg/endpoints/openapi/openapi.go). */
function toValidOperationID(s: string, capitalizeFirst: boolean): string {
  let out = '';
  let capitalize = capitalizeFirst;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (/[A-Za-z_]/.test(c) || (i !== 0 && /[0-9]/.test(c))) {
      out += capitalize ? c.toUpperCase() : c;
      capitalize = false;
    } else capitalize = true;
  }
  return out;
}

function gvNames(group: string, version: string): { op: string; tag: string } {
  const g = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '');
  return {
    op: toValidOperationID(g, true) + toValidOperationID(version, true),
    tag: `${toValidOperationID(g, false)}_${version}`,
  };
}

const sortedKeys = (o: Record<string, unknown>) =>
  Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]),
  );

const title = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/** The definition names of a resource's kind and list kind. */
export function resourceDefinitionNames(
  group: string,
  version: string,
  r: Pick<OpenAPIResource, 'kind' | 'openAPI'>,
): { kind: string; list: string } {
  if (r.openAPI) return { kind: r.openAPI.name, list: r.openAPI.listName ?? `${r.openAPI.name}List` };
  const builtin = builtinDefinitionName({ group, version, kind: r.kind });
  const builtinList = builtinDefinitionName({ group, version, kind: `${r.kind}List` });
  // A kind without a schema gets the name upstream gives a custom resource (reversed group).
  const fallback = `${group.split('.').reverse().join('.')}.${version}.${r.kind}`;
  return { kind: builtin ?? fallback, list: builtinList ?? `${builtin ?? fallback}List` };
}

function resourcePaths(gv: OpenAPIGroupVersion, r: OpenAPIResource): PathOps[] {
  const { group, version } = gv;
  const prefix = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  const gvn = gvNames(group, version).op;
  const defs = resourceDefinitionNames(group, version, r);
  const gvk = { group, kind: r.kind, version };
  const K = r.kind;
  // ServiceAccounts and Services answer a delete with the deleted object (their stores' ReturnDeletedObject).
  const deleted = group === '' && (r.name === 'serviceaccounts' || r.name === 'services') ? defs.kind : statusDef;
  const ns = r.namespaced ? 'Namespaced' : '';
  const nsPath = r.namespaced ? '/namespaces/{namespace}' : '';
  const has = (v: string) => r.verbs.includes(v);
  const out: PathOps[] = [];
  const ok = (d: string): [string, string, string] => ['200', 'OK', d];
  const created = (d: string): [string, string, string] => ['201', 'Created', d];
  const accepted = (d: string): [string, string, string] => ['202', 'Accepted', d];

  const collection: Operation[] = [];
  if (has('list'))
    collection.push({
      method: 'get',
      description: `list or watch objects of kind ${K}`,
      operationId: `list${gvn}${ns}${K}`,
      params: listParams,
      responses: [ok(defs.list)],
      produces: streamTypes,
      action: 'list',
      gvk,
    });
  if (has('create'))
    collection.push({
      method: 'post',
      description: `create a ${K}`,
      operationId: `create${gvn}${ns}${K}`,
      params: writeParams,
      body: { types: ['*/*'], definition: defs.kind, required: true },
      responses: [ok(defs.kind), created(defs.kind), accepted(defs.kind)],
      produces: objectTypes,
      action: 'post',
      gvk,
    });
  if (has('deletecollection'))
    collection.push({
      method: 'delete',
      description: `delete collection of ${K}`,
      operationId: `delete${gvn}Collection${ns}${K}`,
      params: deleteCollectionParams,
      body: { types: ['*/*'], definition: meta('DeleteOptions') },
      responses: [ok(statusDef)],
      produces: objectTypes,
      action: 'deletecollection',
      gvk,
    });
  if (collection.length) out.push({ path: `${prefix}${nsPath}/${r.name}`, ops: collection });

  const item: Operation[] = [];
  if (has('get'))
    item.push({
      method: 'get',
      description: `read the specified ${K}`,
      operationId: `read${gvn}${ns}${K}`,
      params: [],
      responses: [ok(defs.kind)],
      produces: objectTypes,
      action: 'get',
      gvk,
    });
  if (has('update'))
    item.push({
      method: 'put',
      description: `replace the specified ${K}`,
      operationId: `replace${gvn}${ns}${K}`,
      params: writeParams,
      body: { types: ['*/*'], definition: defs.kind, required: true },
      responses: [ok(defs.kind), created(defs.kind)],
      produces: objectTypes,
      action: 'put',
      gvk,
    });
  if (has('patch'))
    item.push({
      method: 'patch',
      description: `partially update the specified ${K}`,
      operationId: `patch${gvn}${ns}${K}`,
      params: patchParams,
      body: { types: patchTypes, definition: meta('Patch'), required: true },
      responses: [ok(defs.kind), created(defs.kind)],
      produces: objectTypes,
      action: 'patch',
      gvk,
    });
  if (has('delete'))
    item.push({
      method: 'delete',
      description: `delete a ${K}`,
      operationId: `delete${gvn}${ns}${K}`,
      params: deleteParams,
      body: { types: ['*/*'], definition: meta('DeleteOptions') },
      responses: [ok(deleted), accepted(deleted)],
      produces: objectTypes,
      action: 'delete',
      gvk,
    });
  if (item.length) out.push({ path: `${prefix}${nsPath}/${r.name}/{name}`, ops: item, nameOf: K });

  if (r.namespaced && has('list'))
    out.push({
      path: `${prefix}/${r.name}`,
      ops: [
        {
          method: 'get',
          description: `list or watch objects of kind ${K}`,
          operationId: `list${gvn}${K}ForAllNamespaces`,
          params: listParams,
          responses: [ok(defs.list)],
          produces: streamTypes,
          action: 'list',
          gvk,
        },
      ],
    });
  if (has('watch')) {
    const watchOp = (operationId: string, description: string, action: string): Operation => ({
      method: 'get',
      description,
      operationId,
      params: listParams,
      responses: [ok(meta('WatchEvent'))],
      produces: streamTypes,
      action,
      gvk,
    });
    const listDoc = `watch individual changes to a list of ${K}. deprecated: use the 'watch' parameter with a list operation instead.`;
    out.push({
      path: `${prefix}/watch${nsPath}/${r.name}`,
      ops: [watchOp(`watch${gvn}${ns}${K}List`, listDoc, 'watchlist')],
    });
    out.push({
      path: `${prefix}/watch${nsPath}/${r.name}/{name}`,
      ops: [
        watchOp(
          `watch${gvn}${ns}${K}`,
          `watch changes to an object of kind ${K}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`,
          'watch',
        ),
      ],
      nameOf: K,
    });
    if (r.namespaced)
      out.push({
        path: `${prefix}/watch/${r.name}`,
        ops: [watchOp(`watch${gvn}${K}ListForAllNamespaces`, listDoc, 'watchlist')],
      });
  }

  for (const sub of r.subresources ?? []) {
    const sgvk = { group: sub.group ?? group, kind: sub.kind, version: sub.version ?? version };
    const sdef =
      sub.kind === r.kind && sub.group === undefined
        ? defs.kind
        : (builtinDefinitionName(sgvk) ?? `${sgvk.group.split('.').reverse().join('.')}.${sgvk.version}.${sub.kind}`);
    const S = title(sub.name);
    const ops: Operation[] = [];
    const sv = (v: string) => sub.verbs.includes(v);
    if (sv('get'))
      ops.push({
        method: 'get',
        description: `read ${sub.name} of the specified ${K}`,
        operationId: `read${gvn}${ns}${K}${S}`,
        params: [],
        responses: [ok(sdef)],
        produces: objectTypes,
        action: 'get',
        gvk: sgvk,
      });
    if (sv('update'))
      ops.push({
        method: 'put',
        description: `replace ${sub.name} of the specified ${K}`,
        operationId: `replace${gvn}${ns}${K}${S}`,
        params: writeParams,
        body: { types: ['*/*'], definition: sdef, required: true },
        responses: [ok(sdef), created(sdef)],
        produces: objectTypes,
        action: 'put',
        gvk: sgvk,
      });
    if (sv('patch'))
      ops.push({
        method: 'patch',
        description: `partially update ${sub.name} of the specified ${K}`,
        operationId: `patch${gvn}${ns}${K}${S}`,
        params: patchParams,
        body: { types: patchTypes, definition: meta('Patch'), required: true },
        responses: [ok(sdef), created(sdef)],
        produces: objectTypes,
        action: 'patch',
        gvk: sgvk,
      });
    if (sv('create'))
      ops.push({
        method: 'post',
        description: `create ${sub.name} of a ${K}`,
        operationId: `create${gvn}${ns}${K}${S}`,
        params: writeParams,
        body: { types: ['*/*'], definition: sdef, required: true },
        responses: [ok(sdef), created(sdef), accepted(sdef)],
        produces: objectTypes,
        action: 'post',
        gvk: sgvk,
      });
    // The name parameter is described by the subresource's kind (`name of the TokenRequest`).
    if (ops.length) out.push({ path: `${prefix}${nsPath}/${r.name}/{name}/${sub.name}`, ops, nameOf: sub.kind });
  }
  return out;
}

/** Every path of a group version, the `<prefix>/` resource list first. */
function groupVersionPaths(gv: OpenAPIGroupVersion): PathOps[] {
  const prefix = gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
  const root: PathOps = {
    path: `${prefix}/`,
    ops: [
      {
        method: 'get',
        description: 'get available resources',
        operationId: `get${gvNames(gv.group, gv.version).op}APIResources`,
        params: [],
        responses: [['200', 'OK', meta('APIResourceList')]],
        produces: objectTypes,
        consumes: ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'],
      },
    ],
  };
  return [root, ...gv.resources.flatMap((r) => resourcePaths(gv, r))];
}

/** Parameter keys of an operation, path parameters included, sorted by name as upstream. */
function opParams(p: PathOps, op: Operation): string[] {
  // The group version's resource list takes no parameters.
  const keys = op.action ? [...op.params, 'pretty'] : [...op.params];
  if (p.path.includes('{namespace}')) keys.push('namespace');
  if (p.path.includes('{name}')) keys.push('name');
  return keys;
}

const paramName = (key: string) => (key === 'name' ? 'name' : param(key).name);

/** Splits parameters into the path's common ones (on every operation) and each operation's own, as kube-openapi does. */
function splitParams(p: PathOps): { common: string[]; own: Map<Operation, string[]> } {
  const all = p.ops.map((op) => opParams(p, op));
  const common = all[0]!.filter((k) => all.every((list) => list.includes(k)));
  const own = new Map<Operation, string[]>();
  p.ops.forEach((op, i) =>
    own.set(
      op,
      all[i]!.filter((k) => !common.includes(k)),
    ),
  );
  const byName = (a: string, b: string) => (paramName(a) < paramName(b) ? -1 : paramName(a) > paramName(b) ? 1 : 0);
  common.sort(byName);
  for (const list of own.values()) list.sort(byName);
  return { common, own };
}

function v2Param(key: string, nameOf?: string): Record<string, unknown> {
  if (key === 'name')
    return {
      description: `name of the ${nameOf}`,
      in: 'path',
      name: 'name',
      required: true,
      type: 'string',
      uniqueItems: true,
    };
  return { ...param(key) };
}

function v3Param(key: string, nameOf?: string): Record<string, unknown> {
  const { type, uniqueItems, ...rest } = v2Param(key, nameOf);
  return { ...rest, schema: { type, uniqueItems } };
}

const ref3 = (name: string) => ({ $ref: refPrefix + name });
const ref2 = (name: string) => ({ $ref: `#/definitions/${name}` });

function v3Operation(op: Operation, own: string[], nameOf: string | undefined, tag: string): Record<string, unknown> {
  const o: Record<string, unknown> = { description: op.description, operationId: op.operationId };
  if (own.length) o.parameters = own.map((k) => v3Param(k, nameOf));
  if (op.body) {
    const content: Record<string, unknown> = {};
    for (const t of op.body.types) content[t] = { schema: ref3(op.body.definition) };
    o.requestBody = { content };
  }
  const responses: Record<string, unknown> = {};
  for (const [code, description, def] of op.responses) {
    const content: Record<string, unknown> = {};
    for (const t of op.produces) content[t] = { schema: ref3(def!) };
    responses[code] = { content, description };
  }
  responses['401'] = { description: 'Unauthorized' };
  o.responses = responses;
  o.tags = [tag];
  if (op.action) o['x-kubernetes-action'] = op.action;
  if (op.gvk) o['x-kubernetes-group-version-kind'] = op.gvk;
  return o;
}

function v2Operation(op: Operation, own: string[], nameOf: string | undefined, tag: string): Record<string, unknown> {
  const o: Record<string, unknown> = {
    consumes: op.body ? (op.body.types === patchTypes ? v2PatchTypes : op.body.types) : (op.consumes ?? ['*/*']),
    description: op.description,
    operationId: op.operationId,
  };
  const ps = own.map((k) => v2Param(k, nameOf));
  if (op.body) {
    const body: Record<string, unknown> = { in: 'body', name: 'body' };
    if (op.body.required) body.required = true;
    body.schema = ref2(op.body.definition);
    ps.unshift(body);
  }
  if (ps.length) o.parameters = ps;
  o.produces = [...op.produces].sort(mediaOrder);
  const responses: Record<string, unknown> = {};
  for (const [code, description, def] of op.responses) responses[code] = { description, schema: ref2(def!) };
  responses['401'] = { description: 'Unauthorized' };
  o.responses = responses;
  o.schemes = ['https'];
  o.tags = [tag];
  if (op.action) o['x-kubernetes-action'] = op.action;
  if (op.gvk) o['x-kubernetes-group-version-kind'] = op.gvk;
  return o;
}

// Upstream's produces order: json, yaml, protobuf, then the streaming types.
const produceRank = (t: string) =>
  [
    'application/json',
    'application/yaml',
    'application/vnd.kubernetes.protobuf',
    'application/json;stream=watch',
    'application/vnd.kubernetes.protobuf;stream=watch',
  ].indexOf(t);
const mediaOrder = (a: string, b: string) => produceRank(a) - produceRank(b);

/** The definitions of a group version's resources: theirs first, then the built-in ones. */
function lookupFor(gvs: readonly OpenAPIGroupVersion[], v2: boolean): (name: string) => SchemaObject | undefined {
  const own = new Map<string, SchemaObject>();
  for (const gv of gvs)
    for (const r of gv.resources) {
      const defs = (v2 ? r.openAPI?.v2Definitions : undefined) ?? r.openAPI?.definitions ?? {};
      for (const [k, v] of Object.entries(defs)) own.set(k, v);
    }
  return (name) => own.get(name) ?? builtinDefinition(name);
}

/**
 * The schema of a kind nothing describes (a custom resource whose CRD has no schema yet): an
 * object that keeps unknown fields, with the standard metadata, as upstream builds for CRDs
 * without a structural schema.
 */
function placeholderSchema(gvk: GroupVersionKind, list: boolean, item?: string): SchemaObject {
  const gvkExt = { 'x-kubernetes-group-version-kind': [gvk] };
  const typeMeta = { apiVersion: { type: 'string' }, kind: { type: 'string' } };
  if (list)
    return {
      description: `${gvk.kind} is a list of ${gvk.kind.replace(/List$/, '')}`,
      properties: {
        ...typeMeta,
        items: { items: ref3(item!), type: 'array' },
        metadata: { allOf: [ref3(meta('ListMeta'))] },
      },
      required: ['items'],
      type: 'object',
      ...gvkExt,
    };
  return {
    properties: { ...typeMeta, metadata: { allOf: [ref3(meta('ObjectMeta'))] } },
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
    ...gvkExt,
  };
}

function schemasFor(gvs: readonly OpenAPIGroupVersion[], pathOps: PathOps[], v2 = false): Record<string, SchemaObject> {
  const base = lookupFor(gvs, v2);
  const placeholders = new Map<string, SchemaObject>();
  for (const gv of gvs)
    for (const r of gv.resources) {
      const names = resourceDefinitionNames(gv.group, gv.version, r);
      if (!base(names.kind))
        placeholders.set(names.kind, placeholderSchema({ group: gv.group, version: gv.version, kind: r.kind }, false));
      if (!base(names.list))
        placeholders.set(
          names.list,
          placeholderSchema({ group: gv.group, version: gv.version, kind: `${r.kind}List` }, true, names.kind),
        );
    }
  const lookup = (name: string) => base(name) ?? placeholders.get(name);
  const roots = new Set<string>();
  for (const p of pathOps)
    for (const op of p.ops) {
      if (op.body) roots.add(op.body.definition);
      for (const [, , def] of op.responses) if (def) roots.add(def);
    }
  const closure = definitionClosure(roots, lookup);
  return Object.fromEntries(
    Object.keys(closure)
      .sort()
      .map((k) => [k, closure[k]!]),
  );
}

export interface DocumentInfo {
  /** `info.version` (the server's gitVersion, as kube-apiserver). */
  version: string;
}

/** The OpenAPI v3 document of one group version (`/openapi/v3/apis/<group>/<version>`). */
export function buildV3Document(gv: OpenAPIGroupVersion, info: DocumentInfo): Record<string, unknown> {
  const { tag } = gvNames(gv.group, gv.version);
  const pathOps = groupVersionPaths(gv);
  const paths: Record<string, unknown> = {};
  for (const p of [...pathOps].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const { common, own } = splitParams(p);
    const item: Record<string, unknown> = {};
    for (const op of p.ops) item[op.method] = v3Operation(op, own.get(op)!, p.nameOf, tag);
    if (common.length) item.parameters = common.map((k) => v3Param(k, p.nameOf));
    paths[p.path] = sortedKeys(item);
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: info.version },
    paths,
    components: {
      schemas: schemasFor([gv], pathOps),
      securitySchemes: {
        BearerToken: {
          description: 'Bearer Token authentication',
          in: 'header',
          name: 'authorization',
          type: 'apiKey',
        },
      },
    },
  };
}

/** v3 → swagger 2.0 schema: `#/definitions/` references, a described reference as `$ref` with siblings, int-or-string as a string. */
export function toV2Schema(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(toV2Schema);
  if (!s || typeof s !== 'object') return s;
  const o = s as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === '$ref' && typeof v === 'string') out.$ref = v.replace(refPrefix, '#/definitions/');
    else if (k === 'properties' || k === 'patternProperties' || k === 'definitions')
      out[k] = Object.fromEntries(Object.entries(v as object).map(([p, x]) => [p, toV2Schema(x)]));
    else if (k === 'x-kubernetes-group-version-kind' || k === 'enum' || k === 'required' || k === 'default') out[k] = v;
    else out[k] = toV2Schema(v);
  }
  const allOf = out.allOf as Record<string, unknown>[] | undefined;
  if (allOf?.length === 1 && typeof allOf[0]!.$ref === 'string') {
    delete out.allOf;
    return { $ref: allOf[0]!.$ref, ...out };
  }
  if ((o.format === 'int-or-string' || o.format === 'quantity') && Array.isArray(o.oneOf)) {
    delete out.oneOf;
    out.type = 'string';
  }
  return out;
}

/** The swagger 2.0 document of every group version (`/openapi/v2`). */
export function buildV2Document(gvs: readonly OpenAPIGroupVersion[], info: DocumentInfo): Record<string, unknown> {
  const allOps: PathOps[] = [];
  const paths: Record<string, unknown> = {};
  const entries: [string, PathOps, string][] = [];
  for (const gv of gvs) {
    const { tag } = gvNames(gv.group, gv.version);
    for (const p of groupVersionPaths(gv)) {
      allOps.push(p);
      entries.push([p.path, p, tag]);
    }
  }
  entries.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  for (const [path, p, tag] of entries) {
    const { common, own } = splitParams(p);
    const item: Record<string, unknown> = {};
    for (const op of p.ops) item[op.method] = v2Operation(op, own.get(op)!, p.nameOf, tag);
    if (common.length) item.parameters = common.map((k) => v2Param(k, p.nameOf));
    paths[path] = sortedKeys(item);
  }
  return {
    definitions: toV2Schema(schemasFor(gvs, allOps, true)),
    info: { title: 'Kubernetes', version: info.version },
    paths,
    security: [{ BearerToken: [] }],
    securityDefinitions: {
      BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' },
    },
    swagger: '2.0',
  };
}
