// The REST handlers of one resource (k8s.io/apiserver/pkg/endpoints/handlers/{get,create,update,
// patch,delete,watch}.go): the verb comes from RequestInfo (resolved once by WithRequestInfo), the
// object from the registry Store. JSON and YAML in and out, Table for kubectl, watch as one JSON
// object per line, flushed per event.

import { stringify as toYAML } from 'yaml';
import { decodeCreateBody, readBody, type KindInfo } from './decode.ts';
import {
  SelectionPredicate,
  type ListOptions,
  type StorageObject,
  type WatchInterface,
} from '../../storage/interfaces.ts';
import { FieldSelectorParseError, parseFieldSelector } from '../../storage/selection/fields.ts';
import { defaultMetaV1FieldSelectorConversion, FieldLabelError } from '../../registry/generic/fieldlabels.ts';
import { parseLabelSelector, SelectorParseError } from '../../storage/selection/labels.ts';
import { patchResource, requestManager, type PatchScope } from './patch.ts';
import { FieldManager } from '../../util/managedfields/fieldmanager.ts';
import { typeSchemaFromFields } from '../../util/managedfields/objectmeta.ts';
import type { TypeSchema } from '../../util/managedfields/schema.ts';
import { ageColumn, type TableConvertor } from '../../registry/generic/table.ts';
import type { DeleteOptions, KubeObject, Store, UpdateOptions } from '../../registry/generic/store.ts';
import { newBadRequest, newInvalid, newMethodNotSupported } from '../apierrors.ts';
import { validateListOptions } from './listoptions.ts';
import type { RequestContext } from '../request/context.ts';
import type { RequestInfo } from '../request/requestinfo.ts';
import type { AdmissionChain } from '../../admission/chain.ts';
import { auditContextFrom, auditEnabled, logRequestObject, logResponseObject } from '../../audit/context.ts';
import type { Attributes, Operation } from '../../admission/interfaces.ts';
import {
  errorNegotiated,
  goJSON,
  isPrettyPrint,
  newNotFound as notFoundStatus,
  parseAccept,
  type Status,
} from '../responsewriters/status.ts';
import { deepCopyJSON } from '../../util/deepcopy.ts';
import { parseJSONWithinDepth } from '../../util/nesting-depth.ts';
import { thenMaybe, type MaybePromise } from '../../util/maybe-promise.ts';

export interface RESTOptions {
  store: Store;
  /** The decode rules of the kind (known fields, protobuf schema). */
  kindInfo: KindInfo;
  maxRequestBodyBytes: number;
  /** `--min-request-timeout`: a watch without timeoutSeconds lasts [min, 2·min) seconds. */
  minRequestTimeoutSeconds: number;
  /** The admission chain every write goes through (NamespaceLifecycle first). */
  admission?: AdmissionChain;
  /** The subresources served through the resource's Store (`status`, `finalize`) and their verbs. */
  subresources?: readonly { name: string; verbs: readonly string[] }[];
  /** A resource whose delete is its own (namespaces): answers the object it leaves behind. */
  deleteOverride?: (name: string) => Promise<KubeObject>;
  /**
   * The kind's OpenAPI v3 schema (patch strategies, merge keys, list and map types) for strategic
   * merge patch and server-side apply; without one only ObjectMeta's are known.
   */
  typeSchema?: TypeSchema;
  /** Strategic merge patch is accepted (built-in kinds; custom resources answer 415). Default true. */
  strategicMergePatch?: boolean;
}

/**
 * The handler of one resource: dispatches on RequestInfo.verb. A get that storage answers at once
 * (memory, SQLite) is answered synchronously, without a promise for every filter to wait on.
 */
export function restHandler(o: RESTOptions): (ctx: RequestContext) => MaybePromise<Response> {
  const { store } = o;
  const typeSchema = o.typeSchema ?? typeSchemaFromFields(Object.keys(o.kindInfo.fields));
  const fieldManager = new FieldManager({ schema: typeSchema, apiVersion: store.apiVersion, kind: store.kind });
  const patchScope = {
    store,
    maxRequestBodyBytes: o.maxRequestBodyBytes,
    strategicMergePatch: o.strategicMergePatch ?? true,
    typeSchema,
    fieldManager,
    kindInfo: o.kindInfo,
  };
  const serve = async (ctx: RequestContext, info: RequestInfo): Promise<Response> => {
    const ns = info.namespace;
    if (info.subresource) return subresourceResponse(ctx, o, patchScope, info.subresource, info.verb, ns, info.name);
    switch (info.verb) {
      case 'list':
        return listResponse(ctx, o, await store.list(ns, listOptions(ctx, o)));
      case 'watch':
        return watchResponse(ctx, o, await store.watch(ns, { ...listOptions(ctx, o, true), signal: ctx.signal }));
      case 'create': {
        const obj = (await decodeCreateBody(ctx, o.kindInfo, o.maxRequestBodyBytes)) as KubeObject;
        logRequestObject(ctx, obj);
        const manager = requestManager(ctx, 'CreateOptions');
        fieldManager.update(undefined, obj, manager);
        const dry = dryRun(ctx);
        const attrs = (object: KubeObject): Attributes =>
          admissionAttributes(
            ctx,
            o,
            'CREATE',
            // The URL's namespace; a body naming another is refused by the store (BeforeCreate).
            ns || object.metadata?.namespace || '',
            object.metadata?.name ?? '',
            dry,
            object,
          );
        await o.admission?.admit(attrs(obj));
        const validation = o.admission && ((v: KubeObject) => o.admission!.validate(attrs(v)));
        const out = await store.create(obj, { namespace: ns, dryRun: dry, validation, readOnly: true });
        return objectResponse(ctx, o, out, 201, true);
      }
      case 'update': {
        const obj = (await decodeCreateBody(ctx, o.kindInfo, o.maxRequestBodyBytes)) as KubeObject;
        logRequestObject(ctx, obj);
        checkName(obj, info.name, ns);
        const manager = requestManager(ctx, 'UpdateOptions');
        const r = await store.update(
          info.name,
          (existing) => fieldManager.update(existing, deepCopyJSON(obj), manager),
          updateOptions(ctx, o, ns, info.name),
        );
        return objectResponse(ctx, o, r.object, r.created ? 201 : 200, true);
      }
      case 'patch': {
        const r = await patchResource(ctx, patchScope, ns, info.name, updateOptions(ctx, o, ns, info.name));
        return objectResponse(ctx, o, r.object, r.created ? 201 : 200, true);
      }
      case 'delete': {
        const opts = await deleteOptions(ctx, o);
        if (o.admission) {
          const attrs = (old?: KubeObject) =>
            admissionAttributes(ctx, o, 'DELETE', ns, info.name, opts.dryRun, undefined, old);
          await o.admission.admit(attrs());
          opts.validation = (old) => o.admission!.validate(attrs(old));
        }
        if (o.deleteOverride && !opts.dryRun) return objectResponse(ctx, o, await o.deleteOverride(info.name), 200);
        const r = await store.delete(info.name, { namespace: ns, ...opts });
        if (!r.deleted) return objectResponse(ctx, o, r.object, 200);
        return statusResponse(ctx, {
          status: 'Success',
          details: {
            name: info.name,
            group: store.qualifiedResource.group || undefined,
            kind: store.qualifiedResource.resource,
            uid: r.object.metadata.uid,
          },
        });
      }
      case 'deletecollection': {
        const opts = await deleteOptions(ctx, o);
        if (o.admission) {
          const chain = o.admission;
          const attrs = (old: KubeObject) =>
            admissionAttributes(
              ctx,
              o,
              'DELETE',
              old.metadata.namespace ?? ns,
              old.metadata.name ?? '',
              opts.dryRun,
              undefined,
              old,
            );
          // Upstream admits the collection delete once, with no name, then validates each item.
          await chain.admit(admissionAttributes(ctx, o, 'DELETE', ns, '', opts.dryRun));
          opts.validation = (old) => chain.validate(attrs(old));
        }
        const list = await store.deleteCollection({ namespace: ns, ...opts }, listOptions(ctx, o));
        return listResponse(ctx, o, list);
      }
      default:
        return statusResponse(ctx, newMethodNotSupported(store.qualifiedResource, info.verb).status);
    }
  };
  return (ctx) => {
    const info = ctx.requestInfo;
    if (!info) return errorNegotiated(notFoundStatus(), ctx.request, ctx.url);
    if (info.verb !== 'get' || info.subresource) return serve(ctx, info);
    const rv = ctx.url.searchParams.get('resourceVersion') ?? undefined;
    return thenMaybe(store.get(info.namespace, info.name, rv, true), (obj) => objectResponse(ctx, o, obj, 200, true));
  };
}

/**
 * A subresource sharing the resource's Store (status, finalize): get reads the object, update and
 * patch write through the subresource's strategy. Other verbs have no route (go-restful's 405), an
 * unknown subresource none at all (404).
 */
async function subresourceResponse(
  ctx: RequestContext,
  o: RESTOptions,
  patchScope: PatchScope,
  sub: string,
  verb: string,
  ns: string,
  name: string,
): Promise<Response> {
  const served = o.subresources?.find((s) => s.name === sub);
  if (!served || !name) return errorNegotiated(notFoundStatus(), ctx.request, ctx.url);
  if (!served.verbs.includes(verb))
    return statusResponse(ctx, {
      status: 'Failure',
      message: 'the server does not allow this method on the requested resource',
      reason: 'MethodNotAllowed',
      details: { causes: [{ reason: 'UnexpectedServerResponse', message: '405: Method Not Allowed' }] },
      code: 405,
    });
  switch (verb) {
    case 'get':
      return objectResponse(ctx, o, await o.store.get(ns, name, undefined, true), 200, true);
    case 'update': {
      const obj = (await decodeCreateBody(ctx, o.kindInfo, o.maxRequestBodyBytes)) as KubeObject;
      logRequestObject(ctx, obj);
      checkName(obj, name, ns);
      const r = await o.store.update(name, obj, updateOptions(ctx, o, ns, name, sub));
      return objectResponse(ctx, o, r.object, 200, true);
    }
    default: {
      const r = await patchResource(ctx, patchScope, ns, name, updateOptions(ctx, o, ns, name, sub));
      return objectResponse(ctx, o, r.object, 200, true);
    }
  }
}

/** admission.NewAttributesRecord for this request. */
function admissionAttributes(
  ctx: RequestContext,
  o: RESTOptions,
  operation: Operation,
  namespace: string,
  name: string,
  dryRun: boolean,
  object?: KubeObject,
  oldObject?: KubeObject,
): Attributes {
  const { store } = o;
  const { group, resource } = store.qualifiedResource;
  const version = store.apiVersion.slice(store.apiVersion.indexOf('/') + 1);
  return {
    operation,
    kind: { group, version, kind: store.kind },
    resource: { group, version, resource },
    subresource: ctx.requestInfo?.subresource ?? '',
    namespace,
    name,
    object,
    oldObject,
    dryRun,
    userInfo: ctx.user,
  };
}

/**
 * Update (and patch) options: dry run, admission with the stored object inside the update loop, and
 * the answer only read (it is written to the response).
 */
function updateOptions(
  ctx: RequestContext,
  o: RESTOptions,
  ns: string,
  name: string,
  subresource?: string,
): UpdateOptions {
  const dry = dryRun(ctx);
  const chain = o.admission;
  if (!chain) return { namespace: ns, dryRun: dry, subresource, readOnly: true };
  const attrs = (obj: KubeObject, old: KubeObject | undefined) =>
    admissionAttributes(ctx, o, old ? 'UPDATE' : 'CREATE', ns, name, dry, obj, old);
  return {
    namespace: ns,
    dryRun: dry,
    subresource,
    readOnly: true,
    admit: (obj, old) => chain.admit(attrs(obj, old)),
    validation: (obj, old) => chain.validate(attrs(obj, old)),
  };
}

function dryRun(ctx: RequestContext): boolean {
  const values = ctx.url.searchParams.getAll('dryRun');
  for (const v of values)
    if (v !== 'All') throw newBadRequest(`dryRun: Unsupported value: ${JSON.stringify(v)}: supported values: "All"`);
  return values.length > 0;
}

// The name (and namespace, if any) in the body must match the URL (handlers/rest.go checkName).
function checkName(obj: KubeObject, name: string, namespace: string): void {
  const bodyName = obj.metadata?.name ?? '';
  if (bodyName !== name)
    throw newBadRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
  const bodyNamespace = obj.metadata?.namespace ?? '';
  if (namespace && bodyNamespace && bodyNamespace !== namespace)
    throw newBadRequest(
      `the namespace of the object (${bodyNamespace}) does not match the namespace on the URL (${namespace})`,
    );
}

function intParam(ctx: RequestContext, name: string): number | undefined {
  const v = ctx.url.searchParams.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw newBadRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

/** metav1.ListOptions from the query (handlers/get.go ListResource). */
function listOptions(ctx: RequestContext, o: RESTOptions, watch = false): ListOptions {
  const q = ctx.url.searchParams;
  let label, field;
  try {
    label = parseLabelSelector(q.get('labelSelector') ?? '');
    field = parseFieldSelector(q.get('fieldSelector') ?? '');
    if (!field.empty())
      field = field.transform(o.store.strategy.convertFieldLabel ?? defaultMetaV1FieldSelectorConversion);
  } catch (err) {
    if (err instanceof SelectorParseError || err instanceof FieldSelectorParseError || err instanceof FieldLabelError)
      throw newBadRequest(err.message);
    throw err;
  }
  const limit = intParam(ctx, 'limit') ?? 0;
  const rvm = q.get('resourceVersionMatch') ?? '';
  const sie = q.get('sendInitialEvents');
  const sendInitialEvents = sie === null || sie === '' ? undefined : sie === 'true';
  const errs = validateListOptions({
    watch,
    resourceVersion: q.get('resourceVersion') ?? '',
    resourceVersionMatch: rvm,
    continue: q.get('continue') ?? '',
    sendInitialEvents,
  });
  if (errs.length) throw newInvalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', errs);
  return {
    resourceVersion: q.get('resourceVersion') ?? '',
    resourceVersionMatch: rvm as ListOptions['resourceVersionMatch'],
    predicate: new SelectionPredicate({
      label,
      field,
      limit: limit > 0 ? limit : 0,
      continue: q.get('continue') ?? '',
      getAttrs: o.store.strategy.getAttrs,
      allowWatchBookmarks: q.get('allowWatchBookmarks') === 'true',
    }),
    progressNotify: q.get('allowWatchBookmarks') === 'true',
    sendInitialEvents,
  };
}

/** metav1.DeleteOptions from the body (if any) and the query. */
async function deleteOptions(
  ctx: RequestContext,
  o: RESTOptions,
): Promise<Omit<DeleteOptions, 'namespace'> & { dryRun: boolean }> {
  let body: Record<string, unknown> = {};
  const bytes = await readBody(ctx, o.maxRequestBodyBytes);
  if (bytes.length > 0) {
    try {
      body = parseJSONWithinDepth(new TextDecoder().decode(bytes)) as Record<string, unknown>;
    } catch (err) {
      throw newBadRequest(
        `couldn't get version/kind; json parse error: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  const pre = body.preconditions as { uid?: string; resourceVersion?: string } | undefined;
  const policy =
    (body.propagationPolicy as string | undefined) ?? ctx.url.searchParams.get('propagationPolicy') ?? undefined;
  if (policy !== undefined && !['Orphan', 'Background', 'Foreground'].includes(policy))
    throw newBadRequest(
      `propagationPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan"`,
    );
  const bodyDryRun = Array.isArray(body.dryRun) && body.dryRun.length > 0;
  return { dryRun: dryRun(ctx) || bodyDryRun, preconditions: pre, propagationPolicy: policy };
}

type Output = 'json' | 'yaml' | 'table';

/** The response media type (handlers/negotiation): Table when asked for, YAML, else JSON. */
function negotiateOutput(ctx: RequestContext): Output {
  const accept = ctx.request.headers.get('accept');
  if (!accept || accept === 'application/json') return 'json';
  for (const c of parseAccept(accept)) {
    if (c.q <= 0) continue;
    if (c.params.as === 'Table' && c.params.g === 'meta.k8s.io' && (c.params.v === 'v1' || c.params.v === 'v1beta1'))
      return 'table';
    if (c.params.as) continue;
    if (c.type === 'application' && c.subType === 'yaml') return 'yaml';
    if ((c.type === 'application' && (c.subType === 'json' || c.subType === '*')) || c.type === '*') return 'json';
  }
  return 'json';
}

function encode(ctx: RequestContext, out: Output, value: unknown, code: number): Response {
  // audit.LogResponseObject, with the object as written (transformResponseObject).
  logResponseObject(ctx, value);
  if (out === 'yaml')
    return new Response(toYAML(value), { status: code, headers: { 'content-type': 'application/yaml' } });
  const body = isPrettyPrint(ctx.request, ctx.url) ? goJSON(value, 2) : goJSON(value) + '\n';
  return jsonResponse(body, code);
}

function jsonResponse(body: string | Uint8Array<ArrayBuffer>, code: number): Response {
  return new Response(body, { status: code, headers: { 'content-type': 'application/json' } });
}

/** logResponseObject, building the object only when the request's audit level records it. */
function logResponseLazily(ctx: RequestContext, value: () => unknown): void {
  const ac = auditContextFrom(ctx);
  if (auditEnabled(ac) && ac.event.level !== 'None') logResponseObject(ctx, value());
}

function withTypeMeta(o: RESTOptions, obj: StorageObject): StorageObject {
  return { apiVersion: o.store.apiVersion, kind: o.store.kind, ...obj };
}

/**
 * The compact JSON line (`goJSON(withTypeMeta(o, obj)) + "\n"`, as bytes) of an object, once per
 * object and handler: the watch cache hands the same (never mutated) objects to every get, list and
 * watcher, so a GET answers with the bytes of the last one, a list of 500 or an event fanned out to
 * 100 watchers serialises each object once (cacher/caching_object.go does this per encoder for
 * watch events).
 */
const lineCaches = new WeakMap<RESTOptions, WeakMap<StorageObject, Uint8Array<ArrayBuffer>>>();
const utf8 = new TextEncoder();
function objectLine(o: RESTOptions, obj: StorageObject): Uint8Array<ArrayBuffer> {
  let cache = lineCaches.get(o);
  if (!cache) lineCaches.set(o, (cache = new WeakMap()));
  let line = cache.get(obj);
  if (line === undefined) {
    line = utf8.encode(goJSON(withTypeMeta(o, obj)) + '\n');
    cache.set(obj, line);
  }
  return line;
}

const comma = 0x2c;
const listTail = utf8.encode(']}\n');

// An object's line is copied whole and its newline overwritten by what follows it (a comma, the
// list's or the event's tail), which spares a view per object.

/** head, the lines' objects joined by commas, `]}\n`. */
function listBody(head: Uint8Array, lines: Uint8Array[]): Uint8Array<ArrayBuffer> {
  // Each line's newline becomes the comma after it, or the tail's first byte.
  let n = head.length + listTail.length - (lines.length ? 1 : 0);
  for (const l of lines) n += l.length;
  const out = new Uint8Array(n);
  out.set(head);
  let at = head.length;
  for (let i = 0; i < lines.length; i++) {
    if (i > 0) out[at++] = comma;
    out.set(lines[i]!, at);
    at += lines[i]!.length - 1;
  }
  out.set(listTail, at);
  return out;
}

/** head, the line's object, tail. */
function eventBody(head: Uint8Array, line: Uint8Array, tail: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(head.length + line.length - 1 + tail.length);
  out.set(head);
  out.set(line, head.length);
  out.set(tail, head.length + line.length - 1);
  return out;
}

/**
 * `shared`: the object came from a read-only get (perhaps the watch cache's own): compact JSON is
 * its cached line.
 */
function objectResponse(ctx: RequestContext, o: RESTOptions, obj: KubeObject, code: number, shared = false): Response {
  const out = negotiateOutput(ctx);
  if (out === 'table') return encode(ctx, 'json', table(ctx, o, [obj], obj.metadata.resourceVersion ?? ''), code);
  if (shared && out === 'json' && !isPrettyPrint(ctx.request, ctx.url)) {
    logResponseLazily(ctx, () => withTypeMeta(o, obj));
    return jsonResponse(objectLine(o, obj), code);
  }
  return encode(ctx, out, withTypeMeta(o, obj), code);
}

function listResponse(
  ctx: RequestContext,
  o: RESTOptions,
  list: { items: KubeObject[]; resourceVersion: string; continue?: string; remainingItemCount?: number },
): Response {
  const out = negotiateOutput(ctx);
  const meta: Record<string, unknown> = { resourceVersion: list.resourceVersion };
  if (list.continue) meta.continue = list.continue;
  if (list.remainingItemCount !== undefined) meta.remainingItemCount = list.remainingItemCount;
  if (out === 'table') return encode(ctx, 'json', table(ctx, o, list.items, list.resourceVersion, meta), 200);
  const head = { kind: o.store.listKind, apiVersion: o.store.apiVersion, metadata: meta };
  const body = () => ({ ...head, items: list.items.map((i) => withTypeMeta(o, i)) });
  if (out === 'json' && !isPrettyPrint(ctx.request, ctx.url)) {
    // Compact JSON composes: the list is its head and each item's (cached) JSON, as goJSON(body()) + "\n".
    logResponseLazily(ctx, body);
    const n = list.items.length;
    const lines = new Array<Uint8Array>(n);
    for (let i = 0; i < n; i++) lines[i] = objectLine(o, list.items[i]!);
    return jsonResponse(listBody(utf8.encode(`${goJSON(head).slice(0, -1)},"items":[`), lines), 200);
  }
  return encode(ctx, out, body(), 200);
}

/** meta.k8s.io/v1 Table with rows carrying PartialObjectMetadata (includeObject=Metadata, the default). */
function table(
  ctx: RequestContext,
  o: RESTOptions,
  items: KubeObject[],
  rv: string,
  meta?: Record<string, unknown>,
): unknown {
  const convertor: TableConvertor = o.store.tableConvertor ?? {
    columns: [{ name: 'Name', type: 'string', format: 'name', description: '', priority: 0 }, ageColumn],
    cells: () => [],
  };
  const include = ctx.url.searchParams.get('includeObject') ?? 'Metadata';
  const now = new Date();
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: meta ?? { resourceVersion: rv },
    columnDefinitions: convertor.columns,
    rows: items.map((item) => {
      const row: Record<string, unknown> = { cells: convertor.cells(item, now) };
      if (include === 'Object') row.object = withTypeMeta(o, item);
      else if (include !== 'None')
        row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: item.metadata };
      return row;
    }),
  };
}

function statusResponse(ctx: RequestContext, status: Status): Response {
  const body = { kind: 'Status', apiVersion: 'v1', metadata: {}, ...status };
  return encode(ctx, 'json', body, status.code ?? 200);
}

const eventHeads = new Map<string, Uint8Array>();
const eventHead = (type: string) => {
  let h = eventHeads.get(type);
  if (!h) eventHeads.set(type, (h = utf8.encode(`{"type":${JSON.stringify(type)},"object":`)));
  return h;
};
const eventTail = utf8.encode('}\n');

/**
 * handlers/watch.go: one JSON object per line, flushed per event; the watch ends after
 * timeoutSeconds (or a random [min, 2·min) request timeout) or when the client goes.
 */
function watchResponse(ctx: RequestContext, o: RESTOptions, w: WatchInterface): Response {
  const requested = intParam(ctx, 'timeoutSeconds');
  const timeoutMs =
    (requested !== undefined && requested > 0 ? requested : o.minRequestTimeoutSeconds * (1 + Math.random())) * 1000;
  const asTable = negotiateOutput(ctx) === 'table';
  const it = w[Symbol.asyncIterator]();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      timer = setTimeout(() => {
        w.stop();
        try {
          controller.close();
        } catch {
          // already closed
        }
      }, timeoutMs);
    },
    async pull(controller) {
      const r = await it.next();
      if (r.done) {
        clearTimeout(timer);
        try {
          controller.close();
        } catch {
          // already closed by the timeout
        }
        return;
      }
      const ev = r.value;
      if (ev.type === 'ERROR' || ev.type === 'BOOKMARK')
        controller.enqueue(utf8.encode(goJSON({ type: ev.type, object: ev.object }) + '\n'));
      else if (asTable) {
        // kubectl get -w asks for Table: each event carries a one-row Table.
        const object = table(ctx, o, [ev.object as KubeObject], ev.object.metadata?.resourceVersion ?? '');
        controller.enqueue(utf8.encode(goJSON({ type: ev.type, object }) + '\n'));
      } else controller.enqueue(eventBody(eventHead(ev.type), objectLine(o, ev.object), eventTail));
    },
    cancel() {
      clearTimeout(timer);
      w.stop();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
}
