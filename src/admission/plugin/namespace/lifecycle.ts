// NamespaceLifecycle (k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go): no
// content in a namespace that does not exist or is being terminated, and the immortal namespaces
// cannot be deleted.

import { newForbidden } from '../../../authorization/forbidden.ts';
import { newNotFound } from '../../../endpoints/apierrors.ts';
import { StatusError } from '../../../endpoints/responsewriters/status.ts';
import type { KubeObject } from '../../../registry/generic/store.ts';
import type { AdmissionPlugin, Attributes, Operation } from '../../interfaces.ts';

export const PluginName = 'NamespaceLifecycle';

/** Upstream's immortal namespaces (kube-apiserver's admission initializer). */
export const immortalNamespaces: readonly string[] = ['default', 'kube-system', 'kube-public'];

/** How the plugin reads a namespace: undefined when there is none. The plugin never changes it. */
export type NamespaceGetter = (name: string) => Promise<KubeObject | undefined>;

/**
 * @example
 * const plugin = newNamespaceLifecycle((name) => namespaces.get('', name).catch(() => undefined));
 */
export function newNamespaceLifecycle(
  getNamespace: NamespaceGetter,
  immortal: readonly string[] = immortalNamespaces,
): AdmissionPlugin {
  return {
    name: PluginName,
    handles: (op: Operation) => op === 'CREATE' || op === 'UPDATE' || op === 'DELETE',
    async admit(a: Attributes): Promise<void> {
      const isNamespace = a.kind.group === '' && a.kind.kind === 'Namespace';
      if (!a.namespace && !isNamespace) return;
      if (isNamespace) {
        if (a.operation === 'DELETE' && immortal.includes(a.name))
          throw new StatusError(
            newForbidden(a.resource.group, a.resource.resource, a.name, 'this namespace may not be deleted'),
          );
        return;
      }
      if (a.operation === 'DELETE') return;
      const ns = await getNamespace(a.namespace);
      if (!ns) throw newNotFound({ group: '', resource: 'namespaces' }, a.namespace);
      if (a.operation !== 'CREATE' || (ns.status as { phase?: string } | undefined)?.phase !== 'Terminating') return;
      const message = `unable to create new content in namespace ${a.namespace} because it is being terminated`;
      const status = newForbidden(a.resource.group, a.resource.resource, a.name, message);
      status.details = { ...status.details, causes: [{ reason: 'NamespaceTerminating', message, field: a.namespace }] };
      throw new StatusError(status);
    },
  };
}
