// Ready-made subjects for the storage conformance suite: the store directly over an engine.
// (The watch-cache subject lives beside the cacher.)

import type { KV } from '../kv.ts';
import { Store } from '../store.ts';
import type { StorageSubject } from './storage-cases.ts';

/** storage.Interface = Store over `kv`, under `/registry`. */
export function storeSubject(kv: KV, pathPrefix = '/registry'): StorageSubject {
  return {
    kv,
    pathPrefix,
    newStorage: (resourcePrefix, gr) =>
      new Store({
        kv,
        pathPrefix,
        resourcePrefix,
        groupResource: gr,
        newFunc: () => ({ apiVersion: 'example.com/v1', kind: 'Widget' }),
      }),
  };
}
