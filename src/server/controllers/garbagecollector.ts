// The garbage collector (kube's pkg/controller/garbagecollector, in process): it watches every
// served resource, keeps the owner → dependents graph of metadata.ownerReferences, and
// - deletes dependents whose owners are all gone (background deletion, and dependents created with
//   a dangling owner reference), keeping those that still have an owner and dropping their dangling
//   references (attemptToDeleteItem's solid/dangling/waiting classification);
// - orphans: for an owner being deleted with the `orphan` finalizer, removes the references to it
//   from its dependents, then the finalizer (orphanDependents);
// - foreground: for an owner being deleted with the `foregroundDeletion` finalizer, deletes its
//   dependents (in the foreground themselves when they have dependents) and removes the finalizer
//   once no dependent with `blockOwnerDeletion: true` is left (processDeletingDependentsItem).
// Owner references to kinds this server does not serve are left alone (upstream retries them).

import { StatusError } from '../../endpoints/responsewriters/status.ts';
import type { KubeObject, Store } from '../../registry/generic/store.ts';
import type { RegisteredResource, ResourceRegistry } from '../../registry/rest/registry.ts';
import type { OwnerReference } from '../../util/validation/objectmeta.ts';
import type { Logger } from '../../util/logger.ts';
import { listAndWatch, type Controller } from './controller.ts';
import { deepCopyJSON } from '../../util/deepcopy.ts';

/** Retries must not keep the process alive (Node's unref; other runtimes have none). */
const unref = (t: unknown) => (t as { unref?: () => void }).unref?.();

export const FinalizerOrphanDependents = 'orphan';
export const FinalizerDeleteDependents = 'foregroundDeletion';

interface Node {
  store: Store;
  namespace: string;
  name: string;
  uid: string;
  owners: OwnerReference[];
  deleting: boolean;
  finalizers: string[];
}

const isReason = (err: unknown, reason: string) => err instanceof StatusError && err.status.reason === reason;
const groupOf = (apiVersion: string | undefined) =>
  apiVersion?.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';

export function newGarbageCollector(): Controller {
  return {
    name: 'garbage-collector-controller',
    requiresLeader: true,
    run: (registry, signal, logger) => new GarbageCollector(registry, signal, logger).run(),
  };
}

class GarbageCollector {
  /** uid → node. */
  private readonly nodes = new Map<string, Node>();
  /** owner uid → dependent uids. */
  private readonly dependents = new Map<string, Set<string>>();
  private readonly watched = new Set<string>();
  /** Work, one item at a time (upstream: the attemptToDelete and attemptToOrphan queues). */
  private queue: Promise<void> = Promise.resolve();
  private readonly pending = new Set<string>();

  private readonly registry: ResourceRegistry;
  private readonly signal: AbortSignal;
  private readonly logger: Logger;

  constructor(registry: ResourceRegistry, signal: AbortSignal, logger: Logger) {
    this.registry = registry;
    this.signal = signal;
    this.logger = logger;
  }

  async run(): Promise<void> {
    const watches: Promise<void>[] = [];
    const start = (r: RegisteredResource) => {
      const key = `${r.definition.group}/${r.definition.resource.name}`;
      if (this.watched.has(key)) return;
      this.watched.add(key);
      watches.push(listAndWatch(r.store, '', this.signal, (type, obj) => this.observe(r.store, type, obj)));
    };
    for (const r of this.registry.list()) start(r);
    const unsubscribe = this.registry.onChange((event, r) => event === 'add' && start(r));
    this.signal.addEventListener('abort', unsubscribe, { once: true });
    await new Promise<void>((resolve) => this.signal.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.allSettled(watches);
  }

  /** The graph builder's processGraphChanges. */
  private observe(store: Store, type: string, obj: KubeObject): void {
    const uid = obj.metadata.uid;
    if (!uid) return;
    const old = this.nodes.get(uid);
    if (type === 'DELETED') {
      this.nodes.delete(uid);
      for (const ref of old?.owners ?? []) this.dependents.get(ref.uid ?? '')?.delete(uid);
      // Its dependents lost an owner; a foreground owner waiting on it may be done.
      for (const dep of this.dependents.get(uid) ?? []) this.enqueue(`delete:${dep}`);
      for (const ref of old?.owners ?? [])
        if (ref.uid && this.nodes.get(ref.uid)?.deleting) this.enqueue(`owner:${ref.uid}`);
      return;
    }
    const node: Node = {
      store,
      namespace: obj.metadata.namespace ?? '',
      name: obj.metadata.name ?? '',
      uid,
      owners: obj.metadata.ownerReferences ?? [],
      deleting: !!obj.metadata.deletionTimestamp,
      finalizers: obj.metadata.finalizers ?? [],
    };
    for (const ref of old?.owners ?? []) this.dependents.get(ref.uid ?? '')?.delete(uid);
    this.nodes.set(uid, node);
    for (const ref of node.owners) {
      if (!ref.uid) continue;
      let set = this.dependents.get(ref.uid);
      if (!set) this.dependents.set(ref.uid, (set = new Set()));
      set.add(uid);
    }
    if (node.owners.length > 0) this.enqueue(`delete:${uid}`);
    if (
      node.deleting &&
      (node.finalizers.includes(FinalizerOrphanDependents) || node.finalizers.includes(FinalizerDeleteDependents))
    )
      this.enqueue(`owner:${uid}`);
    // References removed from a dependent may unblock its foreground owner.
    for (const ref of old?.owners ?? [])
      if (ref.uid && !node.owners.some((r) => r.uid === ref.uid) && this.nodes.get(ref.uid)?.deleting)
        this.enqueue(`owner:${ref.uid}`);
  }

  private enqueue(item: string): void {
    if (this.pending.has(item) || this.signal.aborted) return;
    this.pending.add(item);
    this.queue = this.queue.then(async () => {
      this.pending.delete(item);
      if (this.signal.aborted) return;
      const uid = item.slice(item.indexOf(':') + 1);
      try {
        if (item.startsWith('delete:')) await this.attemptToDelete(uid);
        else await this.processOwner(uid);
      } catch (err) {
        if (isReason(err, 'NotFound') || isReason(err, 'Conflict')) {
          // Changed under us: the watch brings the new state and requeues it.
          if (isReason(err, 'Conflict')) unref(setTimeout(() => this.enqueue(item), 50));
          return;
        }
        this.logger.error('Garbage collection failed', { item, err: String(err) });
        unref(setTimeout(() => this.enqueue(item), 1000));
      }
    });
  }

  /** The Store serving an owner reference's kind, if any. */
  private ownerStore(ref: OwnerReference): Store | undefined {
    const group = groupOf(ref.apiVersion);
    return this.registry.list().find((r) => r.definition.group === group && r.definition.resource.kind === ref.kind)
      ?.store;
  }

  /** The owner as stored now (a live lookup, as upstream verifies absent owners), or undefined. */
  private async liveOwner(ref: OwnerReference, namespace: string): Promise<KubeObject | undefined | 'unknown'> {
    const store = this.ownerStore(ref);
    if (!store) return 'unknown';
    // A cluster-scoped dependent cannot have a namespaced owner: the reference dangles.
    if (store.namespaceScoped && !namespace) return undefined;
    try {
      const owner = await store.get(store.namespaceScoped ? namespace : '', ref.name ?? '');
      return owner.metadata.uid === ref.uid ? owner : undefined;
    } catch (err) {
      if (isReason(err, 'NotFound')) return undefined;
      throw err;
    }
  }

  /** attemptToDeleteItem. */
  private async attemptToDelete(uid: string): Promise<void> {
    const node = this.nodes.get(uid);
    if (!node || node.owners.length === 0) return;
    const current = await node.store.get(node.namespace, node.name);
    if (current.metadata.uid !== uid) return;
    if (current.metadata.deletionTimestamp && !current.metadata.finalizers?.includes(FinalizerDeleteDependents)) return;
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of current.metadata.ownerReferences ?? []) {
      const owner = await this.liveOwner(ref, node.namespace);
      if (owner === 'unknown') solid.push(ref);
      else if (!owner) dangling.push(ref);
      else if (owner.metadata.deletionTimestamp && owner.metadata.finalizers?.includes(FinalizerDeleteDependents))
        waiting.push(ref);
      else solid.push(ref);
    }
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      // Still owned: drop the references to owners that are gone or going.
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      await this.updateOwnerRefs(node, (refs) => refs.filter((r) => !drop.has(r.uid)));
      return;
    }
    if (current.metadata.deletionTimestamp) return;
    const hasDependents = (this.dependents.get(uid)?.size ?? 0) > 0;
    const policy = waiting.length > 0 && hasDependents ? 'Foreground' : 'Background';
    await node.store
      .delete(node.name, {
        namespace: node.namespace,
        preconditions: { uid },
        propagationPolicy: policy,
      })
      .catch((err: unknown) => {
        if (!isReason(err, 'NotFound')) throw err;
      });
  }

  /** orphanDependents and processDeletingDependentsItem for an owner being deleted. */
  private async processOwner(uid: string): Promise<void> {
    const node = this.nodes.get(uid);
    if (!node) return;
    const owner = await node.store.get(node.namespace, node.name);
    if (owner.metadata.uid !== uid || !owner.metadata.deletionTimestamp) return;
    const finalizers = owner.metadata.finalizers ?? [];
    const deps = [...(this.dependents.get(uid) ?? [])].map((d) => this.nodes.get(d)).filter((d): d is Node => !!d);
    if (finalizers.includes(FinalizerOrphanDependents)) {
      for (const dep of deps) await this.updateOwnerRefs(dep, (refs) => refs.filter((r) => r.uid !== uid));
      await this.removeFinalizer(node, FinalizerOrphanDependents);
      return;
    }
    if (finalizers.includes(FinalizerDeleteDependents)) {
      for (const dep of deps) if (!dep.deleting) this.enqueue(`delete:${dep.uid}`);
      const blocking = deps.filter((d) => d.owners.some((r) => r.uid === uid && r.blockOwnerDeletion === true));
      if (blocking.length === 0) await this.removeFinalizer(node, FinalizerDeleteDependents);
    }
  }

  private async updateOwnerRefs(node: Node, change: (refs: OwnerReference[]) => OwnerReference[]): Promise<void> {
    const current = await node.store.get(node.namespace, node.name);
    if (current.metadata.uid !== node.uid) return;
    const next = deepCopyJSON(current);
    const refs = change(next.metadata.ownerReferences ?? []);
    if (refs.length === (current.metadata.ownerReferences ?? []).length) return;
    if (refs.length) next.metadata.ownerReferences = refs;
    else delete next.metadata.ownerReferences;
    await node.store.update(node.name, next, { namespace: node.namespace });
  }

  private async removeFinalizer(node: Node, finalizer: string): Promise<void> {
    const current = await node.store.get(node.namespace, node.name);
    if (current.metadata.uid !== node.uid || !current.metadata.finalizers?.includes(finalizer)) return;
    const next = deepCopyJSON(current);
    next.metadata.finalizers = current.metadata.finalizers.filter((f) => f !== finalizer);
    await node.store.update(node.name, next, { namespace: node.namespace });
  }
}
