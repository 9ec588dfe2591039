// kube-apiserver's identity Lease (pkg/controlplane/apiserver: the APIServerIdentity lease
// controller, and pkg/controlplane/controller/apiserverleasegc): every server keeps a Lease
// `kube-system/<its id>` labelled apiserver.kubernetes.io/identity=kube-apiserver, renewed every
// 10 s with a 3600 s duration, and deletes the identity Leases of servers that stopped renewing
// theirs for longer than that. Clients list the live servers with
// `kubectl -n kube-system get lease -l apiserver.kubernetes.io/identity=kube-apiserver`.

import { StatusError } from '../../endpoints/responsewriters/status.ts';
import type { KubeObject } from '../../registry/generic/store.ts';
import { microTime } from '../leaderelection/leaderelection.ts';
import { unrefTimer, type Controller } from './controller.ts';

export const IdentityLeaseComponentLabelKey = 'apiserver.kubernetes.io/identity';
const namespace = 'kube-system';

export interface IdentityLeaseOptions {
  /** IdentityLeaseRenewIntervalPeriod (10 s). */
  renewIntervalMs?: number;
  /** IdentityLeaseDurationSeconds (3600). */
  leaseDurationSeconds?: number;
  /** IdentityLeaseGCPeriod (3600 s). */
  gcPeriodMs?: number;
  now?: () => number;
}

const reason = (err: unknown) => (err instanceof StatusError ? err.status.reason : undefined);

export function newAPIServerIdentityController(id: string, opts: IdentityLeaseOptions = {}): Controller {
  const renewMs = opts.renewIntervalMs ?? 10_000;
  const duration = opts.leaseDurationSeconds ?? 3600;
  const gcMs = opts.gcPeriodMs ?? 3600_000;
  const now = opts.now ?? Date.now;
  return {
    name: 'apiserver-identity-lease-controller',
    async run(registry, signal, logger) {
      const leases = registry.store('coordination.k8s.io', 'leases');
      if (!leases) return;
      const lease = (resourceVersion?: string): KubeObject => ({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name: id,
          namespace,
          labels: { [IdentityLeaseComponentLabelKey]: 'kube-apiserver' },
          ...(resourceVersion ? { resourceVersion } : {}),
        },
        spec: { holderIdentity: id, leaseDurationSeconds: duration, renewTime: microTime(now()) },
      });
      const renew = async () => {
        try {
          const cur = await leases.get(namespace, id);
          await leases.update(id, lease(cur.metadata.resourceVersion), { namespace });
        } catch (err) {
          if (reason(err) !== 'NotFound') throw err;
          await leases.create(lease(), { namespace });
        }
      };
      const collect = async () => {
        const list = await leases.list(namespace, { resourceVersion: '' });
        for (const l of list.items) {
          if (l.metadata.name === id || l.metadata.labels?.[IdentityLeaseComponentLabelKey] !== 'kube-apiserver')
            continue;
          const spec = (l.spec ?? {}) as { renewTime?: string; leaseDurationSeconds?: number };
          const renewed = Date.parse(spec.renewTime ?? '');
          const expired = !Number.isFinite(renewed) || renewed + (spec.leaseDurationSeconds ?? duration) * 1000 < now();
          if (!expired) continue;
          await leases
            .delete(l.metadata.name!, {
              namespace,
              preconditions: { resourceVersion: l.metadata.resourceVersion },
            })
            .catch(() => {}); // renewed or deleted meanwhile
        }
      };
      let nextGC = now() + gcMs;
      let logged = false;
      while (!signal.aborted) {
        try {
          await renew();
          if (now() >= nextGC) {
            nextGC = now() + gcMs;
            await collect();
          }
          logged = false;
        } catch (err) {
          if (!signal.aborted && !logged)
            logger.error('Updating the apiserver identity lease failed', { err: String(err) });
          logged = true;
        }
        await new Promise<void>((resolve) => {
          const t = unrefTimer(setTimeout(resolve, renewMs));
          signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
        });
      }
      // A graceful stop: this server is gone now, not in an hour.
      await leases.delete(id, { namespace }).catch(() => {});
    },
  };
}
