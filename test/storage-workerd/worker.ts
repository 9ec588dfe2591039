// The shared conformance cases run inside workerd against the Store Durable Object, one fresh object
// per case. The KV cases (plus the object's own row-limit case) run in the Worker, so every call
// crosses DO RPC as the apiserver's do; the storage.Interface suite runs over the store inside the
// object, on the same engine (over RPC its 100-way conflict case alone takes ~40 s of round trips
// on a loaded machine, and what crosses RPC is the KV, which the KV cases cover).
//   GET /cases                        → [{suite, name}]
//   GET /run?suite=<s>&case=<name>    → {"ok": true} or {"ok": false, "error": "..."}
import { durableObjectKV, type StoreNamespace } from '../../adapters/cloudflare/store-client.ts';
import { ValueTooLargeError } from '../../src/storage/sqlite/revision-log.ts';
import type { KV } from '../../src/storage/kv.ts';
import { kvCases } from '../../src/storage/testing/kv-cases.ts';
import { equal, ok, rejects } from '../../src/storage/testing/assert.ts';
import { storageCases } from '../../src/storage/testing/storage-cases.ts';
import { storeSubject } from '../../src/storage/testing/subjects.ts';
import { Store as BaseStore } from '../../adapters/cloudflare/store.ts';

/** The Store with one test-only RPC method: run a storage case over the store on this object's log. */
export class Store extends BaseStore {
  async runStorageCase(name: string): Promise<{ ok: boolean; error?: string }> {
    const c = storageCases.find((x) => x.name === name);
    if (!c) return { ok: false, error: 'no such case' };
    try {
      await c.run(storeSubject(this.log));
      return { ok: true };
    } catch (err) {
      return { ok: false, error: err instanceof Error ? `${err.name}: ${err.message}\n${err.stack}` : String(err) };
    }
  }
}

/** What only a Durable Object has: the 2 MB row limit. */
const durableObjectCases: { name: string; run(kv: KV): Promise<void> }[] = [
  {
    name: 'Durable Object: a value over the 2 MB row limit is refused, nothing written; 1.9 MB is stored',
    async run(kv) {
      const before = await kv.currentRevision();
      const e = await rejects<ValueTooLargeError>(
        () => kv.create('/registry/configmaps/ns/huge', new Uint8Array(2_100_000)),
        (err) => err instanceof ValueTooLargeError,
        'create of 2.1 MB',
      );
      ok(/2100000 bytes/.test(e.message), e.message);
      equal(await kv.currentRevision(), before, 'no revision used');
      const near = new Uint8Array(1_900_000).fill(0x62);
      ok((await kv.create('/registry/configmaps/ns/near', near)).succeeded, '1.9 MB stored');
      const got = (await kv.get('/registry/configmaps/ns/near')).kv?.value;
      equal(got?.byteLength, near.byteLength);
      equal(got?.[1_899_999], 0x62);
    },
  },
];

const kvSuite = [...kvCases, ...durableObjectCases];
const cases = [
  ...kvSuite.map((c) => ({ suite: 'kv', name: c.name })),
  ...storageCases.map((c) => ({ suite: 'storage', name: c.name })),
];

interface Env {
  STORE: StoreNamespace;
}
type TestStoreStub = { runStorageCase(name: string): Promise<{ ok: boolean; error?: string }> };

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/cases') return Response.json(cases.map((c) => ({ suite: c.suite, name: c.name })));
    if (url.pathname !== '/run') return new Response('not found', { status: 404 });
    const suite = url.searchParams.get('suite');
    const name = url.searchParams.get('case') ?? '';
    const objectName = `case-${crypto.randomUUID()}`;
    if (suite === 'storage') {
      const stub = env.STORE.get(env.STORE.idFromName(objectName)) as unknown as TestStoreStub;
      return Response.json(await stub.runStorageCase(name));
    }
    const c = suite === 'kv' ? kvSuite.find((x) => x.name === name) : undefined;
    if (!c) return Response.json({ ok: false, error: 'no such case' }, { status: 404 });
    const kv = durableObjectKV(env.STORE, objectName);
    try {
      await c.run(kv);
      return Response.json({ ok: true });
    } catch (err) {
      return Response.json({
        ok: false,
        error: err instanceof Error ? `${err.name}: ${err.message}\n${err.stack}` : String(err),
      });
    }
  },
};
