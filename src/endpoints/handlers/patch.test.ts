import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryKV } from '../../storage/memory/kv.ts';
import { Store as StorageStore } from '../../storage/store.ts';
import { Store, type KubeObject } from '../../registry/generic/store.ts';
import { FieldManager } from '../../util/managedfields/fieldmanager.ts';
import { typeSchemaFromFields } from '../../util/managedfields/objectmeta.ts';
import { StatusError } from '../responsewriters/status.ts';
import type { RequestContext } from '../request/context.ts';
import { managerOrUserAgent, patchResource, validateFieldManager, type PatchScope } from './patch.ts';

function setup(strategic = true) {
  const gr = { group: 'example.com', resource: 'widgets' };
  const storage = new StorageStore({
    kv: new MemoryKV({}),
    pathPrefix: '/registry',
    resourcePrefix: '/example.com/widgets',
    groupResource: gr,
    newFunc: () => ({ apiVersion: 'example.com/v1', kind: 'Widget' }),
  });
  const store = new Store({
    qualifiedResource: gr,
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    listKind: 'WidgetList',
    strategy: { namespaceScoped: true },
    storage,
    resourcePrefix: '/example.com/widgets',
  });
  const typeSchema = typeSchemaFromFields(['spec']);
  const scope: PatchScope = {
    store,
    maxRequestBodyBytes: 1 << 20,
    strategicMergePatch: strategic,
    typeSchema,
    fieldManager: new FieldManager({ schema: typeSchema, apiVersion: 'example.com/v1', kind: 'Widget' }),
  };
  return { store, scope };
}

function ctx(query: string, body: string, contentType: string): RequestContext {
  const url = new URL(`https://x/apis/example.com/v1/namespaces/ns/widgets/w${query}`);
  const request = new Request(url, {
    method: 'PATCH',
    body,
    headers: { 'content-type': contentType, 'user-agent': 'unit/1' },
  });
  return { request, url, values: new Map() } as unknown as RequestContext;
}

const status = (e: unknown) => (e instanceof StatusError ? e.status : undefined);

test('custom resources answer strategic merge patch with 415 and upstream list of types', async () => {
  const { scope } = setup(false);
  await assert.rejects(
    patchResource(ctx('', '{}', 'application/strategic-merge-patch+json'), scope, 'ns', 'w', { namespace: 'ns' }),
    (e: unknown) =>
      status(e)?.code === 415 &&
      status(e)?.message ===
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
  );
});

test('apply creates (201 path), a patch applies inside the update loop, dry run writes nothing', async () => {
  const { store, scope } = setup();
  const apply = (body: object, q = '?fieldManager=a') =>
    patchResource(ctx(q, JSON.stringify(body), 'application/apply-patch+yaml'), scope, 'ns', 'w', {
      namespace: 'ns',
      dryRun: q.includes('dryRun'),
    });
  const w = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } };
  const dry = await apply(w, '?fieldManager=a&dryRun=All');
  assert.equal(dry.created, true);
  await assert.rejects(
    async () => store.get('ns', 'w'),
    (e: unknown) => status(e)?.code === 404,
  );
  const r = await apply(w);
  assert.equal(r.created, true);
  assert.equal(r.object.metadata.namespace, 'ns');
  assert.ok(r.object.metadata.uid);
  // A concurrent write between read and write: the patch is re-applied to the newer object.
  const stored = await store.get('ns', 'w');
  await store.update('w', { ...structuredClone(stored), spec: { size: 1, color: 'red' } } as KubeObject, {
    namespace: 'ns',
  });
  const m = await patchResource(ctx('', '{"spec":{"size":2}}', 'application/merge-patch+json'), scope, 'ns', 'w', {
    namespace: 'ns',
  });
  assert.deepEqual(m.object.spec, { size: 2, color: 'red' });
  // The Update took spec.size from the applier, whose entry is then empty and goes.
  assert.deepEqual(
    (m.object.metadata.managedFields as { manager: string; operation: string }[]).map((e) => [e.manager, e.operation]),
    [['unit', 'Update']],
  );
  // A stale resourceVersion in the patch is a conflict.
  await assert.rejects(
    patchResource(ctx('', '{"metadata":{"resourceVersion":"1"}}', 'application/merge-patch+json'), scope, 'ns', 'w', {
      namespace: 'ns',
    }),
    (e: unknown) => status(e)?.code === 409,
  );
});

test('fieldManager: the User-Agent prefix, printable characters, at most 128 bytes', () => {
  assert.equal(managerOrUserAgent('', 'kubectl/v1.32.5 (linux/amd64) kubernetes/9894294'), 'kubectl');
  assert.equal(managerOrUserAgent('', 'a\u0007b/1'), 'ab');
  assert.equal(managerOrUserAgent('', 'x'.repeat(200)).length, 128);
  assert.equal(managerOrUserAgent('mine', 'kubectl/1'), 'mine');
  assert.deepEqual(
    validateFieldManager('a\u0007').map((e) => e.toString()),
    ['fieldManager: Invalid value: "a\\a": invalid character U+0007 (at position 1)'],
  );
  assert.equal(validateFieldManager('x'.repeat(129)).length, 1);
});
