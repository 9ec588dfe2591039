// The system namespaces exist from the start (pkg/controlplane/controller/systemnamespaces; `default`
// by the kubernetes-service bootstrap controller).

import { StatusError } from '../../endpoints/responsewriters/status.ts';
import type { Controller } from './controller.ts';

export const systemNamespaces: readonly string[] = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export function newSystemNamespacesController(names: readonly string[] = systemNamespaces): Controller {
  return {
    name: 'system-namespaces-controller',
    async run(registry) {
      const namespaces = registry.store('', 'namespaces');
      if (!namespaces) return;
      for (const name of names) {
        try {
          await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { namespace: '' });
        } catch (err) {
          if (!(err instanceof StatusError && err.status.reason === 'AlreadyExists')) throw err;
        }
      }
    },
  };
}
