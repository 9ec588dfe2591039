// The built-in part of upstream's bootstrap policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy)
// that matters for a server with no workloads: cluster-admin for system:masters, discovery for
// authenticated users, the self-review APIs, and health/version for everyone.

import { rbacAPIVersion, rbacGroup, type RBACObject, type Role, type RoleBinding } from './rbac-policy.ts';

const bootstrapLabels = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const autoupdate = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };

function clusterRole(name: string, rules: Role['rules'], extra: Partial<Role> = {}): Role {
  return {
    kind: 'ClusterRole',
    metadata: { name, labels: { ...bootstrapLabels }, annotations: { ...autoupdate } },
    rules,
    ...extra,
  };
}

function clusterRoleBinding(name: string, role: string, groups: string[]): RoleBinding {
  return {
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: { ...bootstrapLabels }, annotations: { ...autoupdate } },
    subjects: groups.map((g) => ({ kind: 'Group', apiGroup: rbacGroup, name: g })),
    roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: role },
  };
}

/** A fresh copy of the bootstrap objects (callers may mutate it). */
export function bootstrapPolicy(): RBACObject[] {
  return [
    clusterRole('cluster-admin', [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ]),
    clusterRole('system:discovery', [
      {
        verbs: ['get'],
        nonResourceURLs: [
          '/api',
          '/api/*',
          '/apis',
          '/apis/*',
          '/healthz',
          '/livez',
          '/openapi',
          '/openapi/*',
          '/readyz',
          '/version',
          '/version/',
        ],
      },
    ]),
    clusterRole('system:basic-user', [
      {
        verbs: ['create'],
        apiGroups: ['authorization.k8s.io'],
        resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
      },
      { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
    ]),
    // Full access to the monitoring endpoints (bind a scraper's group or user to it).
    clusterRole('system:monitoring', [
      {
        verbs: ['get'],
        nonResourceURLs: [
          '/metrics',
          '/metrics/slis',
          '/livez',
          '/readyz',
          '/healthz',
          '/livez/*',
          '/readyz/*',
          '/healthz/*',
        ],
      },
    ]),
    clusterRole('system:public-info-viewer', [
      { verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] },
    ]),
    // The user-facing aggregated roles: empty until manifests labelled aggregate-to-* add rules.
    clusterRole('admin', [], {
      aggregationRule: {
        clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' } }],
      },
    }),
    clusterRole('edit', [], {
      aggregationRule: {
        clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } }],
      },
      metadata: {
        name: 'edit',
        labels: { ...bootstrapLabels, 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' },
        annotations: { ...autoupdate },
      },
    }),
    clusterRole('view', [], {
      aggregationRule: {
        clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }],
      },
      metadata: {
        name: 'view',
        labels: { ...bootstrapLabels, 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' },
        annotations: { ...autoupdate },
      },
    }),
    clusterRoleBinding('cluster-admin', 'cluster-admin', ['system:masters']),
    clusterRoleBinding('system:discovery', 'system:discovery', ['system:authenticated']),
    clusterRoleBinding('system:basic-user', 'system:basic-user', ['system:authenticated']),
    clusterRoleBinding('system:public-info-viewer', 'system:public-info-viewer', [
      'system:authenticated',
      'system:unauthenticated',
    ]),
    clusterRoleBinding('system:monitoring', 'system:monitoring', ['system:monitoring']),
  ];
}

export { rbacAPIVersion };
