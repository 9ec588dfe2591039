// The `kubernetes` service in `default` (pkg/controlplane/controller/kubernetesservice/controller.go
// and the endpoint reconciler of pkg/controlplane/reconcilers): port 443 named https, the first IP of
// the service range, targetPort the secure port; its Endpoints list the advertise address. Created
// when missing, put back when changed, every 10 s (upstream's EndpointInterval).

import { StatusError } from '../../endpoints/responsewriters/status.ts';
import type { KubeObject, Store } from '../../registry/generic/store.ts';
import type { ServiceSpec } from '../../registry/core/services.ts';
import { firstServiceIP, parseCIDR } from '../../registry/core/ipallocator.ts';
import type { Controller } from './controller.ts';
import type { Interface } from '../../storage/interfaces.ts';
import { deepCopyJSON } from '../../util/deepcopy.ts';

const reconcileIntervalMs = 10_000;

export interface KubernetesServiceControllerConfig {
  /** The service's port (443). */
  servicePort: number;
  /** The secure port the apiserver listens on (targetPort, and the endpoint's port). */
  publicServicePort: number;
  /** The advertise address (Endpoints' address); none: no Endpoints object. */
  publicIP?: string;
  /**
   * Several servers share the storage: the Endpoints list every server whose master lease is alive
   * (upstream's default `--endpoint-reconciler-type=lease`, pkg/controlplane/reconcilers/lease.go),
   * not just this one's address.
   */
  leaseReconciler?: boolean;
}

/** reconcilers.DefaultEndpointReconcilerTTL: a master lease lives 15 s unless renewed. */
export const masterLeaseTTLSeconds = 15;
const masterLeases = { group: '', resource: 'masterleases' };

export function newKubernetesServiceController(cfg: KubernetesServiceControllerConfig): Controller {
  return {
    name: 'kubernetes-service-controller',
    async run(registry, signal, logger) {
      const services = registry.store('', 'services');
      if (!services) return;
      const range = parseCIDR(registry.settings.serviceClusterIPRanges[0] ?? '10.0.0.0/24')!;
      const c: KubernetesServiceConfig = { ...cfg, serviceIP: firstServiceIP(range) };
      const leases = cfg.leaseReconciler && cfg.publicIP ? registry.unservedStorage(masterLeases) : undefined;
      let logged = false;
      while (!signal.aborted) {
        let wait = reconcileIntervalMs;
        try {
          if (leases) c.endpointIPs = await updateMasterLease(leases, cfg.publicIP!);
          await reconcileKubernetesService(services, registry.store('', 'endpoints'), c);
        } catch (err) {
          // `default` may not exist yet (the system namespaces controller runs beside this one).
          const missingNamespace = err instanceof StatusError && err.status.reason === 'NotFound';
          if (missingNamespace) wait = 100;
          else if (!logged) logger.error('Reconciling the kubernetes service failed', { err: String(err) });
          logged ||= !missingNamespace;
        }
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, wait);
          // A server nobody stops must not keep the process alive for this loop (Node's unref).
          (t as { unref?: () => void }).unref?.();
          signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
        });
      }
      // lease.go RemoveEndpoints on shutdown: the others drop this address at their next reconcile.
      if (leases) await leases.delete(`/masterleases/${cfg.publicIP}`).catch(() => {});
    },
  };
}

/**
 * leaseEndpointReconciler: renews this server's master lease (`/masterleases/<ip>`, TTL 15 s; the
 * generation bump makes the write happen, so the TTL is refreshed) and returns the addresses of
 * every live one, sorted.
 */
export async function updateMasterLease(leases: Interface, ip: string): Promise<string[]> {
  await leases.guaranteedUpdate(`/masterleases/${ip}`, true, undefined, (input) => {
    const existing = (input?.metadata ? deepCopyJSON(input) : {}) as KubeObject;
    const generation = Number(existing.metadata?.generation ?? 0) + 1;
    return {
      object: {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: ip, generation },
        subsets: [{ addresses: [{ ip }] }],
      },
      ttl: masterLeaseTTLSeconds,
    };
  });
  const list = await leases.getList('/masterleases', { recursive: true, resourceVersion: '' });
  const ips = new Set<string>([ip]);
  for (const o of list.items) {
    const a = (o as KubeObject & { subsets?: { addresses?: { ip?: string }[] }[] }).subsets?.[0]?.addresses?.[0]?.ip;
    if (a) ips.add(a);
  }
  return [...ips].sort();
}

export interface KubernetesServiceConfig extends KubernetesServiceControllerConfig {
  /** The first IP of the primary service range (controlplane.ServiceIPRange). */
  serviceIP: string;
  /** The addresses of every live server (lease reconciler); default: publicIP alone. */
  endpointIPs?: string[];
}

const isReason = (err: unknown, reason: string) => err instanceof StatusError && err.status.reason === reason;

function desiredSpec(c: KubernetesServiceConfig): ServiceSpec {
  return {
    ports: [{ name: 'https', protocol: 'TCP', port: c.servicePort, targetPort: c.publicServicePort }],
    clusterIP: c.serviceIP,
    sessionAffinity: 'None',
    type: 'ClusterIP',
  };
}

/** CreateOrUpdateMasterServiceIfNeeded with reconcile, then the endpoints reconciler. */
export async function reconcileKubernetesService(
  services: Store,
  endpoints: Store | undefined,
  c: KubernetesServiceConfig,
): Promise<void> {
  const want = desiredSpec(c);
  let existing: KubeObject | undefined;
  try {
    existing = await services.get('default', 'kubernetes');
  } catch (err) {
    if (!isReason(err, 'NotFound')) throw err;
  }
  if (!existing) {
    try {
      await services.create(
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: {
            name: 'kubernetes',
            namespace: 'default',
            labels: { provider: 'kubernetes', component: 'apiserver' },
          },
          spec: want,
        },
        { namespace: 'default' },
      );
    } catch (err) {
      if (!isReason(err, 'AlreadyExists')) throw err;
    }
  } else {
    // getMasterServiceUpdateIfNeeded: the ports and type are ours.
    const s = (existing.spec ?? {}) as ServiceSpec;
    const port = s.ports?.[0];
    const drift =
      s.type !== 'ClusterIP' ||
      s.ports?.length !== 1 ||
      port?.name !== 'https' ||
      port.port !== c.servicePort ||
      port.targetPort !== c.publicServicePort ||
      port.protocol !== 'TCP';
    if (drift) {
      const next = deepCopyJSON(existing);
      next.spec = { ...s, type: 'ClusterIP', ports: want.ports };
      await services.update('kubernetes', next, { namespace: 'default' });
    }
  }
  if (!endpoints || !c.publicIP) return;
  const subsets = [
    {
      addresses: (c.endpointIPs ?? [c.publicIP]).map((ip) => ({ ip })),
      ports: [{ name: 'https', port: c.publicServicePort, protocol: 'TCP' }],
    },
  ];
  let ep: KubeObject | undefined;
  try {
    ep = await endpoints.get('default', 'kubernetes');
  } catch (err) {
    if (!isReason(err, 'NotFound')) throw err;
  }
  if (ep && JSON.stringify(ep.subsets) === JSON.stringify(subsets)) return;
  const obj: KubeObject = ep
    ? { ...deepCopyJSON(ep), subsets }
    : {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: {
          name: 'kubernetes',
          namespace: 'default',
          labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' },
        },
        subsets,
      };
  if (ep) await endpoints.update('kubernetes', obj, { namespace: 'default' });
  else
    await endpoints.create(obj, { namespace: 'default' }).catch((err: unknown) => {
      if (!isReason(err, 'AlreadyExists')) throw err;
    });
}
