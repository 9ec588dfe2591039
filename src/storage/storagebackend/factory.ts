// Builds the storage.Interface of each resource over one engine, as the generic registry's
// StorageWithCacher / UndecoratedStorage do (k8s.io/apiserver/pkg/registry/generic/registry/
// storage_factory.go): the store over the engine under `--etcd-prefix`, and, unless
// `--watch-cache=false`, the watch cache above it.

import type { GroupResource } from '../../endpoints/apierrors.ts';
import { Cacher, type CacherConfig } from '../cacher/cacher.ts';
import type { Interface, StorageObject } from '../interfaces.ts';
import { builtinResourcePrefix, customResourcePrefix, DefaultEtcdPrefix } from '../keys.ts';
import type { KV } from '../kv.ts';
import { Store } from '../store.ts';
import type { Transformer } from '../value/transformer.ts';

export interface StorageFactoryConfig {
  kv: KV;
  /** `--etcd-prefix` (default `/registry`). */
  prefix?: string;
  /** `--watch-cache` (default true). */
  watchCache?: boolean;
  /** The transformer (encryption at rest) of a resource, if any (`--encryption-provider-config`). */
  transformerFor?: (gr: GroupResource) => Transformer | undefined;
  /** Tuning of every watch cache (tests shorten the bookmark interval). */
  cacher?: Partial<Omit<CacherConfig, 'storage' | 'resourcePrefix' | 'groupResource'>>;
}

export interface ResourceStorageOptions {
  groupResource: GroupResource;
  /** Key prefix below `--etcd-prefix`; default: the built-in layout, or `/<group>/<plural>` when `custom`. */
  resourcePrefix?: string;
  /** A custom resource (CRD-served): keys under `/<group>/<plural>`. */
  custom?: boolean;
  /** apiVersion + kind of the stored type, for bookmark objects. */
  newFunc?: () => StorageObject;
  /** The registry's KeyFunc on an object, for the watch cache (default `<prefix>/<ns>/<name>` or `<prefix>/<name>`). */
  keyFunc?: (obj: StorageObject) => string;
}

export interface ResourceStorage {
  storage: Interface;
  /** The resource prefix the keys given to `storage` start with (e.g. `/configmaps`). */
  resourcePrefix: string;
  /** Stops the watch cache's reflector (DestroyFunc). */
  destroy(): void;
}

/** One resource's storage: the store, under the watch cache when it is on. */
export function newResourceStorage(cfg: StorageFactoryConfig, opts: ResourceStorageOptions): ResourceStorage {
  const resourcePrefix =
    opts.resourcePrefix ??
    (opts.custom ? customResourcePrefix(opts.groupResource) : builtinResourcePrefix(opts.groupResource));
  const store = new Store({
    kv: cfg.kv,
    pathPrefix: cfg.prefix ?? DefaultEtcdPrefix,
    resourcePrefix,
    groupResource: opts.groupResource,
    newFunc: opts.newFunc,
    transformer: cfg.transformerFor?.(opts.groupResource),
  });
  if (cfg.watchCache === false) return { storage: store, resourcePrefix, destroy: () => {} };
  const cacher = new Cacher({
    ...cfg.cacher,
    storage: store,
    resourcePrefix,
    groupResource: opts.groupResource,
    newFunc: opts.newFunc,
    keyFunc: opts.keyFunc,
  });
  return { storage: cacher, resourcePrefix, destroy: () => cacher.stop() };
}

/** The factory the server holds: one engine, many resources; destroy() stops every watch cache. */
export class StorageFactory {
  readonly config: StorageFactoryConfig;
  private readonly made: ResourceStorage[] = [];

  constructor(config: StorageFactoryConfig) {
    this.config = config;
  }

  forResource(opts: ResourceStorageOptions): ResourceStorage {
    const rs = newResourceStorage(this.config, opts);
    this.made.push(rs);
    return rs;
  }

  destroy(): void {
    for (const rs of this.made.splice(0)) rs.destroy();
  }
}
