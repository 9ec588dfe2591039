// Serving the custom resources of one CRD (k8s.io/apiextensions-apiserver/pkg/apiserver/
// customresource_handler.go and pkg/registry/customresource): one storage under
// `/registry/<group>/<plural>`, one registry Store per served version over it (apiVersion
// rewritten between the served and the storage version: conversion `None`; defaults applied on
// read), request bodies decoded → pruned → defaulted → validated, the /status and /scale
// subresources, Table output from the printer columns.

import { decodeCreateBody, readBody, type KindInfo } from '../endpoints/handlers/decode.ts';
import {
  newBadRequest,
  newInvalid,
  newMethodNotSupported,
  newNotFound,
  type GroupResource,
} from '../endpoints/apierrors.ts';
import type { RequestContext } from '../endpoints/request/context.ts';
import { addWarning } from '../endpoints/request/warning.ts';
import { StatusError } from '../endpoints/responsewriters/status.ts';
import { writeObjectNegotiated } from '../endpoints/responsewriters/writers.ts';
import { Store, type KubeObject, type Strategy, type UpdateOptions } from '../registry/generic/store.ts';
import type { AdmissionChain } from '../admission/chain.ts';
import { logRequestObject, logResponseObject } from '../audit/context.ts';
import type { Attributes, Operation } from '../admission/interfaces.ts';
import type {
  DeleteOptions,
  GetOptions,
  Interface,
  ListOptions,
  ListResult,
  Preconditions,
  StorageObject,
  UpdateFunc,
  ValidateObjectFunc,
  WatchEvent,
  WatchInterface,
} from '../storage/interfaces.ts';
import { applyJSONPatch, decodePatch, JSONPatchError } from '../util/patch/jsonpatch.ts';
import { applyMergePatch } from '../util/patch/mergepatch.ts';
import { invalid, Path, type ErrorList } from '../util/validation/field.ts';
import { objectMetaFields } from '../endpoints/handlers/decode.ts';
import { sameJSON } from '../util/validation/objectmeta.ts';
import { applyDefaults, prune, pruneNonNullableNullsWithoutDefaults } from './schema/pruning.ts';
import { newStructural, type JSONSchemaProps, type Structural } from './schema/structural.ts';
import { validateCustomResource, validateListSetsAndMaps } from './schema/validation.ts';
import { customResourceOpenAPI } from './openapi.ts';
import { patchResource, requestManager, resetTo, type PatchScope } from '../endpoints/handlers/patch.ts';
import { FieldManager, FieldManagerError } from '../util/managedfields/fieldmanager.ts';
import type { OpenAPISchema, TypeSchema } from '../util/managedfields/schema.ts';
import { objectMetaName } from '../util/managedfields/objectmeta.ts';
import { definitionClosure } from '../endpoints/openapi/schemas.ts';
import { newTableConvertor } from './tableconvertor.ts';
import type { CRDVersion, CustomResourceDefinition, ScaleSubresource } from './types.ts';
import type { ResourceDefinition } from '../registry/rest/registry.ts';
import { fieldLabelConversion } from '../registry/generic/fieldlabels.ts';
import { appendAll } from '../util/append.ts';
import { thenMaybe, type MaybePromise } from '../util/maybe-promise.ts';
import { exceedsJSONNestingDepth, parseJSONWithinDepth } from '../util/nesting-depth.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One served version of a CRD. */
export interface ServedVersion {
  version: string;
  apiVersion: string;
  kind: string;
  listKind: string;
  schema?: JSONSchemaProps;
  structural?: Structural;
  statusEnabled: boolean;
  scale?: ScaleSubresource;
  store: Store;
  statusStore?: Store;
  kindInfo: KindInfo;
  /** The version's schema as server-side apply walks it (list types, map keys, ObjectMeta). */
  typeSchema: TypeSchema;
  fieldManager: FieldManager;
  statusFieldManager?: FieldManager;
}

// --- storage: conversion None + defaulting on read ---

/**
 * The storage a served version sees: objects written with the storage version's apiVersion, read
 * back with the served one and the served version's defaults (crdConversionRESTOptionsGetter).
 */
export class CustomResourceStorage implements Interface {
  private readonly inner: Interface;
  private readonly servedAPIVersion: string;
  private readonly storageAPIVersion: string;
  private readonly structural?: Structural;

  constructor(inner: Interface, servedAPIVersion: string, storageAPIVersion: string, structural?: Structural) {
    this.inner = inner;
    this.servedAPIVersion = servedAPIVersion;
    this.storageAPIVersion = storageAPIVersion;
    this.structural = structural;
  }

  /** Never changes `o` (it may be the watch cache's object): defaults are applied to a clone. */
  private out<T extends StorageObject | undefined>(o: T): T {
    if (!o) return o;
    const c = structuredClone(o) as StorageObject;
    c.apiVersion = this.servedAPIVersion;
    if (this.structural) {
      pruneNonNullableNullsWithoutDefaults(c, this.structural);
      applyDefaults(c, this.structural);
    }
    return c as T;
  }

  private in(o: StorageObject): StorageObject {
    const c = structuredClone(o);
    c.apiVersion = this.storageAPIVersion;
    return c;
  }

  // readOnly is forwarded: out() clones before it defaults, so the inner store may share what it
  // wrote with its watchers.
  async create(
    key: string,
    obj: StorageObject,
    ttl?: number,
    opts?: Pick<GetOptions, 'readOnly'>,
  ): Promise<StorageObject> {
    return this.out(await this.inner.create(key, this.in(obj), ttl, opts));
  }

  async delete(
    key: string,
    preconditions?: Preconditions,
    validateDeletion?: ValidateObjectFunc,
    cachedExistingObject?: StorageObject,
    opts?: DeleteOptions,
  ): Promise<StorageObject> {
    const validate = validateDeletion ? (o: StorageObject) => validateDeletion(this.out(o)) : undefined;
    const cached = cachedExistingObject ? this.in(cachedExistingObject) : undefined;
    return this.out(await this.inner.delete(key, preconditions, validate, cached, opts));
  }

  async watch(key: string, opts: ListOptions): Promise<WatchInterface> {
    const w = await this.inner.watch(key, opts);
    const out = (o: StorageObject) => this.out(o);
    return {
      stop: () => w.stop(),
      [Symbol.asyncIterator]() {
        const it = w[Symbol.asyncIterator]();
        return {
          async next(): Promise<IteratorResult<WatchEvent>> {
            const r = await it.next();
            if (r.done) return r;
            const ev = r.value;
            if (ev.type === 'BOOKMARK' || ev.type === 'ERROR') return r;
            return { done: false, value: { type: ev.type, object: out(ev.object) } };
          },
          async return(): Promise<IteratorResult<WatchEvent>> {
            w.stop();
            return (await it.return?.()) ?? { done: true, value: undefined };
          },
        };
      },
    };
  }

  get(key: string, opts?: GetOptions): MaybePromise<StorageObject | undefined> {
    return thenMaybe(this.inner.get(key, opts), (o) => this.out(o));
  }

  async getList(key: string, opts: ListOptions): Promise<ListResult> {
    const r = await this.inner.getList(key, opts);
    return { ...r, items: r.items.map((i) => this.out(i)) };
  }

  guaranteedUpdate(
    key: string,
    ignoreNotFound: boolean,
    preconditions: Preconditions | undefined,
    tryUpdate: UpdateFunc,
    cachedExistingObject?: StorageObject,
    opts?: Pick<GetOptions, 'readOnly'>,
  ): Promise<StorageObject> {
    return this.inner
      .guaranteedUpdate(
        key,
        ignoreNotFound,
        preconditions,
        async (input, res) => {
          const r = await tryUpdate(res.resourceVersion > 0 ? this.out(input) : input, res);
          return { ...r, object: this.in(r.object) };
        },
        cachedExistingObject ? this.in(cachedExistingObject) : undefined,
        opts,
      )
      .then((o) => this.out(o));
  }

  stats() {
    return this.inner.stats();
  }
  readinessCheck() {
    return this.inner.readinessCheck();
  }
  getCurrentResourceVersion() {
    return this.inner.getCurrentResourceVersion();
  }
  compactRevision() {
    return this.inner.compactRevision();
  }
}

// --- strategy (pkg/registry/customresource/strategy.go, validator.go) ---

function nestedInt(obj: unknown, path: string): { value?: number; err?: string } {
  let cur: unknown = obj;
  const parts = path.replace(/^\./, '').split('.');
  for (const p of parts) {
    if (!isObject(cur) || !Object.hasOwn(cur, p)) return {};
    cur = cur[p];
  }
  if (typeof cur !== 'number' || !Number.isInteger(cur))
    return {
      err: `${parts.join('.')} accessor error: ${JSON.stringify(cur)} is of the type ${goTypeName(cur)}, expected int64`,
    };
  return { value: cur };
}

function goTypeName(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  if (v === null) return '<nil>';
  return 'map[string]interface {}';
}

function validateReplicas(obj: unknown, path: string | undefined): ErrorList {
  if (!path) return [];
  const { value, err } = nestedInt(obj, path);
  if (err) return [invalid(Path.of(path), 0, err)];
  if (value === undefined) return [];
  if (value < 0) return [invalid(Path.of(path), value, 'should be a non-negative integer')];
  if (value > 2147483647) return [invalid(Path.of(path), value, 'should be less than or equal to 2147483647')];
  return [];
}

function validateTypeMeta(obj: KubeObject, apiVersion: string, kind: string): ErrorList {
  const errs: ErrorList = [];
  if (obj.kind !== kind) errs.push(invalid(Path.of('kind'), obj.kind ?? '', `must be ${kind}`));
  if (obj.apiVersion !== apiVersion)
    errs.push(invalid(Path.of('apiVersion'), obj.apiVersion ?? '', `must be ${apiVersion}`));
  return errs;
}

const withoutMetadata = (o: KubeObject) => {
  const { metadata: _m, ...rest } = o;
  return rest;
};

function crStrategy(v: VersionBase, namespaced: boolean): Strategy {
  const validate = (obj: KubeObject): ErrorList => {
    const tm = validateTypeMeta(obj, v.apiVersion, v.kind);
    if (tm.length) return tm;
    const errs: ErrorList = [];
    if (v.schema) appendAll(errs, validateCustomResource(undefined, obj, v.schema));
    appendAll(errs, validateListSetsAndMaps(undefined, v.structural, obj));
    if (v.scale) {
      appendAll(errs, validateReplicas(obj, v.scale.specReplicasPath));
      appendAll(errs, validateReplicas(obj, v.scale.statusReplicasPath));
    }
    return errs;
  };
  return {
    namespaceScoped: namespaced,
    // crConverter.ConvertFieldLabel (apiextensions-apiserver/pkg/apiserver/conversion/converter.go).
    convertFieldLabel: fieldLabelConversion(namespaced ? ['metadata.name', 'metadata.namespace'] : ['metadata.name']),
    prepareForCreate(obj) {
      if (v.statusEnabled) delete obj.status;
      obj.metadata.generation = 1;
    },
    prepareForUpdate(obj, old) {
      if (v.statusEnabled) {
        if (old.status === undefined) delete obj.status;
        else obj.status = structuredClone(old.status);
      }
      if (!sameJSON(withoutMetadata(obj), withoutMetadata(old)))
        obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
    },
    validate,
    validateUpdate: (obj) => validate(obj),
  };
}

function statusStrategy(v: VersionBase, namespaced: boolean, resource: GroupResource): Strategy {
  return {
    namespaceScoped: namespaced,
    // Nothing is created through /status (an apply there of a missing object is a 404).
    prepareForCreate(obj) {
      throw newNotFound(resource, obj.metadata.name ?? '');
    },
    prepareForUpdate(obj, old) {
      // Only status (and metadata) may change through /status.
      const status = obj.status;
      for (const k of Object.keys(obj)) if (k !== 'metadata' && k !== 'status') delete obj[k];
      for (const [k, val] of Object.entries(old)) if (k !== 'metadata' && k !== 'status') obj[k] = structuredClone(val);
      if (status === undefined) delete obj.status;
      obj.metadata.generation = old.metadata.generation;
    },
    validateUpdate(obj) {
      const tm = validateTypeMeta(obj, v.apiVersion, v.kind);
      if (tm.length) return tm;
      const errs: ErrorList = [];
      const statusSchema = v.schema?.properties?.status;
      if (obj.status !== undefined && statusSchema)
        appendAll(errs, validateCustomResource(Path.of('status'), obj.status, statusSchema));
      if (v.scale) appendAll(errs, validateReplicas(obj, v.scale.statusReplicasPath));
      return errs;
    },
  };
}

/** The version's subresources and columns (per version, as v1 has them). */
export function versionSchema(v: CRDVersion): JSONSchemaProps | undefined {
  return v.schema?.openAPIV3Schema;
}

export interface ServingStorage {
  /** The one storage of the resource (under its watch cache). */
  storage: Interface;
  resourcePrefix: string;
}

type VersionBase = Omit<
  ServedVersion,
  'store' | 'statusStore' | 'kindInfo' | 'typeSchema' | 'fieldManager' | 'statusFieldManager'
>;

function versionBase(crd: CustomResourceDefinition, cv: CRDVersion): VersionBase {
  const names = crd.spec.names!;
  const schema = versionSchema(cv);
  let structural: Structural | undefined;
  try {
    structural = newStructural(schema);
  } catch {
    structural = undefined;
  }
  return {
    version: cv.name!,
    apiVersion: `${crd.spec.group}/${cv.name}`,
    kind: names.kind!,
    listKind: names.listKind!,
    schema,
    structural,
    statusEnabled: cv.subresources?.status !== undefined,
    scale: cv.subresources?.scale,
  };
}

const unstructuredKind = (crd: CustomResourceDefinition, v: string): KindInfo => ({
  group: crd.spec.group!,
  version: v,
  kind: crd.spec.names!.kind!,
  schema: {},
  fields: {},
  unstructured: true,
});

export const customResourceVerbs = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

/**
 * The registry entry of a CRD: its storage version over `/<group>/<plural>` (what namespace
 * deletion, garbage collection and authorizers see; clients are served through servedVersions).
 */
export function storageDefinition(crd: CustomResourceDefinition): ResourceDefinition {
  const cv = crd.spec.versions!.find((x) => x.storage)!;
  const base = versionBase(crd, cv);
  const names = crd.status?.acceptedNames?.plural ? crd.status.acceptedNames : crd.spec.names!;
  const namespaced = crd.spec.scope === 'Namespaced';
  return {
    group: crd.spec.group!,
    version: cv.name!,
    resource: {
      name: crd.spec.names!.plural!,
      singularName: names.singular ?? '',
      namespaced,
      kind: base.kind,
      verbs: customResourceVerbs,
      shortNames: names.shortNames,
      categories: names.categories,
    },
    listKind: base.listKind,
    strategy: crStrategy(base, namespaced),
    kindInfo: unstructuredKind(crd, cv.name!),
    table: newTableConvertor(cv.additionalPrinterColumns),
    custom: true,
    // The OpenAPI controllers' specs (pkg/controller/openapi, openapiv3): one per served version.
    openAPI: customResourceOpenAPI(crd, cv.name!),
    openAPIVersions: Object.fromEntries(
      (crd.spec.versions ?? [])
        .filter((v) => v.served && v.name)
        .map((v) => [v.name!, customResourceOpenAPI(crd, v.name!)]),
    ),
  };
}

/** Builds the served versions of a CRD over its storage. */
export function servedVersions(crd: CustomResourceDefinition, st: ServingStorage): Map<string, ServedVersion> {
  const g = crd.spec.group!;
  const names = crd.spec.names!;
  const namespaced = crd.spec.scope === 'Namespaced';
  const storageVersion = crd.spec.versions!.find((x) => x.storage)!.name!;
  const out = new Map<string, ServedVersion>();
  for (const cv of crd.spec.versions ?? []) {
    if (!cv.served || !cv.name) continue;
    const base = versionBase(crd, cv);
    const storage = new CustomResourceStorage(st.storage, base.apiVersion, `${g}/${storageVersion}`, base.structural);
    const common = {
      qualifiedResource: { group: g, resource: names.plural! },
      apiVersion: base.apiVersion,
      kind: base.kind,
      listKind: base.listKind,
      storage,
      resourcePrefix: st.resourcePrefix,
      tableConvertor: newTableConvertor(cv.additionalPrinterColumns),
    };
    const store = new Store({ ...common, strategy: crStrategy(base, namespaced) });
    const statusStore = base.statusEnabled
      ? new Store({ ...common, strategy: statusStrategy(base, namespaced, common.qualifiedResource) })
      : undefined;
    const typeSchema = customResourceTypeSchema(crd, cv.name);
    const fm = (subresource?: string) =>
      new FieldManager({ schema: typeSchema, apiVersion: base.apiVersion, kind: base.kind, subresource });
    out.set(cv.name, {
      ...base,
      store,
      statusStore,
      kindInfo: unstructuredKind(crd, cv.name),
      typeSchema,
      fieldManager: fm(),
      statusFieldManager: base.statusEnabled ? fm('status') : undefined,
    });
  }
  return out;
}

/** The schema the field manager walks: the version's OpenAPI kind with ObjectMeta and what it references. */
function customResourceTypeSchema(crd: CustomResourceDefinition, version: string): TypeSchema {
  const openAPI = customResourceOpenAPI(crd, version);
  const own = openAPI.definitions!;
  const definitions = { ...definitionClosure([objectMetaName]), ...own } as Record<string, OpenAPISchema>;
  return { root: own[openAPI.name] as OpenAPISchema, definitions };
}

// --- request bodies (unstructuredSchemaCoercer.apply) ---

type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

function fieldValidation(ctx: RequestContext): FieldValidation {
  const v = ctx.url.searchParams.get('fieldValidation') ?? '';
  return v === 'Ignore' || v === 'Strict' ? v : 'Warn';
}

/** Unknown metadata keys (GetObjectMetaWithOptions' strict decode), dropped. */
function coerceMetadata(obj: Record<string, unknown>): string[] {
  const m = obj.metadata;
  if (!isObject(m)) return [];
  const unknown: string[] = [];
  for (const k of Object.keys(m))
    if (!Object.hasOwn(objectMetaFields, k)) {
      unknown.push(`metadata.${k}`);
      delete m[k];
    }
  return unknown;
}

/**
 * Prunes, drops non-nullable nulls and defaults a decoded body in place; the unknown field paths
 * are a 400 with fieldValidation=Strict and warnings with Warn (the default).
 */
export function coerce(ctx: RequestContext, v: ServedVersion, obj: Record<string, unknown>): void {
  const unknown = pruneObject(v, obj);
  const mode = fieldValidation(ctx);
  if (unknown.length && mode === 'Strict')
    throw newBadRequest(
      `${v.kind} in version ${JSON.stringify(v.version)} cannot be handled as a ${v.kind}: strict decoding error: ${unknown
        .map((u) => `unknown field ${JSON.stringify(u)}`)
        .join(', ')}`,
    );
  if (mode === 'Warn') for (const u of unknown) addWarning(ctx, '', `unknown field ${JSON.stringify(u)}`);
  if (v.structural) applyDefaults(obj, v.structural);
}

/** Prunes (unknown metadata too) and drops non-nullable nulls; answers the pruned paths. */
function pruneObject(v: ServedVersion, obj: Record<string, unknown>): string[] {
  const unknown = coerceMetadata(obj);
  if (v.structural) {
    appendAll(unknown, prune(obj, v.structural, true));
    pruneNonNullableNullsWithoutDefaults(obj, v.structural);
  }
  return unknown;
}

/** The decode of a patched object (patchResource's coerce): pruned and defaulted, the pruned paths answered. */
function coercePatched(v: ServedVersion, obj: Record<string, unknown>): string[] {
  const unknown = pruneObject(v, obj);
  if (v.structural) applyDefaults(obj, v.structural);
  return unknown;
}

/**
 * An apply configuration may only name fields the schema declares: structured-merge-diff's typed
 * conversion refuses the others (managedfields/internal/structuredmerge.go Apply).
 */
function checkApplyConfiguration(v: ServedVersion, patch: KubeObject): void {
  if (patch.apiVersion !== v.apiVersion || patch.kind !== v.kind) return; // the field manager's versioncheck says so
  const undeclared = pruneObject(v, structuredClone(patch) as Record<string, unknown>);
  if (!undeclared.length) return;
  const errs = undeclared.map((p) => `.${p}: field not declared in schema`);
  const meta = isObject(patch.metadata) ? patch.metadata : {};
  const nn = `${typeof meta.namespace === 'string' ? meta.namespace : ''}/${typeof meta.name === 'string' ? meta.name : ''}`;
  throw new FieldManagerError(
    `failed to create typed patch object (${nn}; ${v.apiVersion}, Kind=${v.kind}): ${
      errs.length === 1 ? errs[0] : ['errors:', ...errs.map((e) => `  ${e}`)].join('\n')
    }`,
    500,
  );
}

/** GetResetFields of the custom resource strategies: status on the main resource (with /status), spec on /status. */
const resetFieldsOf = (v: ServedVersion, status: boolean): string[] =>
  status ? ['spec'] : v.statusEnabled ? ['status'] : [];

function patchScope(v: ServedVersion, store: Store, fieldManager: FieldManager, o: WriteOptions): PatchScope {
  return {
    resetFields: resetFieldsOf(v, store === v.statusStore),
    store,
    maxRequestBodyBytes: o.maxRequestBodyBytes,
    strategicMergePatch: false,
    typeSchema: v.typeSchema,
    fieldManager,
    coerce: (obj) => coercePatched(v, obj),
    checkApplyConfiguration: (patch) => checkApplyConfiguration(v, patch),
  };
}

async function decodeBody(ctx: RequestContext, v: ServedVersion, maxBytes: number): Promise<KubeObject> {
  const obj = await decodeCreateBody(ctx, v.kindInfo, maxBytes);
  logRequestObject(ctx, obj);
  coerce(ctx, v, obj);
  return obj as KubeObject;
}

function dryRun(ctx: RequestContext): boolean {
  const values = ctx.url.searchParams.getAll('dryRun');
  for (const x of values)
    if (x !== 'All') throw newBadRequest(`dryRun: Unsupported value: ${JSON.stringify(x)}: supported values: "All"`);
  return values.length > 0;
}

function checkName(obj: KubeObject, name: string): void {
  const bodyName = obj.metadata?.name ?? '';
  if (bodyName !== name)
    throw newBadRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
}

const crPatchTypes = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

/** Reads a JSON or merge patch (custom resources take no strategic merge patch: 415). */
async function readPatch(ctx: RequestContext, maxBytes: number): Promise<{ type: string; patch: unknown }> {
  const type = (ctx.request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (!crPatchTypes.includes(type) || type === 'application/apply-patch+yaml')
    throw new StatusError({
      status: 'Failure',
      message: `the body of the request was in an unknown format - accepted media types include: ${crPatchTypes.join(', ')}`,
      reason: 'UnsupportedMediaType',
      code: 415,
    });
  const text = new TextDecoder().decode(await readBody(ctx, maxBytes));
  let patch: unknown;
  try {
    patch = JSON.parse(text);
  } catch (err) {
    throw newBadRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (exceedsJSONNestingDepth(text)) throw newBadRequest('invalid JSON patch');
  return { type, patch };
}

function applyPatch(current: KubeObject, p: { type: string; patch: unknown }): KubeObject {
  let out: unknown;
  try {
    if (p.type === 'application/json-patch+json') {
      const ops = decodePatch(p.patch);
      if (typeof ops === 'string') throw newBadRequest(ops);
      if (ops.length > 10000)
        throw new StatusError({
          status: 'Failure',
          message: `The allowed maximum operations in a JSON patch is 10000, got ${ops.length}`,
          reason: 'RequestEntityTooLarge',
          code: 413,
        });
      out = applyJSONPatch(current as never, ops);
    } else {
      if (!isObject(p.patch))
        throw newBadRequest(
          `json: cannot unmarshal ${Array.isArray(p.patch) ? 'array' : typeof p.patch} into Go value of type map[string]interface {}`,
        );
      out = applyMergePatch(current as never, p.patch as never);
    }
  } catch (err) {
    if (err instanceof JSONPatchError)
      throw new StatusError({ status: 'Failure', message: err.message, reason: 'Invalid', code: 422 });
    throw err;
  }
  if (!isObject(out))
    throw new StatusError({
      status: 'Failure',
      message: 'patched object is not a JSON object',
      reason: 'Invalid',
      code: 422,
    });
  const obj = out as KubeObject;
  obj.metadata ??= {};
  if (!obj.metadata.resourceVersion) obj.metadata.resourceVersion = current.metadata.resourceVersion;
  return obj;
}

const respond = (ctx: RequestContext, obj: unknown, code: number) => {
  // audit.LogResponseObject, with the object as written.
  logResponseObject(ctx, obj);
  return writeObjectNegotiated(ctx.request, ctx.url, code, obj);
};

export interface WriteOptions {
  maxRequestBodyBytes: number;
  /** The server's admission chain (NamespaceLifecycle first). */
  admission?: AdmissionChain;
}

/** admission.NewAttributesRecord of a custom resource write. */
function attributes(
  ctx: RequestContext,
  store: Store,
  operation: Operation,
  namespace: string,
  name: string,
  dry: boolean,
  object?: KubeObject,
  oldObject?: KubeObject,
): Attributes {
  const { group, resource } = store.qualifiedResource;
  const version = store.apiVersion.slice(store.apiVersion.indexOf('/') + 1);
  return {
    operation,
    kind: { group, version, kind: store.kind },
    resource: { group, version, resource },
    subresource: ctx.requestInfo?.subresource ?? '',
    // A cluster-scoped object's namespace is dropped before it is stored (rest.BeforeCreate).
    namespace: store.namespaceScoped ? namespace : '',
    name,
    object,
    oldObject,
    dryRun: dry,
    userInfo: ctx.user,
  };
}

function updateOptions(ctx: RequestContext, store: Store, o: WriteOptions, ns: string, name: string): UpdateOptions {
  const dry = dryRun(ctx);
  const chain = o.admission;
  if (!chain) return { namespace: ns, dryRun: dry };
  const attrs = (obj: KubeObject, old: KubeObject | undefined) =>
    attributes(ctx, store, old ? 'UPDATE' : 'CREATE', ns, name, dry, obj, old);
  return {
    namespace: ns,
    dryRun: dry,
    admit: (obj, old) => chain.admit(attrs(obj, old)),
    validation: (obj, old) => chain.validate(attrs(obj, old)),
  };
}

/** create / update / patch of the main resource (the rest is the generic REST handler's). */
export async function serveWrite(ctx: RequestContext, v: ServedVersion, o: WriteOptions): Promise<Response> {
  const info = ctx.requestInfo!;
  const ns = info.namespace;
  switch (info.verb) {
    case 'create': {
      const obj = await decodeBody(ctx, v, o.maxRequestBodyBytes);
      v.fieldManager.update(undefined, obj, requestManager(ctx, 'CreateOptions'));
      const dry = dryRun(ctx);
      const attrs = (x: KubeObject) =>
        attributes(ctx, v.store, 'CREATE', x.metadata?.namespace || ns, x.metadata?.name ?? '', dry, x);
      await o.admission?.admit(attrs(obj));
      const validation = o.admission && ((x: KubeObject) => o.admission!.validate(attrs(x)));
      return respond(ctx, await v.store.create(obj, { namespace: ns, dryRun: dry, validation }), 201);
    }
    case 'update': {
      const obj = await decodeBody(ctx, v, o.maxRequestBodyBytes);
      checkName(obj, info.name);
      const manager = requestManager(ctx, 'UpdateOptions');
      const reset = resetFieldsOf(v, false);
      const r = await v.store.update(
        info.name,
        (existing) => {
          const next = structuredClone(obj);
          if (existing) resetTo(next, existing, reset);
          return v.fieldManager.update(existing, next, manager);
        },
        updateOptions(ctx, v.store, o, ns, info.name),
      );
      return respond(ctx, r.object, r.created ? 201 : 200);
    }
    case 'patch': {
      const scope = patchScope(v, v.store, v.fieldManager, o);
      const r = await patchResource(ctx, scope, ns, info.name, updateOptions(ctx, v.store, o, ns, info.name));
      return respond(ctx, r.object, r.created ? 201 : 200);
    }
  }
  throw new StatusError(newMethodNotSupported(v.store.qualifiedResource, info.verb).status);
}

/** /status: get, update and patch through the status strategy. */
export async function serveStatus(ctx: RequestContext, v: ServedVersion, o: WriteOptions): Promise<Response> {
  const info = ctx.requestInfo!;
  const store = v.statusStore!;
  const ns = info.namespace;
  switch (info.verb) {
    case 'get':
      return respond(ctx, await store.get(ns, info.name), 200);
    case 'update': {
      const obj = await decodeBody(ctx, v, o.maxRequestBodyBytes);
      checkName(obj, info.name);
      const manager = requestManager(ctx, 'UpdateOptions');
      const fm = v.statusFieldManager!;
      const r = await store.update(
        info.name,
        (existing) => {
          const next = structuredClone(obj);
          resetTo(next, existing, resetFieldsOf(v, true));
          return fm.update(existing, next, manager);
        },
        updateOptions(ctx, store, o, ns, info.name),
      );
      return respond(ctx, r.object, 200);
    }
    case 'patch': {
      const scope = patchScope(v, store, v.statusFieldManager!, o);
      // No create through /status (the status store's update never creates).
      const r = await patchResource(ctx, scope, ns, info.name, updateOptions(ctx, store, o, ns, info.name));
      return respond(ctx, r.object, 200);
    }
  }
  throw new StatusError(newMethodNotSupported(store.qualifiedResource, info.verb).status);
}

// --- /scale (pkg/registry/customresource/etcd.go ScaleREST) ---

function getPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const p of path.replace(/^\./, '').split('.')) {
    if (!isObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.replace(/^\./, '').split('.');
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    if (!isObject(cur[p])) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
}

function toScale(v: ServedVersion, obj: KubeObject): Record<string, unknown> {
  const scale = v.scale!;
  const spec = getPath(obj, scale.specReplicasPath ?? '');
  const status = getPath(obj, scale.statusReplicasPath ?? '');
  const selector = scale.labelSelectorPath ? getPath(obj, scale.labelSelectorPath) : undefined;
  const st: Record<string, unknown> = { replicas: typeof status === 'number' ? status : 0 };
  if (typeof selector === 'string' && selector) st.selector = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: obj.metadata.name,
      namespace: obj.metadata.namespace,
      uid: obj.metadata.uid,
      resourceVersion: obj.metadata.resourceVersion,
      creationTimestamp: obj.metadata.creationTimestamp,
    },
    spec: { replicas: typeof spec === 'number' ? spec : 0 },
    status: st,
  };
}

/** /scale: an autoscaling/v1 Scale over specReplicasPath / statusReplicasPath / labelSelectorPath. */
export async function serveScale(ctx: RequestContext, v: ServedVersion, o: WriteOptions): Promise<Response> {
  const info = ctx.requestInfo!;
  const ns = info.namespace;
  const scaleGR = { group: 'autoscaling', resource: 'scale' };
  if (info.verb === 'get') return respond(ctx, toScale(v, await v.store.get(ns, info.name)), 200);
  if (info.verb !== 'update' && info.verb !== 'patch')
    throw new StatusError(newMethodNotSupported(scaleGR, info.verb).status);
  const current = structuredClone(await v.store.get(ns, info.name));
  let scale: Record<string, unknown>;
  if (info.verb === 'update') {
    const text = new TextDecoder().decode(await readBody(ctx, o.maxRequestBodyBytes));
    try {
      scale = parseJSONWithinDepth(text) as Record<string, unknown>;
    } catch (err) {
      throw newBadRequest(
        `couldn't get version/kind; json parse error: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  } else {
    const p = await readPatch(ctx, o.maxRequestBodyBytes);
    scale = applyPatch(toScale(v, current) as KubeObject, p) as Record<string, unknown>;
  }
  const replicas = (scale.spec as { replicas?: unknown } | undefined)?.replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0)
    throw newInvalid({ group: 'autoscaling', kind: 'Scale' }, info.name, [
      invalid(Path.of('spec', 'replicas'), replicas ?? null, 'must be greater than or equal to 0'),
    ]);
  const rv = (scale.metadata as { resourceVersion?: string } | undefined)?.resourceVersion;
  if (rv) current.metadata.resourceVersion = rv;
  setPath(current, v.scale!.specReplicasPath!, replicas);
  const r = await v.store.update(info.name, current, updateOptions(ctx, v.store, o, ns, info.name));
  return respond(ctx, toScale(v, r.object), 200);
}

export function notFound(v: ServedVersion, name: string): StatusError {
  return newNotFound(v.store.qualifiedResource, name);
}
