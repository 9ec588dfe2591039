// The Node CLI's storage engines (ApplyContext.storage): the embedded SQLite file on node:sqlite
// (sqlite.ts, the default backend), and etcd over its JSON gateway with a fetch that presents
// --etcd-certfile/--etcd-keyfile and trusts --etcd-cafile (etcd-fetch.ts). node:sqlite is loaded
// only when a SQLite file is opened: a memory or etcd backend starts without it.

import type { StoragePlatform } from '../../src/storage/storagebackend/open.ts';
import { nodeEtcdFetch } from './etcd-fetch.ts';

export function nodeStoragePlatform(): StoragePlatform {
  return { etcdFetch: nodeEtcdFetch, openSQLite: async (path) => (await import('./sqlite.ts')).openSQLiteKV(path) };
}
