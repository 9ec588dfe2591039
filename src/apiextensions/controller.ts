// The CRD controllers of apiextensions-apiserver, in one loop over a watch of the CRDs:
// naming (pkg/controller/status/naming_controller.go: NamesAccepted, acceptedNames), establishing
// (pkg/controller/establish: Established), serving (the crdHandler's storage map, rebuilt when a
// CRD's spec changes, dropped when it is deleted) and finalizing (pkg/controller/finalizer:
// Terminating, every custom resource deleted, then the customresourcecleanup finalizer removed).

import { StatusError } from '../endpoints/responsewriters/status.ts';
import type { KubeObject, Store } from '../registry/generic/store.ts';
import { formatTime } from '../util/metatime.ts';
import type { ResourceRegistry } from '../registry/rest/registry.ts';
import type { Logger } from '../util/logger.ts';
import type { MaybePromise } from '../util/maybe-promise.ts';
import type { RequestContext } from '../endpoints/request/context.ts';
import { sameJSON } from '../util/validation/objectmeta.ts';
import { servedVersions, storageDefinition, type ServedVersion } from './customresource.ts';
import {
  CustomResourceCleanupFinalizer,
  findCondition,
  setCondition,
  type CRDNames,
  type CRDStatus,
  type CustomResourceDefinition,
} from './types.ts';

/** One CRD being served. */
export interface Serving {
  crd: CustomResourceDefinition;
  /** The registry's Store of the CRD (storage version). */
  store: Store;
  versions: Map<string, ServedVersion>;
  handlers: Map<string, (ctx: RequestContext) => MaybePromise<Response>>;
}

export interface CRDControllerOptions {
  crdStore: Store;
  crdStatusStore: Store;
  /** The server's registry: each served CRD's storage-version Store is in it (namespace deletion, GC read it). */
  registry: ResourceRegistry;
  logger: Logger;
  serving: Map<string, Serving>;
  onServingChanged: () => void;
  makeHandlers: (
    versions: Map<string, ServedVersion>,
    namespaced: boolean,
  ) => Map<string, (ctx: RequestContext) => MaybePromise<Response>>;
}

const key = (crd: CustomResourceDefinition) => `${crd.spec.group}/${crd.spec.names?.plural}`;

/** The naming controller's conflict check against the other CRDs of the group. */
export function namingConflict(
  crd: CustomResourceDefinition,
  others: Iterable<CustomResourceDefinition>,
):
  | {
      reason: string;
      message: string;
    }
  | undefined {
  const n = crd.spec.names ?? {};
  for (const o of others) {
    if (o.metadata.name === crd.metadata.name || o.spec.group !== crd.spec.group) continue;
    const a: CRDNames = o.status?.acceptedNames ?? {};
    if (!a.plural) continue;
    const used = new Set([a.plural, a.singular, ...(a.shortNames ?? [])].filter(Boolean) as string[]);
    if (n.plural && used.has(n.plural)) return { reason: 'PluralConflict', message: `"${n.plural}" is already in use` };
    if (n.singular && used.has(n.singular))
      return { reason: 'SingularConflict', message: `"${n.singular}" is already in use` };
    for (const s of n.shortNames ?? [])
      if (used.has(s)) return { reason: 'ShortNamesConflict', message: `"${s}" is already in use` };
    const kinds = new Set([a.kind, a.listKind].filter(Boolean) as string[]);
    if (n.kind && kinds.has(n.kind)) return { reason: 'KindConflict', message: `"${n.kind}" is already in use` };
    if (n.listKind && kinds.has(n.listKind))
      return { reason: 'ListKindConflict', message: `"${n.listKind}" is already in use` };
  }
  return undefined;
}

export class CRDController {
  private readonly o: CRDControllerOptions;
  private readonly known = new Map<string, CustomResourceDefinition>();
  /** The spec each registered CRD's registry entry was made from, by `<group>/<plural>`. */
  private readonly registered = new Map<string, { uid: string; spec: string }>();
  private queue: Promise<void> = Promise.resolve();
  /** Resolves when every event seen so far has been handled (tests). */
  idle(): Promise<void> {
    return this.queue;
  }

  constructor(o: CRDControllerOptions) {
    this.o = o;
  }

  private resyncing?: Promise<void>;
  private lastResync = 0;

  /**
   * One pass of the controllers, awaited: list the CRDs and sync each. Requests call it where a
   * long-lived watch cannot run (Workers abandon work that outlives its request): after a CRD
   * write, and when a request names a resource not (yet) served.
   */
  resync(): Promise<void> {
    this.resyncing ??= (async () => {
      try {
        const list = await this.o.crdStore.list('', { recursive: true });
        const names = new Set<string>();
        for (const item of list.items) {
          const crd = item as CustomResourceDefinition;
          names.add(crd.metadata.name!);
          const known = this.known.get(crd.metadata.name!);
          // Keep a newer copy the watch already delivered.
          if (!known || Number(known.metadata.resourceVersion) <= Number(crd.metadata.resourceVersion))
            this.known.set(crd.metadata.name!, crd);
        }
        for (const [name, crd] of [...this.known])
          if (!names.has(name)) {
            this.known.delete(name);
            this.enqueueDeleted(crd);
          }
        for (const crd of this.known.values()) this.enqueue(crd);
        await this.queue;
      } finally {
        this.lastResync = Date.now();
        this.resyncing = undefined;
      }
    })();
    return this.resyncing;
  }

  /** resync() unless one finished within `maxAgeMs`. */
  async resyncIfOlder(maxAgeMs: number): Promise<void> {
    if (Date.now() - this.lastResync >= maxAgeMs) await this.resync();
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const list = await this.o.crdStore.list('', { recursive: true });
        const names = new Set<string>();
        for (const item of list.items) {
          const crd = item as CustomResourceDefinition;
          names.add(crd.metadata.name!);
          this.known.set(crd.metadata.name!, crd);
        }
        for (const [name, crd] of [...this.known]) if (!names.has(name)) this.enqueueDeleted(crd);
        for (const item of list.items) this.enqueue(item as CustomResourceDefinition);
        const w = await this.o.crdStore.watch('', { resourceVersion: list.resourceVersion, recursive: true, signal });
        const stop = () => w.stop();
        signal.addEventListener('abort', stop, { once: true });
        try {
          for await (const ev of w) {
            if (ev.type === 'ERROR') break;
            if (ev.type === 'BOOKMARK') continue;
            const crd = ev.object as CustomResourceDefinition;
            if (ev.type === 'DELETED') {
              this.known.delete(crd.metadata.name!);
              this.enqueueDeleted(crd);
            } else {
              this.known.set(crd.metadata.name!, crd);
              this.enqueue(crd);
            }
          }
        } finally {
          signal.removeEventListener('abort', stop);
          w.stop();
        }
      } catch (err) {
        if (signal.aborted) return;
        this.o.logger.error('CRD controller: list/watch failed', { err: String(err) });
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  private enqueue(crd: CustomResourceDefinition): void {
    this.queue = this.queue.then(() =>
      this.sync(crd).catch((err: unknown) => {
        if (err instanceof StatusError && err.status.reason === 'Conflict') return; // a newer event follows
        if (err instanceof StatusError && err.status.reason === 'NotFound') return;
        this.o.logger.error('CRD controller: sync failed', { name: crd.metadata.name, err: String(err) });
      }),
    );
  }

  private enqueueDeleted(crd: CustomResourceDefinition): void {
    this.queue = this.queue.then(() => this.unserve(crd));
  }

  private async sync(crd: CustomResourceDefinition): Promise<void> {
    // Work on the newest copy (events queue up behind a slow sync).
    const latest = this.known.get(crd.metadata.name!);
    if (!latest || latest.metadata.resourceVersion !== crd.metadata.resourceVersion) return;
    if (crd.metadata.deletionTimestamp) return this.finalize(crd);

    const status: CRDStatus = structuredClone(crd.status ?? {});
    const now = formatTime(new Date());
    const conflict = namingConflict(crd, this.known.values());
    if (conflict) {
      setCondition(status, { type: 'NamesAccepted', status: 'False', ...conflict }, now);
      if (!findCondition(crd, 'Established'))
        setCondition(
          status,
          { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' },
          now,
        );
    } else {
      status.acceptedNames = structuredClone(crd.spec.names ?? {});
      setCondition(
        status,
        { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
        now,
      );
      setCondition(
        status,
        {
          type: 'Established',
          status: 'True',
          reason: 'InitialNamesAccepted',
          message: 'the initial names have been accepted',
        },
        now,
      );
    }
    if (!sameJSON(status, crd.status ?? {})) {
      const updated = await this.writeStatus(crd, status);
      crd = updated;
      this.known.set(crd.metadata.name!, crd);
    }
    if (findCondition(crd, 'Established')?.status === 'True') this.serve(crd);
  }

  private async writeStatus(crd: CustomResourceDefinition, status: CRDStatus): Promise<CustomResourceDefinition> {
    const next = structuredClone(crd);
    next.status = status;
    const r = await this.o.crdStatusStore.update(crd.metadata.name!, next, { namespace: '' });
    return r.object as CustomResourceDefinition;
  }

  /** The registry's Store of a CRD (its storage version), made anew when the spec changed. */
  private register(crd: CustomResourceDefinition): Store {
    const k = key(crd);
    const g = crd.spec.group!;
    const plural = crd.spec.names!.plural!;
    const spec = JSON.stringify(crd.spec);
    const known = this.registered.get(k);
    const existing = this.o.registry.store(g, plural);
    if (existing && known && known.uid === crd.metadata.uid && known.spec === spec) return existing;
    if (existing) this.o.registry.remove(g, plural);
    const store = this.o.registry.add(storageDefinition(crd));
    this.registered.set(k, { uid: crd.metadata.uid ?? '', spec });
    return store;
  }

  /** Serves (or re-serves after a spec change) an established CRD. */
  private serve(crd: CustomResourceDefinition): void {
    const k = key(crd);
    const current = this.o.serving.get(k);
    if (
      current &&
      current.crd.metadata.uid === crd.metadata.uid &&
      sameJSON(current.crd.spec, crd.spec) &&
      sameJSON(current.crd.status?.acceptedNames, crd.status?.acceptedNames)
    ) {
      current.crd = crd;
      return;
    }
    const store = this.register(crd);
    const versions = servedVersions(crd, { storage: store.storage, resourcePrefix: store.keyRoot('') });
    const handlers = this.o.makeHandlers(versions, crd.spec.scope === 'Namespaced');
    this.o.serving.set(k, { crd, store, versions, handlers });
    this.o.onServingChanged();
  }

  private unserve(crd: CustomResourceDefinition): void {
    const k = key(crd);
    const s = this.o.serving.get(k);
    if (s && s.crd.metadata.uid !== crd.metadata.uid) return;
    this.o.serving.delete(k);
    if (this.registered.get(k)?.uid === crd.metadata.uid) {
      this.o.registry.remove(crd.spec.group!, crd.spec.names!.plural!);
      this.registered.delete(k);
    }
    if (s) this.o.onServingChanged();
  }

  /** The finalizer controller: Terminating, delete every custom resource, drop the finalizer. */
  private async finalize(crd: CustomResourceDefinition): Promise<void> {
    if (!crd.metadata.finalizers?.includes(CustomResourceCleanupFinalizer)) return;
    const now = formatTime(new Date());
    if (findCondition(crd, 'Terminating')?.status !== 'True') {
      const status = structuredClone(crd.status ?? {});
      setCondition(
        status,
        {
          type: 'Terminating',
          status: 'True',
          reason: 'InstanceDeletionInProgress',
          message: 'CustomResource deletion is in progress',
        },
        now,
      );
      crd = await this.writeStatus(crd, status);
      this.known.set(crd.metadata.name!, crd);
      const s = this.o.serving.get(key(crd));
      if (s) s.crd = crd;
    }
    // The storage-version Store (registered now if the CRD was never served by this process).
    const store = crd.spec.versions?.some((v) => v.storage) ? this.register(crd) : undefined;
    if (store) {
      for (let round = 0; round < 5; round++) {
        const list = await store.list('', { recursive: true });
        if (list.items.length === 0) break;
        for (const item of list.items) {
          try {
            await store.delete(item.metadata.name!, { namespace: (item as KubeObject).metadata.namespace ?? '' });
          } catch (err) {
            if (!(err instanceof StatusError && err.status.reason === 'NotFound')) throw err;
          }
        }
        const left = await store.list('', { recursive: true });
        if (left.items.length === 0) break;
        // Objects held by their own finalizers: upstream waits; so do we (the next event retries).
        if (left.items.every((i) => i.metadata.deletionTimestamp)) return;
      }
    }
    const next = structuredClone(crd);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== CustomResourceCleanupFinalizer);
    await this.o.crdStatusStore.update(crd.metadata.name!, next, { namespace: '' });
    // The last finalizer gone, the CRD is deleted: stop serving it now, not at the watch's event
    // (on Workers there is none: the next pass would be the first to see it).
    if (next.metadata.finalizers.length === 0) {
      this.known.delete(crd.metadata.name!);
      this.unserve(crd);
    }
  }
}
