// Installs the resources served from storage (kube-apiserver's legacy and coordination REST storage,
// pkg/controlplane/apiserver): the REST handler of every resource of the server's ResourceRegistry
// under /api/v1 or /apis/<group>/<version>, its discovery, the admission chain in front of every
// write, and the controllers that work over the registry (system namespaces, namespace deletion …).

import { Hono } from 'hono';
import { AdmissionChain } from '../../admission/chain.ts';
import type { AdmissionPlugin } from '../../admission/interfaces.ts';
import { newNamespaceLifecycle } from '../../admission/plugin/namespace/lifecycle.ts';
import { restHandler } from '../../endpoints/handlers/rest.ts';
import { errorNegotiated, newNotFound as notFoundStatus, StatusError } from '../../endpoints/responsewriters/status.ts';
import type { RequestContext } from '../../endpoints/request/context.ts';
import type { MaybePromise } from '../../util/maybe-promise.ts';
import { installAPIGroup, refreshDiscovery, type APIGroupInfo } from '../../endpoints/discovery/discovery.ts';
import type { RegisteredResource, ResourceDefinition, ResourceRegistry } from '../../registry/rest/registry.ts';
import { builtinDefinitions, builtinSchemaForGVK } from '../../endpoints/openapi/schemas.ts';
import type { TypeSchema } from '../../util/managedfields/schema.ts';
import type { APIEnv, RouteTarget } from '../mux/container.ts';
import type { Logger } from '../../util/logger.ts';
import { startControllers, type Controller } from '../controllers/controller.ts';
import { newNamespaceController } from '../controllers/namespace.ts';
import { newSystemNamespacesController } from '../controllers/systemnamespaces.ts';
import { newKubernetesServiceController } from '../controllers/kubernetesservice.ts';
import { newGarbageCollector } from '../controllers/garbagecollector.ts';
import { controllerLeaderElection } from '../leaderelection/leaderelection.ts';
import { newAPIServerIdentityController } from '../controllers/apiserveridentity.ts';
import type { LeaderElectionSettings } from '../leaderelection/config.ts';

/** Builds an admission plugin over the registry (upstream: a plugin and its initializers). */
export type AdmissionPluginFactory = (registry: ResourceRegistry) => AdmissionPlugin;

/** NamespaceLifecycle over the registry's namespaces. */
export const namespaceLifecycle: AdmissionPluginFactory = (registry) =>
  newNamespaceLifecycle(async (name) => {
    const namespaces = registry.store('', 'namespaces');
    if (!namespaces) return undefined;
    try {
      // Read-only: the plugin reads the phase (upstream asks its informer's lister first).
      return await namespaces.get('', name, undefined, true);
    } catch (err) {
      if (err instanceof StatusError && err.status.reason === 'NotFound') return undefined;
      throw err;
    }
  });

/** The default admission plugins, in order (kube-apiserver's enabled-by-default list, as far as served). */
export const defaultAdmissionPlugins = (): AdmissionPluginFactory[] => [namespaceLifecycle];

/** The default controllers over the registry. */
export const defaultControllers = (): Controller[] => [
  newSystemNamespacesController(),
  newNamespaceController(),
  newGarbageCollector(),
];

/** What installResourceAPIs reads from the server's Config. */
export interface ResourceAPIsConfig {
  resources?: ResourceRegistry;
  admissionPlugins: readonly AdmissionPluginFactory[];
  controllers: readonly Controller[];
  logger: Logger;
  maxRequestBodyBytes: number;
  minRequestTimeout: number;
  enableDiscovery: boolean;
  externalAddress: string;
  publicAddress?: string;
  secureServing?: { bindPort: number };
  apiServerID?: string;
  leaderElection?: LeaderElectionSettings;
  /** The storage backend's type: only servers over etcd share their storage with others. */
  storage?: { config: { type: string } };
}

type Handler = (ctx: RequestContext) => MaybePromise<Response>;

/** A Config.routeInstallers entry: serves the config's ResourceRegistry when it has one. */
export function installResourceAPIs(server: RouteTarget<ResourceAPIsConfig>): void {
  const c = server.config;
  const registry = c.resources;
  if (!registry) return;
  const admission = new AdmissionChain(c.admissionPlugins.map((f) => f(registry)));

  const handlers = new Map<string, Handler>();
  const handlerOf = ({ definition: def, store }: RegisteredResource): Handler => {
    const rest = restHandler({
      store,
      kindInfo: def.kindInfo,
      maxRequestBodyBytes: c.maxRequestBodyBytes,
      minRequestTimeoutSeconds: c.minRequestTimeout,
      admission,
      subresources: def.resource.subresources,
      deleteOverride: def.deleteOverride && ((name) => def.deleteOverride!(registry, name)),
      typeSchema: typeSchemaOf(def),
      // Custom resources have no patch strategies: strategic merge patch is a 415 for them.
      strategicMergePatch: !def.custom,
    });
    const subs = def.subresourceHandlers;
    if (!subs) return rest;
    return (ctx) => {
      const sub = ctx.requestInfo?.subresource;
      const h = sub && ctx.requestInfo?.name ? subs[sub] : undefined;
      return h ? h(ctx, registry) : rest(ctx);
    };
  };
  for (const r of registry.list()) handlers.set(`${r.definition.group}/${r.definition.resource.name}`, handlerOf(r));

  const groups = groupInfos(registry.list());
  // Resources added or removed later in an installed group version are served and discovered;
  // new groups are their installer's (custom resources: the apiextensions server).
  const unsubscribe = registry.onChange((event, r) => {
    const key = `${r.definition.group}/${r.definition.resource.name}`;
    const v = groups.get(r.definition.group)?.versions.find((x) => x.version === r.definition.version);
    if (!v) return;
    if (event === 'add') {
      handlers.set(key, handlerOf(r));
      v.resources.push(r.definition.resource);
    } else {
      handlers.delete(key);
      v.resources = v.resources.filter((x) => x.name !== r.definition.resource.name);
    }
    refreshDiscovery(server);
  });
  server.addDestroyFunc(unsubscribe);

  for (const group of groups.values()) {
    const r = new Hono<APIEnv>({ strict: false });
    const root = group.name ? `/apis/${group.name}` : '/api';
    for (const v of group.versions) {
      r.all(`${root}/${v.version}/*`, (hc) => {
        const ctx = hc.env.ctx;
        const info = ctx.requestInfo;
        const handler = info?.isResourceRequest ? handlers.get(`${group.name}/${info.resource}`) : undefined;
        // go-restful's answer for a path without a route (apiserver InstallServiceErrorHandler).
        if (!handler) return errorNegotiated(notFoundStatus(), ctx.request, ctx.url);
        return handler(ctx);
      });
    }
    installAPIGroup(server, group, r);
  }

  // The kubernetes service controller works from this server's own addresses (controlplane instance).
  const kubernetesService = newKubernetesServiceController({
    servicePort: 443,
    publicServicePort: c.secureServing?.bindPort || 443,
    publicIP: c.publicAddress,
    leaseReconciler: c.storage?.config.type === 'etcd3',
  });
  // Over etcd other servers may share the storage: the controllers that must run once are elected
  // (kube-controller-manager's --leader-elect); an embedded store is this server's alone.
  const le = c.leaderElection;
  const leases = registry.store('coordination.k8s.io', 'leases');
  const shared = c.storage?.config.type === 'etcd3';
  const id = c.apiServerID ?? `apiserver-${crypto.randomUUID()}`;
  const election = le?.leaderElect && leases && shared ? controllerLeaderElection(leases, le, id, c.logger) : undefined;
  const controllers = [...c.controllers, kubernetesService];
  // Servers sharing the storage publish who they are (kube-apiserver's identity Leases).
  if (shared) controllers.push(newAPIServerIdentityController(id));
  server.addDestroyFunc(startControllers(controllers, registry, c.logger, election));
}

/** The schema strategic merge patch and apply read: the definition's own, its OpenAPI one, or upstream's. */
function typeSchemaOf(def: ResourceDefinition): TypeSchema | undefined {
  if (def.typeSchema) return def.typeSchema;
  if (def.openAPI) {
    const definitions = { ...builtinDefinitions(), ...def.openAPI.definitions };
    const root = definitions[def.openAPI.name];
    return root ? { root, definitions } : undefined;
  }
  const root = builtinSchemaForGVK({ group: def.group, version: def.version, kind: def.resource.kind });
  return root ? { root, definitions: builtinDefinitions() } : undefined;
}

function groupInfos(resources: readonly RegisteredResource[]): Map<string, APIGroupInfo> {
  const groups = new Map<string, APIGroupInfo>();
  for (const { definition: def } of resources) {
    let g = groups.get(def.group);
    if (!g) groups.set(def.group, (g = { name: def.group, versions: [] }));
    let v = g.versions.find((x) => x.version === def.version);
    if (!v) g.versions.push((v = { version: def.version, resources: [] }));
    v.resources.push(def.resource);
  }
  return groups;
}
