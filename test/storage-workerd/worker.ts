// The shared KV conformance cases run inside workerd: the cases run in the Worker, the engine is
// the Store Durable Object (one fresh object per case), every call crosses DO RPC.
//   GET /cases           → the case names
//   GET /run?case=<name> → {"ok": true} or {"ok": false, "error": "..."}
import { durableObjectKV, type StoreNamespace } from '../../adapters/cloudflare/store-client.ts';
import { ValueTooLargeError } from '../../src/storage/sqlite/revision-log.ts';
import type { KV } from '../../src/storage/kv.ts';
import { kvCases } from '../../src/storage/testing/kv-cases.ts';
import { equal, ok, rejects } from '../../src/storage/testing/assert.ts';

export { Store } from '../../adapters/cloudflare/store.ts';

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

const cases = [...kvCases, ...durableObjectCases];

export default {
  async fetch(request: Request, env: { STORE: StoreNamespace }): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/cases') return Response.json(cases.map((c) => c.name));
    if (url.pathname !== '/run') return new Response('not found', { status: 404 });
    const c = cases.find((x) => x.name === url.searchParams.get('case'));
    if (!c) return Response.json({ ok: false, error: 'no such case' }, { status: 404 });
    const kv = durableObjectKV(env.STORE, `case-${crypto.randomUUID()}`);
    try {
      await c.run(kv);
      return Response.json({ ok: true });
    } catch (err) {
      return Response.json({ ok: false, error: err instanceof Error ? `${err.name}: ${err.message}\n${err.stack}` : String(err) });
    }
  },
};
