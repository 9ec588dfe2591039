// Bare Hono over a Map: the API benches' baseline (bench/api.ts in process, bench/api-variants.ts
// over the wire). It serves ConfigMaps as the API server stores them (uid, resourceVersion,
// creationTimestamp, one managedFields entry), so both sides encode objects of the same shape,
// and does nothing else: no authentication, validation, storage encoding or watch cache.

import { Hono } from 'hono';

type Obj = { apiVersion: string; kind: string; metadata: Record<string, unknown>; data?: Record<string, string> };

/** The ConfigMap every API bench creates: one 64-byte data value. */
export const configMapJSON = (metadata: { name?: string; generateName?: string }) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { k: 'v'.repeat(64) } });

const alphanums = 'bcdfghjklmnpqrstvwxz2456789';
const nameSuffix = () => Array.from({ length: 5 }, () => alphanums[Math.floor(Math.random() * 27)]).join('');

export function bareAPI(): Hono {
  const objects = new Map<string, Obj>();
  let rev = 1;
  const listeners = new Set<(line: string) => void>();
  const app = new Hono();
  app.get('/api/v1/namespaces/:ns/configmaps/:name', (c) => {
    const o = objects.get(`${c.req.param('ns')}/${c.req.param('name')}`);
    return o ? c.json(o) : c.json({ kind: 'Status', code: 404 }, 404);
  });
  app.get('/api/v1/namespaces/:ns/configmaps', (c) => {
    if (c.req.query('watch') === 'true') {
      const enc = new TextEncoder();
      let send: (line: string) => void;
      const body = new ReadableStream<Uint8Array>({
        start(ctl) {
          send = (line) => ctl.enqueue(enc.encode(line));
          listeners.add(send);
        },
        cancel() {
          listeners.delete(send);
        },
      });
      return new Response(body, { headers: { 'content-type': 'application/json' } });
    }
    const prefix = `${c.req.param('ns')}/`;
    const items = [...objects].filter(([k]) => k.startsWith(prefix)).map(([, v]) => v);
    return c.json({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: String(rev) }, items });
  });
  app.post('/api/v1/namespaces/:ns/configmaps', async (c) => {
    const o = (await c.req.json()) as Obj;
    const namespace = c.req.param('ns');
    let name = o.metadata.name as string | undefined;
    // A generated name that is taken is generated again, as the API server does (RetryGenerateName).
    if (!name)
      for (let i = 0; i < 8 && (!name || objects.has(`${namespace}/${name}`)); i++)
        name = `${o.metadata.generateName as string}${nameSuffix()}`;
    const key = `${namespace}/${name}`;
    if (objects.has(key)) return c.json({ kind: 'Status', code: 409 }, 409);
    const now = new Date().toISOString().slice(0, 19) + 'Z';
    const fields = Object.fromEntries(Object.keys(o.data ?? {}).map((k) => [`f:${k}`, {}]));
    o.metadata = {
      ...o.metadata,
      name,
      namespace,
      uid: crypto.randomUUID(),
      resourceVersion: String(++rev),
      creationTimestamp: now,
      managedFields: [
        {
          // As the API server: the user agent up to its first '/', no manager without one.
          manager: c.req.header('user-agent')?.split('/')[0] || undefined,
          operation: 'Update',
          apiVersion: 'v1',
          time: now,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:data': { '.': {}, ...fields },
            ...(o.metadata.generateName ? { 'f:metadata': { 'f:generateName': {} } } : {}),
          },
        },
      ],
    };
    objects.set(key, o);
    const line = JSON.stringify({ type: 'ADDED', object: o }) + '\n';
    for (const l of listeners) l(line);
    return c.json(o, 201);
  });
  return app;
}
