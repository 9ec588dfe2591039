// Storage keys as kube-apiserver lays them out under `--etcd-prefix` (default `/registry`):
// built-in resources at `<prefix>/<resource>/<namespace>/<name>` (DefaultStorageFactory.ResourcePrefix,
// with kube's SpecialDefaultResourcePrefixes), custom resources at `<prefix>/<group>/<plural>/…`
// (SimpleStorageFactory.ResourcePrefix), and the key functions of
// k8s.io/apiserver/pkg/registry/generic/registry/store.go.

import { newBadRequest, type GroupResource } from '../endpoints/apierrors.ts';
import { goQuote } from '../util/go.ts';
import { validatePathSegmentName } from '../util/validation/validation.ts';

export const DefaultEtcdPrefix = '/registry';

/** kubeapiserver default_storage_factory_builder.go SpecialDefaultResourcePrefixes. */
export const SpecialDefaultResourcePrefixes: Record<string, string> = {
  replicationcontrollers: 'controllers',
  endpoints: 'services/endpoints',
  nodes: 'minions',
  services: 'services/specs',
  ingresses: 'ingress',
};

/** The resource prefix of a built-in resource (`/configmaps`, `/services/specs`…), without the etcd prefix. */
export function builtinResourcePrefix(gr: GroupResource): string {
  const special = SpecialDefaultResourcePrefixes[gr.resource];
  return '/' + (special ?? gr.resource.toLowerCase());
}

/** The resource prefix of a custom resource: `/<group>/<plural>`. */
export function customResourcePrefix(gr: GroupResource): string {
  return `/${gr.group}/${gr.resource}`;
}

function checkName(name: string): void {
  if (!name) throw newBadRequest('Name parameter required.');
  const msgs = validatePathSegmentName(name, false);
  if (msgs.length) throw newBadRequest(`Name parameter invalid: ${goQuote(name)}: ${msgs.join(';')}`);
}

/** NamespaceKeyRootFunc: the collection key, narrowed to the namespace when one is given. */
export function namespaceKeyRootFunc(namespace: string | undefined, prefix: string): string {
  return namespace ? `${prefix}/${namespace}` : prefix;
}

/** NamespaceKeyFunc: `<prefix>/<namespace>/<name>`; 400 without a namespace or with a bad name. */
export function namespaceKeyFunc(namespace: string | undefined, prefix: string, name: string): string {
  if (!namespace) throw newBadRequest('Namespace parameter required.');
  checkName(name);
  return `${prefix}/${namespace}/${name}`;
}

/** NoNamespaceKeyFunc: `<prefix>/<name>` for cluster-scoped resources. */
export function noNamespaceKeyFunc(prefix: string, name: string): string {
  checkName(name);
  return `${prefix}/${name}`;
}
