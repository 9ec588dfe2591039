// Discovery (k8s.io/apiserver/pkg/endpoints/discovery and discovery/aggregated, what
// client-go/discovery reads): `/api` (APIVersions), `/apis` (APIGroupList, apiVersion stripped
// as in a generic server), `/apis/<group>` (APIGroup), `/apis/<group>/<version>` and
// `/api/<version>` (APIResourceList), and aggregated discovery v2 (APIGroupDiscoveryList) on
// `/api` and `/apis` when the Accept header asks for it, with ETag, `Vary: Accept`,
// `Cache-Control: public` and 304 on If-None-Match.
//
// API groups are registered with installAPIGroup (upstream InstallAPIGroup); documents are built
// when first requested and rebuilt only when a group is added.

import { Hono } from 'hono';
import type { RequestContext } from '../request/context.ts';
import { goJSON, isPrettyPrint } from '../responsewriters/status.ts';
import { encodeNegotiated, writeObjectNegotiated } from '../responsewriters/writers.ts';
import {
  kubeProduces,
  kubeSerializers,
  negotiateMediaTypeOptions,
  type EndpointRestrictions,
  type GroupVersionKind,
  type MediaTypeOptions,
} from '../responsewriters/negotiation.ts';
import { encodeDiscoveryProtobuf } from './discovery-protobuf.ts';
import type { APIEnv, RouteContainer, RouteTarget } from '../../server/mux/container.ts';

/** What discovery reads: the route tables, and two settings of the server's Config. */
export type DiscoveryTarget = RouteTarget<{ readonly enableDiscovery: boolean; readonly externalAddress: string }>;

/** One resource of a group version (metav1.APIResource, plus what aggregated discovery needs). */
export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  /** Subresources (`status`, `scale` …) with their response kind. */
  subresources?: { name: string; kind: string; verbs: string[] }[];
}

export interface APIGroupVersion {
  version: string;
  resources: APIResource[];
}

/** An API group; the first version is the preferred one. `name` "" is the legacy core group (/api). */
export interface APIGroupInfo {
  name: string;
  versions: APIGroupVersion[];
}

interface DiscoveryState {
  core?: APIGroupInfo;
  groups: APIGroupInfo[];
  /** Groups served at run time (custom resources), replaced as a whole. */
  dynamic: APIGroupInfo[];
  /** Servers behind this one whose groups `/apis` also lists (the delegation chain). */
  delegates: DiscoveryState[];
  /** Servers whose `/apis` lists this one's groups: their caches go when ours does. */
  dependents: DiscoveryState[];
  apisInstalled: boolean;
  /** Cached documents, dropped when a group is added. */
  cache: Map<string, Promise<{ body: string; etag: string }>>;
}

const states = new WeakMap<RouteContainer, DiscoveryState>();

function stateOf(server: DiscoveryTarget): DiscoveryState {
  let s = states.get(server.handler);
  if (!s)
    states.set(
      server.handler,
      (s = { groups: [], dynamic: [], delegates: [], dependents: [], apisInstalled: false, cache: new Map() }),
    );
  return s;
}

/** The groups `/apis` lists: this server's, its run-time ones and its delegates' (first name wins). */
function apisGroups(s: DiscoveryState): APIGroupInfo[] {
  const out: APIGroupInfo[] = [];
  const seen = new Set<string>();
  for (const g of [...s.groups, ...s.dynamic, ...s.delegates.flatMap(apisGroups)])
    if (!seen.has(g.name)) {
      seen.add(g.name);
      out.push(g);
    }
  if (s.delegates.length === 0) return out;
  // Merged as the aggregator merges them: by priority, ties by name; the rest keep their order.
  const prio = (g: APIGroupInfo) => groupPriority[g.name] ?? 0;
  return out
    .map((g, i) => ({ g, i }))
    .sort((a, b) => prio(b.g) - prio(a.g) || (prio(a.g) ? (a.g.name < b.g.name ? -1 : 1) : a.i - b.i))
    .map((x) => x.g);
}

function clearCache(s: DiscoveryState): void {
  s.cache.clear();
  for (const d of s.dependents) clearCache(d);
}

/**
 * The groups of `inner` (the delegate server) appear in `outer`'s `/apis` documents, as the
 * aggregator lists kube-apiserver's and apiextensions-apiserver's groups together.
 */
export function includeDelegateDiscovery(outer: DiscoveryTarget, inner: DiscoveryTarget): void {
  const o = stateOf(outer);
  const i = stateOf(inner);
  o.delegates.push(i);
  i.dependents.push(o);
  clearCache(o);
}

/** Replaces the groups served at run time (custom resources); their own documents are the caller's. */
export function setDynamicGroups(server: DiscoveryTarget, groups: APIGroupInfo[]): void {
  const s = stateOf(server);
  s.dynamic = groups;
  clearCache(s);
}

/** `/apis/<group>` of a run-time group (APIGroup). */
export function writeAPIGroup(ctx: RequestContext, group: APIGroupInfo): Response {
  return writeDiscovery(ctx, { kind: 'APIGroup', apiVersion: 'v1', name: group.name, ...groupVersions(group) });
}

/** `/apis/<group>/<version>` of a run-time group (APIResourceList). */
export function writeAPIResourceList(ctx: RequestContext, group: string, gv: APIGroupVersion): Response {
  return writeDiscovery(ctx, apiResourceList(group, gv));
}

/** The groups a server serves, core first (tests and other installers). */
export function discoveryGroups(server: DiscoveryTarget): APIGroupInfo[] {
  const s = stateOf(server);
  return s.core ? [s.core, ...s.groups] : [...s.groups];
}

/** Every group a server answers for: its own (core first), its run-time ones and its delegates' (OpenAPI). */
export function allDiscoveryGroups(server: DiscoveryTarget): APIGroupInfo[] {
  const s = stateOf(server);
  const groups = apisGroups(s);
  return s.core ? [s.core, ...groups] : groups;
}

export const aggregatedDiscoveryGroup = 'apidiscovery.k8s.io';
export const aggregatedListKind = 'APIGroupDiscoveryList';

/**
 * The aggregated discovery wrapper's choice (discovery/aggregated/wrapper.go, negotiation.go):
 * the negotiated media type when the Accept header converts to APIGroupDiscoveryList (`v2`, or
 * `v2beta1`), else undefined (the legacy document answers).
 */
export function negotiateAggregated(accept: string | null): MediaTypeOptions | undefined {
  const mt = negotiateMediaTypeOptions(accept, kubeSerializers, discoveryEndpointRestrictions);
  return mt && isAggregatedDiscoveryGVK(mt.convert) ? mt : undefined;
}

function isAggregatedDiscoveryGVK(gvk: GroupVersionKind | undefined): boolean {
  return (
    gvk !== undefined &&
    gvk.group === aggregatedDiscoveryGroup &&
    gvk.kind === aggregatedListKind &&
    (gvk.version === 'v2' || gvk.version === 'v2beta1')
  );
}

/** DiscoveryEndpointRestrictions: only the aggregated discovery conversion. */
const discoveryEndpointRestrictions: EndpointRestrictions = {
  allowsMediaTypeTransform: (_t, _s, gvk) => isAggregatedDiscoveryGVK(gvk),
  allowsServerVersion: () => false,
  allowsStreamSchema: (s) => s === 'watch',
};

/** Which document an Accept header asks for: `v2`/`v2beta1` aggregated discovery, or the legacy one. */
export function negotiateDiscovery(accept: string | null): 'v2' | 'v2beta1' | 'legacy' {
  return (negotiateAggregated(accept)?.convert?.version as 'v2' | 'v2beta1' | undefined) ?? 'legacy';
}

function groupVersionString(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

function serverAddresses(server: DiscoveryTarget): { clientCIDR: string; serverAddress: string }[] {
  return [{ clientCIDR: '0.0.0.0/0', serverAddress: server.config.externalAddress }];
}

function apiResourceList(group: string, gv: APIGroupVersion): Record<string, unknown> {
  const resources: Record<string, unknown>[] = [];
  for (const r of [...gv.resources].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    resources.push(apiResourceJSON(r));
    for (const sub of r.subresources ?? []) {
      resources.push({
        name: `${r.name}/${sub.name}`,
        singularName: '',
        namespaced: r.namespaced,
        kind: sub.kind,
        verbs: sub.verbs,
      });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersionString(group, gv.version), resources };
}

function apiResourceJSON(r: APIResource): Record<string, unknown> {
  const o: Record<string, unknown> = {
    name: r.name,
    singularName: r.singularName,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: r.verbs,
  };
  if (r.shortNames?.length) o.shortNames = r.shortNames;
  if (r.categories?.length) o.categories = r.categories;
  return o;
}

function groupVersions(g: APIGroupInfo): {
  versions: { groupVersion: string; version: string }[];
  preferredVersion: { groupVersion: string; version: string };
} {
  const versions = g.versions.map((v) => ({ groupVersion: groupVersionString(g.name, v.version), version: v.version }));
  return { versions, preferredVersion: versions[0]! };
}

function aggregatedGroup(g: APIGroupInfo): Record<string, unknown> {
  const metadata: Record<string, unknown> = g.name
    ? { name: g.name, creationTimestamp: null }
    : { creationTimestamp: null };
  return {
    metadata,
    versions: g.versions.map((v) => ({
      version: v.version,
      resources: [...v.resources]
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .map((r) => {
          const o: Record<string, unknown> = {
            resource: r.name,
            responseKind: { group: g.name, version: v.version, kind: r.kind },
            scope: r.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: r.singularName,
            verbs: r.verbs,
          };
          if (r.shortNames?.length) o.shortNames = r.shortNames;
          if (r.categories?.length) o.categories = r.categories;
          if (r.subresources?.length) {
            o.subresources = r.subresources.map((s) => ({
              subresource: s.name,
              responseKind: { group: g.name, version: v.version, kind: s.kind },
              verbs: s.verbs,
            }));
          }
          return o;
        }),
      freshness: 'Current',
    })),
  };
}

async function sha512Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-512', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase();
}

/** A discovery document in the negotiated media type (WriteObjectNegotiated, protobuf included). */
function writeDiscovery(ctx: RequestContext, obj: Record<string, unknown>): Response {
  return writeObjectNegotiated(ctx.request, ctx.url, 200, obj, { protobuf: () => encodeDiscoveryProtobuf(obj) });
}

/** The aggregated document for `/api` (core) or `/apis` (groups), with its ETag, cached. */
function aggregatedDocument(
  server: DiscoveryTarget,
  which: 'api' | 'apis',
  version: 'v2' | 'v2beta1',
): Promise<{ body: string; etag: string }> {
  const s = stateOf(server);
  const key = `${which}/${version}`;
  let doc = s.cache.get(key);
  if (!doc) {
    const groups = which === 'api' ? (s.core ? [s.core] : []) : apisGroups(s);
    const obj = {
      kind: aggregatedListKind,
      apiVersion: `${aggregatedDiscoveryGroup}/${version}`,
      metadata: {},
      items: groups.map(aggregatedGroup),
    };
    const body = goJSON(obj);
    doc = sha512Hex(body).then((hash) => ({ body, etag: `"${hash}"` }));
    s.cache.set(key, doc);
  }
  return doc;
}

async function serveAggregated(
  ctx: RequestContext,
  server: DiscoveryTarget,
  which: 'api' | 'apis',
  mt: MediaTypeOptions,
): Promise<Response> {
  const version = mt.convert!.version as 'v2' | 'v2beta1';
  const doc = await aggregatedDocument(server, which, version);
  const headers = new Headers({
    'content-type': `${mt.accepted.mediaType};g=${aggregatedDiscoveryGroup};v=${version};as=${aggregatedListKind}`,
    etag: doc.etag,
    vary: 'Accept',
    'cache-control': 'public',
  });
  if (ctx.request.headers.get('if-none-match') === doc.etag) return new Response(null, { status: 304, headers });
  let body: string | Uint8Array;
  if (mt.accepted.subType === 'json' && !mt.pretty && !isPrettyPrint(ctx.request, ctx.url)) body = doc.body + '\n';
  else {
    const obj = JSON.parse(doc.body) as Record<string, unknown>;
    body = encodeNegotiated(obj, mt, true, () => encodeDiscoveryProtobuf(obj));
  }
  return new Response(body as BodyInit, { headers });
}

/** Drops the cached documents after a group's resources changed in place (resources added at run time). */
export function refreshDiscovery(server: DiscoveryTarget): void {
  stateOf(server).cache.clear();
}

/** Installs `/apis` (the root group list) once; called by installAPIGroup and at New(). */
export function installDiscovery(server: DiscoveryTarget): void {
  const s = stateOf(server);
  if (s.apisInstalled || !server.config.enableDiscovery) return;
  s.apisInstalled = true;
  const routes = new Hono<APIEnv>({ strict: false });
  routes.get('/apis', (c) => {
    const ctx = c.env.ctx;
    const agg = negotiateAggregated(ctx.request.headers.get('accept'));
    if (agg) return serveAggregated(ctx, server, 'apis', agg);
    const addresses = serverAddresses(server);
    const groups = apisGroups(stateOf(server)).map((g) => ({
      name: g.name,
      ...groupVersions(g),
      serverAddressByClientCIDRs: addresses,
    }));
    return writeDiscovery(ctx, { kind: 'APIGroupList', groups });
  });
  server.handler.registerWebService('/apis', routes);
}

/**
 * InstallAPIGroup / InstallLegacyAPIGroup: registers the group's discovery documents and its
 * web services (`/apis/<group>`, `/apis/<group>/<version>`, or `/api` and `/api/<version>`),
 * then the group's own routes.
 */
/** pkg/controlplane/apiserver/aggregator.go apiVersionPriorities: the group priorities of the built-in groups. */
const groupPriority: Record<string, number> = {
  'apiregistration.k8s.io': 18100,
  apps: 17800,
  'events.k8s.io': 17750,
  'authentication.k8s.io': 17700,
  'authorization.k8s.io': 17600,
  autoscaling: 17500,
  batch: 17400,
  'certificates.k8s.io': 17300,
  'networking.k8s.io': 17200,
  policy: 17100,
  'rbac.authorization.k8s.io': 17000,
  'storage.k8s.io': 16800,
  'admissionregistration.k8s.io': 16700,
  'apiextensions.k8s.io': 16700,
  'scheduling.k8s.io': 16600,
  'coordination.k8s.io': 16500,
  'node.k8s.io': 16300,
  'discovery.k8s.io': 16200,
  'flowcontrol.apiserver.k8s.io': 16100,
  'internal.apiserver.k8s.io': 16000,
  'resource.k8s.io': 15900,
  'storagemigration.k8s.io': 15800,
};

export function installAPIGroup(server: DiscoveryTarget, group: APIGroupInfo, routes?: Hono<APIEnv>): void {
  if (group.versions.length === 0) throw new Error(`API group ${JSON.stringify(group.name)} has no versions`);
  const s = stateOf(server);
  const h = server.handler;
  const r = new Hono<APIEnv>({ strict: false });
  if (group.name === '') {
    if (s.core) throw new Error('the legacy API group is already installed');
    s.core = group;
    r.get('/api', (c) => {
      const ctx = c.env.ctx;
      const agg = negotiateAggregated(ctx.request.headers.get('accept'));
      if (agg) return serveAggregated(ctx, server, 'api', agg);
      return writeDiscovery(ctx, {
        kind: 'APIVersions',
        versions: group.versions.map((v) => v.version),
        serverAddressByClientCIDRs: serverAddresses(server),
      });
    });
    for (const v of group.versions)
      r.get(`/api/${v.version}`, (c) => writeDiscovery(c.env.ctx, apiResourceList('', v)));
    // A go-restful web service: Accept is checked against its Produces before the handler.
    h.registerWebService('/api', r, kubeProduces);
  } else {
    if (s.groups.some((g) => g.name === group.name))
      throw new Error(`API group ${JSON.stringify(group.name)} is already installed`);
    // /apis lists groups in kube-apiserver's priority order (the aggregator's apiVersionPriorities),
    // groups it does not know after them, in install order.
    const rank = (name: string) => groupPriority[name] ?? 0;
    const at = s.groups.findIndex((g) => rank(g.name) < rank(group.name));
    s.groups.splice(at < 0 ? s.groups.length : at, 0, group);
    installDiscovery(server);
    const root = `/apis/${group.name}`;
    r.get(root, (c) =>
      writeDiscovery(c.env.ctx, { kind: 'APIGroup', apiVersion: 'v1', name: group.name, ...groupVersions(group) }),
    );
    // `/apis/<group>` is the aggregator's handler in kube-apiserver (negotiation in the handler);
    // `/apis/<group>/<version>` is a go-restful web service (Accept checked against Produces).
    h.registerWebService(root);
    for (const v of group.versions) {
      r.get(`${root}/${v.version}`, (c) => writeDiscovery(c.env.ctx, apiResourceList(group.name, v)));
      h.registerWebService(`${root}/${v.version}`, undefined, kubeProduces);
    }
    h.registerWebService(root, r);
  }
  clearCache(s);
  if (routes) h.goRestfulContainer.route('/', routes);
}
