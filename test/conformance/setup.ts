// The one server configuration every conformance target runs: the same flags, files and the
// test-only panic route, handed to each runtime's adapter. Imported by the in-process and Lambda
// runners directly and by the entry scripts of workerd, Deno and Bun.

import type { EdgeSettings } from '../../src/app/edge.ts';
import type { Config } from '../../src/server/config.ts';
import { discardLogger } from '../../src/util/logger.ts';
import { CLIENT_CA_PEM } from './fixtures.ts';

/** Path of a route that throws (registered only here, never in production code). */
export const PANIC_PATH = '/conformance/panic';

/** Echoes what the adapter put in the Transport and who the chain authenticated. */
export const TRANSPORT_PATH = '/conformance/transport';

/** Header the conformance adapters trust for RFC 9440 client certificates. */
export const CLIENT_CERT_HEADER = 'X-Conformance-Client-Cert';

/** kube-apiserver flags of the conformance server (features join as they land in main). */
export const CONFORMANCE_FLAGS = [
  "'--cors-allowed-origins=^https://allowed\\.example\\.com$'",
  '--token-auth-file=/etc/kubernetes/conformance/tokens.csv',
  '--client-ca-file=/etc/kubernetes/conformance/client-ca.crt',
  '--authorization-mode=RBAC',
  '--authorization-rbac-manifests=/etc/kubernetes/conformance/rbac.yaml',
].join(' ');

/** Bearer tokens of the token file. */
export const ALICE_TOKEN = 'conformance-alice-token';
export const BOB_TOKEN = 'conformance-bob-token';

/** The Origin the CORS flag allows. */
export const ALLOWED_ORIGIN = 'https://allowed.example.com';

/** Files the flags name. */
/**
 * RBAC for the conformance users (merged with the bootstrap policy): alice may list/watch pods and
 * edit configmaps in `default`, manage CRDs and the conformance.example.com custom resources, and read every non-resource path; bob has nothing of his own; everyone may reach the
 * test-only /conformance/* routes.
 */
export const CONFORMANCE_RBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: pod-reader
  namespace: default
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: alice-reads-pods
  namespace: default
subjects:
- kind: User
  name: alice
  apiGroup: rbac.authorization.k8s.io
roleRef:
  kind: Role
  name: pod-reader
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: configmap-editor
  namespace: default
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: alice-edits-configmaps
  namespace: default
subjects:
- kind: User
  name: alice
  apiGroup: rbac.authorization.k8s.io
roleRef:
  kind: Role
  name: configmap-editor
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: conformance-nonresource
rules:
- nonResourceURLs: ["*"]
  verbs: ["get", "post"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: alice-nonresource
subjects:
- kind: User
  name: alice
  apiGroup: rbac.authorization.k8s.io
roleRef:
  kind: ClusterRole
  name: conformance-nonresource
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: conformance-routes
rules:
- nonResourceURLs: ["/conformance/*"]
  verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: conformance-routes
subjects:
- kind: Group
  name: system:authenticated
  apiGroup: rbac.authorization.k8s.io
- kind: Group
  name: system:unauthenticated
  apiGroup: rbac.authorization.k8s.io
roleRef:
  kind: ClusterRole
  name: conformance-routes
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: conformance-crds
rules:
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  verbs: ["*"]
- apiGroups: ["conformance.example.com"]
  resources: ["*"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: alice-crds
subjects:
- kind: User
  name: alice
  apiGroup: rbac.authorization.k8s.io
roleRef:
  kind: ClusterRole
  name: conformance-crds
  apiGroup: rbac.authorization.k8s.io
`;

export const CONFORMANCE_FILES: Record<string, string> = {
  '/etc/kubernetes/conformance/rbac.yaml': CONFORMANCE_RBAC,
  '/etc/kubernetes/conformance/tokens.csv': `${ALICE_TOKEN},alice,uid-alice,"devs,readers"\n${BOB_TOKEN},bob,uid-bob\n`,
  '/etc/kubernetes/conformance/client-ca.crt': CLIENT_CA_PEM,
};

export function conformanceConfigure(config: Config): void {
  config.routeInstallers.push((server) => {
    server.handler.nonGoRestfulMux.unlistedHandle(PANIC_PATH, () => {
      throw new Error('conformance: deliberate panic');
    });
    server.handler.nonGoRestfulMux.unlistedHandle(TRANSPORT_PATH, (ctx) => {
      const t = ctx.transport;
      return Response.json({
        remoteAddress: t.remoteAddress ?? null,
        protocol: t.protocol ?? null,
        tlsVersion: t.tlsVersion ?? null,
        peerCertificates: (t.peerCertificates ?? []).length,
        forwardedHeaderSeen: ctx.request.headers.get(CLIENT_CERT_HEADER),
        waitUntil: typeof t.waitUntil === 'function',
        user: ctx.user ? { name: ctx.user.name, uid: ctx.user.uid ?? '', groups: ctx.user.groups ?? [] } : null,
      });
    });
  });
}

export function conformanceSettings(overrides: Partial<EdgeSettings> = {}): EdgeSettings {
  return {
    flags: CONFORMANCE_FLAGS,
    files: CONFORMANCE_FILES,
    configure: conformanceConfigure,
    logger: discardLogger,
    ...overrides,
  };
}

/**
 * Settings that make Deno/Bun serve TLS the way the CLI does: the certificate files named by
 * --tls-cert-file/--tls-private-key-file (here bundled files), on top of the shared flags.
 */
export function tlsFromFlags(cert: string, key: string): Pick<EdgeSettings, 'flags' | 'files'> {
  return {
    flags: `${CONFORMANCE_FLAGS} --tls-cert-file=/conformance/tls.crt --tls-private-key-file=/conformance/tls.key`,
    files: { ...CONFORMANCE_FILES, '/conformance/tls.crt': cert, '/conformance/tls.key': key },
  };
}

/** Deno/Bun runners check the upstream shutdown sequence on SIGTERM with this delay. */
export const SHUTDOWN_FLAGS = '--shutdown-delay-duration=1s';
