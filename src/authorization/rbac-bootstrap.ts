// kube-apiserver's bootstrap policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy policy.go and
// controller_policy.go): cluster-admin for system:masters, discovery and the self-review APIs for
// authenticated users, health and version for everyone, the user-facing admin/edit/view roles
// (filled by aggregation from the system:aggregate-to-* roles), the roles of the node, proxy,
// scheduler and controller-manager identities, and one `system:controller:<name>` role bound to
// each controller's ServiceAccount in kube-system. The data is generated from upstream's golden
// files (scripts/gen-rbac-bootstrap.mjs).

import { bootstrapObjects } from './rbac-bootstrap.generated.ts';
import { rbacAPIVersion, type RBACObject } from './rbac-policy.ts';
import { deepCopyJSON } from '../util/deepcopy.ts';

/** A fresh copy of the bootstrap objects (callers may mutate it). */
export function bootstrapPolicy(): RBACObject[] {
  return deepCopyJSON(bootstrapObjects) as RBACObject[];
}

export { rbacAPIVersion };
