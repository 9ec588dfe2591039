// The Node CLI's storage engines (ApplyContext.storage): etcd over its JSON gateway with a fetch
// that presents --etcd-certfile/--etcd-keyfile and trusts --etcd-cafile (etcd-fetch.ts).

import type { StoragePlatform } from '../../src/storage/storagebackend/open.ts';
import { nodeEtcdFetch } from './etcd-fetch.ts';

export function nodeStoragePlatform(): StoragePlatform {
  return { etcdFetch: nodeEtcdFetch };
}
