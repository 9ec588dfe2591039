// The resources a server serves from storage, each a registry Store over its own storage.Interface
// (upstream: the APIGroupInfo.VersionedResourcesStorageMap of every RESTStorageProvider,
// pkg/controlplane/apiserver/options and k8s.io/apiserver/pkg/server/genericapiserver.go). One
// registry per server: the REST routes serve it, controllers and authorizers read through it,
// and resources can be added or removed while serving (custom resources).

import type { TypeSchema } from '../../util/managedfields/schema.ts';
import type { KindInfo } from '../../endpoints/handlers/decode.ts';
import type { RequestContext } from '../../endpoints/request/context.ts';
import type { GroupResource } from '../../endpoints/apierrors.ts';
import type { Interface } from '../../storage/interfaces.ts';
import type { StorageFactory } from '../../storage/storagebackend/factory.ts';
import { Store, type KubeObject, type StoreHooks, type Strategy } from '../generic/store.ts';
import type { TableConvertor } from '../generic/table.ts';
import type { ResourceOpenAPI } from '../../endpoints/openapi/builder.ts';

/** What discovery lists of a resource (metav1.APIResource). */
export interface ResourceInfo {
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

/** Everything needed to serve one resource. */
export interface ResourceDefinition {
  group: string;
  version: string;
  resource: ResourceInfo;
  listKind: string;
  strategy: Strategy;
  kindInfo: KindInfo;
  table: TableConvertor;
  /** Stored as a custom resource: keys under `/<group>/<plural>` (storagebackend factory). */
  custom?: boolean;
  /** A key prefix other than the built-in layout's (e.g. events.k8s.io events share `/events`). */
  resourcePrefix?: string;
  /**
   * Its OpenAPI schema: the definition name of its kind and the definitions it brings (a CRD's
   * structural schema). Without it, /openapi describes the kind with its built-in definition.
   */
  openAPI?: ResourceOpenAPI;
  /** The schemas of the other versions served over this storage (a CRD's served versions), by version. */
  openAPIVersions?: Readonly<Record<string, ResourceOpenAPI>>;
  /** A resource whose delete is its own (namespaces): answers the object it leaves behind. */
  deleteOverride?(registry: ResourceRegistry, name: string): Promise<KubeObject>;
  /**
   * The kind's OpenAPI v3 schema for strategic merge patch and server-side apply (a CRD version's
   * structural schema for a custom resource); built-in kinds default to upstream's.
   */
  typeSchema?: TypeSchema;
  /** Subresources answered by their own handler (serviceaccounts/token), by name. */
  subresourceHandlers?: Record<string, (ctx: RequestContext, registry: ResourceRegistry) => Promise<Response>>;
  /** Wraps the resource's storage (a stored version other than the served one: events.k8s.io). */
  decorateStorage?(storage: Interface): Interface;
  /** The Store's hooks (BeginCreate, AfterDelete, TTLFunc: allocators, event TTLs). */
  hooks?(deps: ResourceHookDeps): StoreHooks;
}

/** Settings of the kube-apiserver that some resources' hooks read. */
export interface RegistrySettings {
  /** `--service-cluster-ip-range`, primary first (default 10.0.0.0/24). */
  serviceClusterIPRanges: readonly string[];
  /** `--event-ttl` in seconds (default 3600). */
  eventTTLSeconds: number;
}

/** What a resource's hooks may use. */
export interface ResourceHookDeps extends RegistrySettings {
  /** Storage of a resource that is not served (IP addresses), keyed as upstream. */
  storage(gr: GroupResource): Interface;
  /** The registry (other Stores, looked up when a hook runs). */
  registry: ResourceRegistry;
}

export const defaultRegistrySettings: RegistrySettings = {
  serviceClusterIPRanges: ['10.0.0.0/24'],
  eventTTLSeconds: 3600,
};

/** A served resource: its definition and the Store over its storage. */
export interface RegisteredResource {
  readonly definition: ResourceDefinition;
  readonly store: Store;
}

/** What changed: a resource added or removed (discovery and OpenAPI follow). */
export type RegistryListener = (event: 'add' | 'remove', resource: RegisteredResource) => void;

const keyOf = (group: string, resource: string) => `${group}/${resource}`;

/** The apiVersion of a definition (`v1`, `coordination.k8s.io/v1`). */
export const apiVersionOf = (d: { group: string; version: string }) =>
  d.group ? `${d.group}/${d.version}` : d.version;

export class ResourceRegistry {
  private readonly resources = new Map<string, RegisteredResource & { destroy(): void }>();
  private readonly listeners = new Set<RegistryListener>();
  private readonly factory: StorageFactory;
  private readonly unserved = new Map<string, Interface>();
  readonly settings: RegistrySettings;

  constructor(
    factory: StorageFactory,
    definitions: readonly ResourceDefinition[] = [],
    settings: RegistrySettings = defaultRegistrySettings,
  ) {
    this.factory = factory;
    this.settings = settings;
    for (const d of definitions) this.add(d);
  }

  /** Serves a resource: makes its storage (and watch cache) and Store. */
  add(definition: ResourceDefinition): Store {
    const key = keyOf(definition.group, definition.resource.name);
    if (this.resources.has(key)) throw new Error(`resource ${key} is already registered`);
    const groupResource = { group: definition.group, resource: definition.resource.name };
    const apiVersion = apiVersionOf(definition);
    const rs = this.factory.forResource({
      groupResource,
      custom: definition.custom,
      resourcePrefix: definition.resourcePrefix,
      newFunc: () => ({ apiVersion, kind: definition.resource.kind }),
    });
    const store = new Store({
      qualifiedResource: groupResource,
      apiVersion,
      kind: definition.resource.kind,
      listKind: definition.listKind,
      strategy: definition.strategy,
      storage: definition.decorateStorage ? definition.decorateStorage(rs.storage) : rs.storage,
      resourcePrefix: rs.resourcePrefix,
      tableConvertor: definition.table,
      hooks: definition.hooks?.({ ...this.settings, registry: this, storage: (gr) => this.unservedStorage(gr) }),
    });
    const entry = { definition, store, destroy: () => rs.destroy() };
    this.resources.set(key, entry);
    for (const l of this.listeners) l('add', entry);
    return store;
  }

  /** The storage of a resource kept but not served (networking.k8s.io ipaddresses, masterleases), made once. */
  unservedStorage(gr: GroupResource): Interface {
    const key = keyOf(gr.group, gr.resource);
    let s = this.unserved.get(key);
    if (!s) this.unserved.set(key, (s = this.factory.forResource({ groupResource: gr }).storage));
    return s;
  }

  /** Stops serving a resource (its stored objects stay; its watch cache stops). */
  remove(group: string, resource: string): void {
    const key = keyOf(group, resource);
    const entry = this.resources.get(key);
    if (!entry) return;
    this.resources.delete(key);
    entry.destroy();
    for (const l of this.listeners) l('remove', entry);
  }

  /** The Store of group/resource (`''` for core), if served. */
  store(group: string, resource: string): Store | undefined {
    return this.resources.get(keyOf(group, resource))?.store;
  }

  get(group: string, resource: string): RegisteredResource | undefined {
    return this.resources.get(keyOf(group, resource));
  }

  /** Every served resource, in registration order. */
  list(): RegisteredResource[] {
    return [...this.resources.values()];
  }

  /** Calls `fn` on every add and remove; returns the unsubscribe function. */
  onChange(fn: RegistryListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
