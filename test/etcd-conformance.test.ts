// The shared KV conformance cases (src/storage/testing/kv-cases.ts) against a real etcd through its
// JSON gateway (src/storage/etcd3). One etcd for the file; every case runs under its own prefix,
// one after another (the compaction cases compact the whole store).
import { describe, test, before, after } from 'node:test';
import { EtcdKV } from '../src/storage/etcd3/kv.ts';
import { kvCases } from '../src/storage/testing/kv-cases.ts';
import { etcdSkip, startEtcd, type EtcdServer } from './etcd-harness.ts';

describe('etcd KV conformance', { skip: etcdSkip(), concurrency: 1 }, () => {
  let etcd: EtcdServer;
  let kv: EtcdKV;
  before(async () => {
    // Progress notifications every 200 ms (etcd's default is 10 minutes).
    etcd = await startEtcd({ args: ['--experimental-watch-progress-notify-interval=200ms'] });
    kv = new EtcdKV({ endpoints: [etcd.clientURL] });
  });
  after(async () => {
    await kv?.close();
    await etcd?.stop();
  });
  for (const c of kvCases) test(`etcd KV: ${c.name}`, () => c.run(kv));
});
