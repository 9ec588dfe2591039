// Ready-made subjects for the storage conformance suite: the store over an engine, and the watch
// cache above that store.

import { Cacher, type CacherConfig } from '../cacher/cacher.ts';
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

/** storage.Interface = the watch cache above the store over `kv` (short bookmark interval for tests). */
export function cacherSubject(kv: KV, pathPrefix = '/registry', cfg: Partial<CacherConfig> = {}): StorageSubject {
  return {
    kv,
    pathPrefix,
    async newStorage(resourcePrefix, gr) {
      const newFunc = () => ({ apiVersion: 'example.com/v1', kind: 'Widget' });
      const storage = new Store({ kv, pathPrefix, resourcePrefix, groupResource: gr, newFunc });
      const c = new Cacher({ storage, resourcePrefix, groupResource: gr, newFunc, bookmarkIntervalMs: 200, ...cfg });
      await c.waitReady();
      return c;
    },
    release(s) {
      if (s instanceof Cacher) s.stop();
    },
  };
}
