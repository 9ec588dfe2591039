// The namespace controller (pkg/controller/namespace/deletion/namespaced_resources_deleter.go), in
// process: a namespace with a deletionTimestamp has its contents deleted from every namespaced
// resource, then its `kubernetes` finalizer removed and, with no finalizer left, is deleted itself.

import { FinalizerKubernetes } from '../../registry/core/resources.ts';
import type { KubeObject, Store } from '../../registry/generic/store.ts';
import type { ResourceRegistry } from '../../registry/rest/registry.ts';
import { listAndWatch, type Controller } from './controller.ts';
import { deepCopyJSON } from '../../util/deepcopy.ts';

export function newNamespaceController(): Controller {
  return {
    name: 'namespace-controller',
    requiresLeader: true,
    async run(registry, signal, logger) {
      const namespaces = registry.store('', 'namespaces');
      if (!namespaces) return;
      const inFlight = new Set<string>();
      await listAndWatch(namespaces, '', signal, (type, ns) => {
        const name = ns.metadata.name!;
        if (type === 'DELETED' || !ns.metadata.deletionTimestamp || inFlight.has(name)) return;
        inFlight.add(name);
        finalizeNamespace(registry, namespaces, name)
          .catch((err: unknown) =>
            logger.error('Deleting namespace content failed', { namespace: name, err: String(err) }),
          )
          .finally(() => inFlight.delete(name));
      });
    },
  };
}

/** Deletes a terminating namespace's contents, then the namespace (when no other finalizer holds it). */
export async function finalizeNamespace(registry: ResourceRegistry, namespaces: Store, name: string): Promise<void> {
  for (const { store } of registry.list())
    if (store.namespaceScoped) await store.deleteCollection({ namespace: name }, { recursive: true });
  const key = namespaces.key('', name);
  // spec.finalizers: the `kubernetes` finalizer is ours; others are left to their controllers.
  const ns = await namespaces.get('', name);
  const rest = ((ns.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).filter(
    (f) => f !== FinalizerKubernetes,
  );
  if (rest.length > 0 || (ns.metadata.finalizers?.length ?? 0) > 0) {
    await namespaces.storage.guaranteedUpdate(key, false, undefined, (input) => {
      const next = deepCopyJSON(input) as KubeObject;
      next.spec = { ...(next.spec as object), finalizers: rest };
      delete next.metadata.resourceVersion;
      return { object: next };
    });
    return;
  }
  await namespaces.storage.delete(key);
}
