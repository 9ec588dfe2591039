// The apiextensions-apiserver (k8s.io/apiextensions-apiserver/pkg/apiserver/apiserver.go): a
// GenericAPIServer that serves apiextensions.k8s.io/v1 customresourcedefinitions from storage and,
// through its crdHandler on the non-API mux (`/apis/`), every established CRD's custom resources
// and their group/version discovery. kube-apiserver is built with it as its delegate, so what the
// main director does not claim falls through to it, then to NotFound.

import { Hono } from 'hono';
import { newMethodNotSupported, newNotFound } from '../endpoints/apierrors.ts';
import {
  installAPIGroup,
  setDynamicGroups,
  writeAPIGroup,
  writeAPIResourceList,
  type APIGroupInfo,
  type APIResource,
} from '../endpoints/discovery/discovery.ts';
import { restHandler, type RESTOptions } from '../endpoints/handlers/rest.ts';
import type { Handler, RequestContext } from '../endpoints/request/context.ts';
import { errorNegotiated, newNotFound as notFoundStatus, StatusError } from '../endpoints/responsewriters/status.ts';
import { Store } from '../registry/generic/store.ts';
import type { APIEnv, RouteTarget } from '../server/mux/container.ts';
import { notFoundHandler, type DelegationTarget, type GenericAPIServer } from '../server/genericapiserver.ts';
import { complete, newServer, type CompletedConfig } from '../server/config.ts';
import type { ResourceRegistry } from '../registry/rest/registry.ts';
import { AdmissionChain } from '../admission/chain.ts';
import type { AdmissionPluginFactory } from '../server/routes/resources.ts';
import type { StorageBackend } from '../storage/storagebackend/open.ts';
import type { Logger } from '../util/logger.ts';
import type { MaybePromise } from '../util/maybe-promise.ts';
import { CRDController, type Serving } from './controller.ts';

export type { Serving };
import { crdKindInfo, crdResource, crdStatusStrategy, crdStrategy, crdTable } from './customresourcedefinition.ts';
import {
  customResourceVerbs,
  serveScale,
  serveStatus,
  serveWrite,
  type ServedVersion,
  type WriteOptions,
} from './customresource.ts';
import {
  CustomResourceCleanupFinalizer,
  group,
  isCRDConditionTrue,
  version,
  type CustomResourceDefinition,
} from './types.ts';

/** What the apiextensions server reads from its Config. */
export interface APIExtensionsConfig {
  storage?: StorageBackend;
  /** The main server's registry: every served CRD's Store is added to it. */
  resources?: ResourceRegistry;
  admissionPlugins: readonly AdmissionPluginFactory[];
  logger: Logger;
  maxRequestBodyBytes: number;
  minRequestTimeout: number;
  enableDiscovery: boolean;
  externalAddress: string;
}

/** version.CompareKubeAwareVersionStrings: GA before beta before alpha, higher numbers first. */
export function compareKubeAwareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    return { major: Number(m[1]), rank: m[2] === 'alpha' ? 0 : m[2] === 'beta' ? 1 : 2, minor: Number(m[3] ?? 0) };
  };
  const x = parse(a);
  const y = parse(b);
  if (x && y) {
    if (x.rank !== y.rank) return y.rank - x.rank;
    if (x.major !== y.major) return y.major - x.major;
    return y.minor - x.minor;
  }
  if (x) return -1;
  if (y) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The state a route installer leaves for tests and build wiring. */
export interface APIExtensionsState {
  controller: CRDController;
  crdStore: Store;
  /** CRDs served, by `<group>/<plural>`. */
  serving: Map<string, Serving>;
}

const states = new WeakMap<object, APIExtensionsState>();

/** The installed state of an apiextensions server (undefined before installation or without storage). */
export function apiExtensionsState(server: { handler: object }): APIExtensionsState | undefined {
  return states.get(server.handler);
}

/**
 * A Config.routeInstallers entry of the apiextensions server: the CRD API group, the crdHandler
 * for `/apis/…`, and the controllers that accept names, establish, serve and finalize CRDs.
 */
export function installAPIExtensions(server: RouteTarget<APIExtensionsConfig>): void {
  const c = server.config;
  if (!c.storage) return;
  const factory = c.storage.factory;
  const crdGR = { group, resource: 'customresourcedefinitions' };
  const rs = factory.forResource({
    groupResource: crdGR,
    custom: true,
    newFunc: () => ({ apiVersion: `${group}/${version}`, kind: 'CustomResourceDefinition' }),
  });
  const common = {
    qualifiedResource: crdGR,
    apiVersion: `${group}/${version}`,
    kind: 'CustomResourceDefinition',
    listKind: 'CustomResourceDefinitionList',
    storage: rs.storage,
    resourcePrefix: rs.resourcePrefix,
    tableConvertor: crdTable,
  };
  const crdStore = new Store({ ...common, strategy: crdStrategy });
  const crdStatusStore = new Store({ ...common, strategy: crdStatusStrategy });

  const registry = c.resources;
  if (!registry) return;
  const admission = new AdmissionChain(c.admissionPlugins.map((f) => f(registry)));

  const serving = new Map<string, Serving>();
  const controller = new CRDController({
    crdStore,
    crdStatusStore,
    registry,
    logger: c.logger,
    onServingChanged: () => setDynamicGroups(server, discoveryGroups(serving)),
    serving,
    makeHandlers: (versions) => {
      const handlers = new Map<string, (ctx: RequestContext) => MaybePromise<Response>>();
      for (const [v, sv] of versions) {
        const opts: RESTOptions = {
          store: sv.store,
          kindInfo: sv.kindInfo,
          maxRequestBodyBytes: c.maxRequestBodyBytes,
          minRequestTimeoutSeconds: c.minRequestTimeout,
          admission,
        };
        const rest = restHandler(opts);
        const w: WriteOptions = { maxRequestBodyBytes: c.maxRequestBodyBytes, admission };
        handlers.set(v, (ctx) => serveCustomResource(ctx, sv, rest, w));
      }
      return handlers;
    },
  });
  states.set(server.handler, { controller, crdStore, serving });

  // customresourcedefinitions: delete adds the cleanup finalizer first (customresourcedefinition/etcd.go).
  const crdRest = restHandler({
    store: crdStore,
    kindInfo: crdKindInfo,
    maxRequestBodyBytes: c.maxRequestBodyBytes,
    minRequestTimeoutSeconds: c.minRequestTimeout,
    deleteOverride: async (name) => {
      const existing = (await crdStore.get('', name)) as CustomResourceDefinition;
      if (
        !existing.metadata.deletionTimestamp &&
        !existing.metadata.finalizers?.includes(CustomResourceCleanupFinalizer)
      )
        await crdStore.storage.guaranteedUpdate(crdStore.key('', name), false, undefined, (input) => {
          const next = structuredClone(input) as CustomResourceDefinition;
          next.metadata.finalizers = [...(next.metadata.finalizers ?? []), CustomResourceCleanupFinalizer];
          delete next.metadata.resourceVersion;
          return { object: next };
        });
      const r = await crdStore.delete(name, { namespace: '' });
      return r.object;
    },
  });
  const routes = new Hono<APIEnv>({ strict: false });
  routes.all(`/apis/${group}/${version}/*`, async (hc) => {
    const ctx = hc.env.ctx;
    const info = ctx.requestInfo;
    if (!info?.isResourceRequest || info.resource !== 'customresourcedefinitions')
      return errorNegotiated(notFoundStatus(), ctx.request, ctx.url);
    const res = await crdRest(ctx);
    // The controllers' pass for this change, inside the request (see CRDController.resync).
    if (res.status < 300 && writeVerbs.has(info.verb) && !ctx.url.searchParams.has('dryRun')) await controller.resync();
    return res;
  });
  installAPIGroup(server, { name: group, versions: [{ version, resources: [crdResource] }] }, routes);

  // crdHandler: `/apis/<group>[/<version>[/…]]` of custom resources; anything else goes on.
  // Its delegate is the kube not-found handler (NewEmptyDelegateWithCustomHandler(notfoundhandler)).
  const next: Handler = notFoundHandler;
  const crdHandler: Handler = async (ctx) => {
    try {
      // Another process (or a Worker isolate) may have changed the CRDs: a pass at most every few
      // seconds, and at once for a resource not served here yet.
      await controller.resyncIfOlder(resyncIntervalMs);
      if (!isServed(ctx, serving)) await controller.resyncIfOlder(missResyncIntervalMs);
      return await routeCustomResource(ctx, serving, next);
    } catch (err) {
      if (err instanceof StatusError) return errorNegotiated(err.status, ctx.request, ctx.url);
      throw err;
    }
  };
  server.handler.nonGoRestfulMux.unlistedHandlePrefix('/apis/', crdHandler);

  const stop = new AbortController();
  void controller
    .run(stop.signal)
    .catch((err: unknown) => c.logger.error('CRD controller stopped', { err: String(err) }));
  server.addDestroyFunc(() => stop.abort());
}

const writeVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const resyncIntervalMs = 10_000;
const missResyncIntervalMs = 1000;

function isServed(ctx: RequestContext, serving: Map<string, Serving>): boolean {
  const info = ctx.requestInfo;
  if (!info?.isResourceRequest) return true;
  return serving.get(`${info.apiGroup}/${info.resource}`)?.handlers.has(info.apiVersion) ?? false;
}

function routeCustomResource(
  ctx: RequestContext,
  serving: Map<string, Serving>,
  next: Handler,
): Response | Promise<Response> {
  const info = ctx.requestInfo;
  if (!info) return next(ctx);
  if (!info.isResourceRequest) {
    const parts = info.path.split('/').filter(Boolean);
    if (parts.length < 2 || parts.length > 3 || parts[0] !== 'apis' || ctx.request.method !== 'GET') return next(ctx);
    const g = discoveryGroups(serving).find((x) => x.name === parts[1]);
    if (!g) return next(ctx);
    if (parts.length === 2) return writeAPIGroup(ctx, g);
    const gv = g.versions.find((v) => v.version === parts[2]);
    return gv ? writeAPIResourceList(ctx, g.name, gv) : next(ctx);
  }
  if (info.apiPrefix !== 'apis') return next(ctx);
  const s = serving.get(`${info.apiGroup}/${info.resource}`);
  const handler = s?.handlers.get(info.apiVersion);
  if (!s || !handler) return next(ctx);
  const namespaced = s.crd.spec.scope === 'Namespaced';
  const nsReq = info.namespace !== '';
  if (!namespaced && nsReq) return next(ctx);
  if (namespaced && !nsReq && info.verb !== 'list' && info.verb !== 'watch') return next(ctx);
  if (isCRDConditionTrue(s.crd, 'Terminating') && info.verb === 'create')
    throw newMethodNotSupported({ group: info.apiGroup, resource: info.resource }, info.verb);
  return handler(ctx);
}

function serveCustomResource(
  ctx: RequestContext,
  sv: ServedVersion,
  rest: (ctx: RequestContext) => MaybePromise<Response>,
  w: WriteOptions,
): MaybePromise<Response> {
  const info = ctx.requestInfo!;
  if (info.subresource) {
    if (info.subresource === 'status' && sv.statusStore) return serveStatus(ctx, sv, w);
    if (info.subresource === 'scale' && sv.scale) return serveScale(ctx, sv, w);
    return Promise.reject(newNotFound({ group: info.apiGroup, resource: info.resource }, info.name));
  }
  if (info.verb === 'create' || info.verb === 'update' || info.verb === 'patch') return serveWrite(ctx, sv, w);
  return rest(ctx);
}

/** The discovery groups of the served CRDs: versions by kube-aware priority, resources by name. */
export function discoveryGroups(serving: Map<string, Serving>): APIGroupInfo[] {
  const groups = new Map<string, Map<string, APIResource[]>>();
  for (const s of serving.values()) {
    const g = s.crd.spec.group!;
    const names = s.crd.status?.acceptedNames ?? s.crd.spec.names!;
    let byVersion = groups.get(g);
    if (!byVersion) groups.set(g, (byVersion = new Map()));
    for (const [v, sv] of s.versions) {
      const subresources: APIResource['subresources'] = [];
      if (sv.statusEnabled) subresources.push({ name: 'status', kind: sv.kind, verbs: ['get', 'patch', 'update'] });
      if (sv.scale) subresources.push({ name: 'scale', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
      const r: APIResource = {
        name: names.plural!,
        singularName: names.singular ?? '',
        namespaced: s.crd.spec.scope === 'Namespaced',
        kind: names.kind!,
        verbs: customResourceVerbs,
        shortNames: names.shortNames,
        categories: names.categories,
        subresources,
      };
      let list = byVersion.get(v);
      if (!list) byVersion.set(v, (list = []));
      list.push(r);
    }
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, byVersion]) => ({
      name,
      versions: [...byVersion.entries()]
        .sort(([a], [b]) => compareKubeAwareVersions(a, b))
        .map(([v, resources]) => ({ version: v, resources })),
    }));
}

/**
 * CompletedConfig.New of the apiextensions server: the generic config without the main
 * server's own routes and hooks, serving installAPIExtensions, in front of `delegate`.
 */
export function newAPIExtensionsServer(config: CompletedConfig, delegate: DelegationTarget): GenericAPIServer {
  const c = complete({
    ...config,
    routeInstallers: [installAPIExtensions],
    postStartHooks: new Map(),
    healthzChecks: [],
    livezChecks: [],
    readyzChecks: [],
    controllers: [],
  });
  return newServer(c, 'apiextensions-apiserver', delegate);
}
