// `/openapi/v2`, `/openapi/v3` and `/openapi/v3/<group-version>` (kube-apiserver installs them on
// the non-API mux: routes/openapi.go). The documents describe what the server serves: discovery's
// group versions and resources (added and removed at run time, e.g. by CRDs), with each
// resource's schema from its ResourceDefinition's `openAPI` (config.resources) or
// setResourceOpenAPI (resources served by other installers), else the built-in definition of its
// kind. A delegate's groups (apiextensions-apiserver's, with every served CRD version) are
// described too, as kube-aggregator merges their specs into kube-apiserver's.

import type { Handler } from '../../endpoints/request/context.ts';
import { allDiscoveryGroups } from '../../endpoints/discovery/discovery.ts';
import type { OpenAPIGroupVersion, OpenAPIResource, ResourceOpenAPI } from '../../endpoints/openapi/builder.ts';
import { OpenAPIService } from '../../endpoints/openapi/service.ts';
import type { ResourceRegistry } from '../../registry/rest/registry.ts';
import type { RouteContainer, RouteTarget } from '../mux/container.ts';

/** What installOpenAPI reads from the server's Config. */
export interface OpenAPIConfig {
  readonly enableDiscovery: boolean;
  readonly externalAddress: string;
  readonly version: { readonly gitVersion: string };
  /** The served resources; a ResourceDefinition's `openAPI` is its schema. */
  readonly resources?: ResourceRegistry;
}

interface SchemaState {
  byResource: Map<string, ResourceOpenAPI>;
  generation: number;
}

const states = new WeakMap<RouteContainer, SchemaState>();

function stateOf(h: RouteContainer): SchemaState {
  let s = states.get(h);
  if (!s) states.set(h, (s = { byResource: new Map(), generation: 0 }));
  return s;
}

const key = (group: string, version: string, resource: string) => `${group}/${version}/${resource}`;

/**
 * Sets (or with `undefined` clears) the schema a served resource is described with: the
 * definition name of its kind and the definitions it brings (a CRD's structural schema). The
 * documents are rebuilt on the next request.
 */
export function setResourceOpenAPI(
  server: { readonly handler: RouteContainer },
  group: string,
  version: string,
  resource: string,
  openAPI: ResourceOpenAPI | undefined,
): void {
  const s = stateOf(server.handler);
  const k = key(group, version, resource);
  if (openAPI) s.byResource.set(k, openAPI);
  else if (!s.byResource.delete(k)) return;
  s.generation++;
}

/** The subresource kinds that belong to another group version. */
const subresourceGroupVersions: Record<string, { group: string; version: string }> = {
  Scale: { group: 'autoscaling', version: 'v1' },
  TokenRequest: { group: 'authentication.k8s.io', version: 'v1' },
};

/** The served group versions, from discovery, with the schemas set for their resources. */
export function servedGroupVersions(server: RouteTarget<OpenAPIConfig>): OpenAPIGroupVersion[] {
  const s = stateOf(server.handler);
  const registry = server.config.resources;
  const out: OpenAPIGroupVersion[] = [];
  for (const g of allDiscoveryGroups(server))
    for (const v of g.versions) {
      const resources: OpenAPIResource[] = v.resources.map((r) => {
        const res: OpenAPIResource = { name: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs };
        if (r.subresources?.length)
          res.subresources = r.subresources.map((sr) => ({
            ...sr,
            ...(sr.kind !== r.kind ? subresourceGroupVersions[sr.kind] : undefined),
          }));
        const def = registry?.get(g.name, r.name)?.definition;
        const openAPI =
          (def?.version === v.version ? def.openAPI : def?.openAPIVersions?.[v.version]) ??
          s.byResource.get(key(g.name, v.version, r.name));
        if (openAPI) res.openAPI = openAPI;
        return res;
      });
      out.push({ group: g.name, version: v.version, resources });
    }
  return out;
}

/** A Config.routeInstallers entry: serves the OpenAPI documents of whatever the server serves. */
export function installOpenAPI(server: RouteTarget<OpenAPIConfig>): void {
  const s = stateOf(server.handler);
  // A resource re-added with another schema (a CRD update) changes no discovery list.
  const unsubscribe = server.config.resources?.onChange(() => s.generation++);
  if (unsubscribe) server.addDestroyFunc(unsubscribe);
  const service = new OpenAPIService(
    {
      groupVersions: () => servedGroupVersions(server),
      // Discovery's lists are small; their JSON changes whenever a resource is added or removed.
      fingerprint: () =>
        `${s.generation}:${JSON.stringify(allDiscoveryGroups(server), ['name', 'versions', 'version', 'resources', 'kind', 'namespaced', 'verbs', 'subresources'])}`,
    },
    { version: server.config.version.gitVersion },
  );
  const mux = server.handler.nonGoRestfulMux;
  const v3Prefix = '/openapi/v3/';
  const v3GroupVersion: Handler = (ctx) =>
    service.handleGroupVersion(ctx.request, ctx.url, ctx.url.pathname.slice(v3Prefix.length));
  mux.handle('/openapi/v2', (ctx) => service.handleV2(ctx.request));
  mux.handle('/openapi/v3', (ctx) => service.handleDiscovery(ctx.request));
  mux.handlePrefix(v3Prefix, v3GroupVersion);
}
