// The storage conformance suite (src/storage/testing/storage-cases.ts) over a real etcd through its
// JSON gateway: storage.Interface = the store over the etcd engine, and the watch cache above it.
// One etcd for the file; the cases run one after another under their own resource prefixes.
import { describe, test, before, after } from 'node:test';
import { EtcdKV } from '../src/storage/etcd3/kv.ts';
import { storageCases } from '../src/storage/testing/storage-cases.ts';
import { cacherSubject, storeSubject } from '../src/storage/testing/subjects.ts';
import { etcdSkip, startEtcd, type EtcdServer } from './etcd-harness.ts';

describe('storage conformance over etcd', { skip: etcdSkip(), concurrency: 1 }, () => {
  let etcd: EtcdServer;
  let kv: EtcdKV;
  before(async () => {
    etcd = await startEtcd({ args: ['--experimental-watch-progress-notify-interval=200ms'] });
    kv = new EtcdKV({ endpoints: [etcd.clientURL] });
  });
  after(async () => {
    await kv?.close();
    await etcd?.stop();
  });
  for (const c of storageCases) test(`store on etcd: ${c.name}`, () => c.run(storeSubject(kv)));
  for (const c of storageCases) test(`watch cache on etcd: ${c.name}`, () => c.run(cacherSubject(kv)));
});
