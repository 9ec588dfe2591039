// Installs the resources served from storage (kube-apiserver's legacy and coordination REST storage,
// pkg/controlplane/apiserver): one registry Store per resource over the storage backend, its REST
// handler under /api/v1 or /apis/<group>/<version>, discovery, the NamespaceLifecycle admission
// check and namespace deletion (what kube's namespace controller does, in-process).

import { Hono } from 'hono';
import { newNotFound, type GroupResource } from '../../endpoints/apierrors.ts';
import { restHandler, type RESTOptions } from '../../endpoints/handlers/rest.ts';
import { errorNegotiated, newNotFound as notFoundStatus, StatusError } from '../../endpoints/responsewriters/status.ts';
import { newForbidden } from '../../authorization/forbidden.ts';
import {
  builtinResources,
  FinalizerKubernetes,
  type ResourceDefinition,
  type ResourceHookDeps,
} from '../../registry/core/resources.ts';
import { reconcileKubernetesService } from '../../registry/core/kubernetesservice.ts';
import { firstServiceIP, parseCIDR } from '../../registry/core/ipallocator.ts';
import { formatTime, Store, type KubeObject } from '../../registry/generic/store.ts';
import type { APIEnv, RouteTarget } from '../mux/container.ts';
import type { StorageBackend } from '../../storage/storagebackend/open.ts';
import type { Logger } from '../../util/logger.ts';
import { installAPIGroup, type APIGroupInfo } from '../../endpoints/discovery/discovery.ts';

const namespacesGR: GroupResource = { group: '', resource: 'namespaces' };
const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** What installResourceAPIs reads from the server's Config. */
export interface ResourceAPIsConfig {
  storage?: StorageBackend;
  logger: Logger;
  maxRequestBodyBytes: number;
  minRequestTimeout: number;
  enableDiscovery: boolean;
  externalAddress: string;
  serviceClusterIPRanges: readonly string[];
  eventTTLSeconds: number;
  publicAddress?: string;
  secureServing?: { bindPort: number };
}

/** A Config.routeInstallers entry: serves builtinResources when the config has a storage backend. */
export function installResourceAPIs(server: RouteTarget<ResourceAPIsConfig>): void {
  const c = server.config;
  if (!c.storage) return;
  // The backend's factory: its watch caches stop when the backend closes.
  const factory = c.storage.factory;

  const stores = new Map<string, Store>();
  const unserved = new Map<string, Store['storage']>();
  const hookDeps: ResourceHookDeps = {
    storage: (gr) => {
      const key = `${gr.group}/${gr.resource}`;
      let s = unserved.get(key);
      if (!s) unserved.set(key, (s = factory.forResource({ groupResource: gr }).storage));
      return s;
    },
    store: (group, resource) => stores.get(`${group}/${resource}`),
    serviceClusterIPRanges: c.serviceClusterIPRanges,
    eventTTLSeconds: c.eventTTLSeconds,
  };
  for (const def of builtinResources) {
    const gr = { group: def.group, resource: def.resource.name };
    const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
    const rs = factory.forResource({ groupResource: gr, newFunc: () => ({ apiVersion, kind: def.resource.kind }) });
    stores.set(`${def.group}/${def.resource.name}`, newStore(def, rs.storage, rs.resourcePrefix, apiVersion, hookDeps));
  }
  const namespaces = stores.get('/namespaces')!;
  const namespaced = [...stores.values()].filter((s) => s.namespaceScoped);

  // NamespaceLifecycle (plugin/pkg/admission/namespace/lifecycle): no new content in a missing or terminating namespace.
  const admitCreate = async (store: Store, namespace: string, name: string): Promise<void> => {
    if (!store.namespaceScoped || !namespace) return;
    let ns: KubeObject;
    try {
      ns = await namespaces.get('', namespace);
    } catch (err) {
      if (err instanceof StatusError && err.status.reason === 'NotFound') throw newNotFound(namespacesGR, namespace);
      throw err;
    }
    if ((ns.status as { phase?: string } | undefined)?.phase === 'Terminating')
      throw new StatusError(
        newForbidden(
          store.qualifiedResource.group,
          store.qualifiedResource.resource,
          name,
          `unable to create new content in namespace ${namespace} because it is being terminated`,
        ),
      );
  };

  const handlers = new Map<string, (ctx: Parameters<ReturnType<typeof restHandler>>[0]) => Promise<Response>>();
  for (const [key, store] of stores) {
    const def = builtinResources.find((d) => `${d.group}/${d.resource.name}` === key)!;
    const opts: RESTOptions = {
      store,
      kindInfo: def.kindInfo,
      maxRequestBodyBytes: c.maxRequestBodyBytes,
      minRequestTimeoutSeconds: c.minRequestTimeout,
      admitCreate: (namespace, name) => admitCreate(store, namespace, name),
      subresources: def.resource.subresources,
    };
    if (store === namespaces) opts.deleteOverride = (name) => deleteNamespace(namespaces, namespaced, name);
    handlers.set(key, restHandler(opts));
  }

  // The system namespaces exist from the start (pkg/controlplane/controller/systemnamespaces; `default`
  // by the kubernetes-service bootstrap controller). Not a post-start hook: servers used through
  // fetch() alone never run hooks, and their /readyz must not wait for one.
  const primaryRange = parseCIDR(c.serviceClusterIPRanges[0] ?? '10.0.0.0/24')!;
  void ensureNamespaces(namespaces, systemNamespaces)
    .then(() =>
      reconcileKubernetesService(stores.get('/services')!, stores.get('/endpoints'), {
        serviceIP: firstServiceIP(primaryRange),
        servicePort: 443,
        publicServicePort: c.secureServing?.bindPort || 443,
        publicIP: c.publicAddress,
      }),
    )
    .catch((err: unknown) =>
      c.logger.error('Creating the system namespaces and the kubernetes service failed', { err: String(err) }),
    );

  for (const group of groupInfos()) {
    const r = new Hono<APIEnv>({ strict: false });
    const root = group.name ? `/apis/${group.name}` : '/api';
    for (const v of group.versions) {
      r.all(`${root}/${v.version}/*`, async (hc) => {
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
}

function newStore(
  def: ResourceDefinition,
  storage: Store['storage'],
  resourcePrefix: string,
  apiVersion: string,
  deps: ResourceHookDeps,
): Store {
  return new Store({
    hooks: def.hooks?.(deps),
    qualifiedResource: { group: def.group, resource: def.resource.name },
    apiVersion,
    kind: def.resource.kind,
    listKind: def.listKind,
    strategy: def.strategy,
    storage,
    resourcePrefix,
    tableConvertor: def.table,
  });
}

function groupInfos(): APIGroupInfo[] {
  const groups = new Map<string, APIGroupInfo>();
  for (const def of builtinResources) {
    let g = groups.get(def.group);
    if (!g) groups.set(def.group, (g = { name: def.group, versions: [] }));
    let v = g.versions.find((x) => x.version === def.version);
    if (!v) g.versions.push((v = { version: def.version, resources: [] }));
    v.resources.push(def.resource);
  }
  return [...groups.values()];
}

/**
 * Namespace deletion (pkg/registry/core/namespace/storage/storage.go Delete, then the namespace
 * controller): the namespace turns Terminating with a deletionTimestamp and is answered as is;
 * its contents are deleted, then the namespace itself.
 */
async function deleteNamespace(namespaces: Store, namespaced: Store[], name: string): Promise<KubeObject> {
  const key = namespaces.key('', name);
  const existing = await namespaces.get('', name);
  if (existing.metadata.deletionTimestamp) return existing;
  const marked = (await namespaces.storage.guaranteedUpdate(key, false, undefined, (input) => {
    const next = structuredClone(input) as KubeObject;
    next.metadata.deletionTimestamp ??= formatTime(new Date());
    next.metadata.deletionGracePeriodSeconds ??= 0;
    next.status = { ...(next.status as object), phase: 'Terminating' };
    delete next.metadata.resourceVersion;
    return { object: next };
  })) as KubeObject;
  void finalizeNamespace(namespaces, namespaced, name).catch(() => {
    // Left Terminating; a later delete retries.
  });
  return marked;
}

async function finalizeNamespace(namespaces: Store, namespaced: Store[], name: string): Promise<void> {
  for (const store of namespaced) await store.deleteCollection({ namespace: name }, { recursive: true });
  const key = namespaces.key('', name);
  // spec.finalizers: the `kubernetes` finalizer is ours; others are left to their controllers.
  const ns = await namespaces.get('', name);
  const rest = ((ns.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).filter(
    (f) => f !== FinalizerKubernetes,
  );
  if (rest.length > 0 || (ns.metadata.finalizers?.length ?? 0) > 0) {
    await namespaces.storage.guaranteedUpdate(key, false, undefined, (input) => {
      const next = structuredClone(input) as KubeObject;
      next.spec = { ...(next.spec as object), finalizers: rest };
      delete next.metadata.resourceVersion;
      return { object: next };
    });
    return;
  }
  await namespaces.storage.delete(key);
}

async function ensureNamespaces(namespaces: Store, names: readonly string[]): Promise<void> {
  for (const name of names) {
    try {
      await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { namespace: '' });
    } catch (err) {
      if (!(err instanceof StatusError && err.status.reason === 'AlreadyExists')) throw err;
    }
  }
}
