// The ServiceAccountTokenGetter of --service-account-lookup over the registry Stores, reading
// through the watch cache (resourceVersion "0"), as kube-apiserver's getter reads informer caches.

import { StatusError } from '../../endpoints/responsewriters/status.ts';
import type { ServiceAccountTokenGetter } from '../../authentication/serviceaccount.ts';
import type { Store } from '../generic/store.ts';

async function lookup(store: Store | undefined, namespace: string, name: string) {
  if (!store) return undefined;
  try {
    const o = await store.get(namespace, name, '0');
    return {
      uid: o.metadata.uid ?? '',
      ...(o.metadata.deletionTimestamp ? { deletionTimestamp: o.metadata.deletionTimestamp } : {}),
    };
  } catch (err) {
    if (err instanceof StatusError && err.status.reason === 'NotFound') return undefined;
    throw err;
  }
}

/** `stores` resolves a core/v1 resource's Store (undefined when not served: pods here). */
export function serviceAccountTokenGetter(stores: (resource: string) => Store | undefined): ServiceAccountTokenGetter {
  return {
    getServiceAccount: (ns, name) => lookup(stores('serviceaccounts'), ns, name),
    getSecret: (ns, name) => lookup(stores('secrets'), ns, name),
    getPod: (ns, name) => lookup(stores('pods'), ns, name),
  };
}
