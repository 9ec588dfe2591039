// CRDs in process (buildServerFromFlags, memory storage, fetch): several versions with
// `conversion: None`, defaults applied when reading objects stored before the default existed,
// cluster-scoped resources, name conflicts (NamesAccepted=False), namespace deletion taking the
// custom resources along, discovery (legacy, aggregated, the main server's /apis) following CRDs,
// and the schema code running with code generation from strings disallowed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { buildServerFromFlags } from '../src/app/build.ts';
import { discardLogger } from '../src/util/logger.ts';
import { apiExtensionsState } from '../src/apiextensions/apiserver.ts';
import type { GenericAPIServer } from '../src/server/genericapiserver.ts';

const { server } = await buildServerFromFlags(
  ['--storage-backend=memory', '--authorization-mode=AlwaysAllow', '--anonymous-auth=true'],
  { logger: discardLogger },
);
// Served through fetch() alone, nothing runs the server: mark its paths installed (404, not 503).
server.config.lifecycleSignals.MuxAndDiscoveryComplete.signal();
after(() => server.destroy());

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await server.fetch(
    new Request(`https://localhost${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...headers },
    }),
  );
  const text = await r.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON
  }
  return { status: r.status, json, text, headers: r.headers };
}

/** Waits until the CRD controller has handled everything so far. */
async function settle(s: GenericAPIServer = server): Promise<void> {
  const delegate = (s as unknown as { delegationTarget: GenericAPIServer }).delegationTarget;
  for (let i = 0; i < 5; i++) {
    await apiExtensionsState(delegate)!.controller.idle();
    await new Promise((r) => setTimeout(r, 20));
  }
}

const schema = (props: Record<string, unknown>) => ({
  openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: props } } },
});

function crd(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name }, spec };
}

test('versions with conversion None: one storage, apiVersion rewritten per served version', async () => {
  const r = await call(
    'POST',
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    crd('gizmos.multi.example.com', {
      group: 'multi.example.com',
      scope: 'Namespaced',
      names: { plural: 'gizmos', kind: 'Gizmo' },
      versions: [
        { name: 'v1beta1', served: true, storage: false, schema: schema({ a: { type: 'string' } }) },
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: schema({ a: { type: 'string' }, b: { type: 'string', default: 'B' } }),
        },
        { name: 'v0', served: false, storage: false, schema: schema({}) },
      ],
    }),
  );
  assert.equal(r.status, 201, r.text);
  await settle();
  const made = await call('POST', '/apis/multi.example.com/v1beta1/namespaces/default/gizmos', {
    apiVersion: 'multi.example.com/v1beta1',
    kind: 'Gizmo',
    metadata: { name: 'g' },
    spec: { a: 'x', b: 'pruned in v1beta1' },
  });
  assert.equal(made.status, 201, made.text);
  assert.equal(made.json.apiVersion, 'multi.example.com/v1beta1');
  assert.deepEqual(made.json.spec, { a: 'x' });
  const v1 = await call('GET', '/apis/multi.example.com/v1/namespaces/default/gizmos/g');
  assert.equal(v1.json.apiVersion, 'multi.example.com/v1');
  assert.deepEqual(v1.json.spec, { a: 'x', b: 'B' }, 'v1 defaults applied on read');
  const beta = await call('GET', '/apis/multi.example.com/v1beta1/namespaces/default/gizmos');
  assert.equal(beta.json.kind, 'GizmoList');
  assert.equal(beta.json.apiVersion, 'multi.example.com/v1beta1');
  assert.equal((beta.json.items as { apiVersion: string }[])[0]!.apiVersion, 'multi.example.com/v1beta1');
  // The unserved version is not there; discovery prefers v1.
  assert.notEqual((await call('GET', '/apis/multi.example.com/v0/namespaces/default/gizmos')).status, 200);
  const group = await call('GET', '/apis/multi.example.com');
  assert.deepEqual(group.json.preferredVersion, { groupVersion: 'multi.example.com/v1', version: 'v1' });
  assert.deepEqual(
    (group.json.versions as { version: string }[]).map((v) => v.version),
    ['v1', 'v1beta1'],
  );
  // OpenAPI: each served version with its own schema (v0 is not served).
  const index = await call('GET', '/openapi/v3');
  const paths = Object.keys(index.json.paths as object).filter((p) => p.includes('multi.example.com'));
  assert.deepEqual(paths, ['apis/multi.example.com/v1', 'apis/multi.example.com/v1beta1']);
  type Doc = { components: { schemas: Record<string, { properties: { spec: { properties: object } } }> } };
  const props = async (v: string) => {
    const d = (await call('GET', `/openapi/v3/apis/multi.example.com/${v}`)).json as unknown as Doc;
    return Object.keys(d.components.schemas[`com.example.multi.${v}.Gizmo`]!.properties.spec.properties);
  };
  assert.deepEqual(await props('v1'), ['a', 'b']);
  assert.deepEqual(await props('v1beta1'), ['a']);
  const v2 = (await call('GET', '/openapi/v2')).json as { definitions: Record<string, unknown> };
  assert.ok(v2.definitions['com.example.multi.v1.Gizmo'] && v2.definitions['com.example.multi.v1beta1.Gizmo']);
  assert.equal(v2.definitions['com.example.multi.v0.Gizmo'], undefined);
});

test('a default added to the CRD later appears on objects stored before', async () => {
  const name = 'things.late.example.com';
  const r = await call(
    'POST',
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    crd(name, {
      group: 'late.example.com',
      scope: 'Cluster',
      names: { plural: 'things', kind: 'Thing' },
      versions: [{ name: 'v1', served: true, storage: true, schema: schema({ a: { type: 'string' } }) }],
    }),
  );
  assert.equal(r.status, 201, r.text);
  await settle();
  const made = await call('POST', '/apis/late.example.com/v1/things', {
    apiVersion: 'late.example.com/v1',
    kind: 'Thing',
    metadata: { name: 't', namespace: 'ignored' },
    spec: {},
  });
  assert.equal(made.status, 201, made.text);
  assert.equal((made.json.metadata as { namespace?: string }).namespace, undefined, 'cluster-scoped');
  // A namespaced path for a cluster-scoped resource is not served.
  assert.equal((await call('GET', '/apis/late.example.com/v1/namespaces/default/things/t')).status, 404);
  const cur = await call('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
  const next = structuredClone(cur.json) as { spec: { versions: { schema: unknown }[] } };
  next.spec.versions[0]!.schema = schema({ a: { type: 'string', default: 'late' } });
  const put = await call('PUT', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, next);
  assert.equal(put.status, 200, put.text);
  assert.equal((put.json.metadata as { generation: number }).generation, 2);
  await settle();
  const got = await call('GET', '/apis/late.example.com/v1/things/t');
  assert.deepEqual(got.json.spec, { a: 'late' });
});

test('conflicting names: NamesAccepted False, not served', async () => {
  const base = {
    group: 'clash.example.com',
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: schema({}) }],
  };
  assert.equal(
    (
      await call(
        'POST',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        crd('foos.clash.example.com', { ...base, names: { plural: 'foos', kind: 'Foo', shortNames: ['fo'] } }),
      )
    ).status,
    201,
  );
  await settle();
  assert.equal(
    (
      await call(
        'POST',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        crd('bars.clash.example.com', { ...base, names: { plural: 'bars', kind: 'Bar', shortNames: ['fo'] } }),
      )
    ).status,
    201,
  );
  await settle();
  const bar = await call('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/bars.clash.example.com');
  const conds = (bar.json.status as { conditions: { type: string; status: string; reason: string; message: string }[] })
    .conditions;
  assert.deepEqual(
    conds.map((c) => [c.type, c.status, c.reason, c.message]),
    [
      ['NamesAccepted', 'False', 'ShortNamesConflict', '"fo" is already in use'],
      ['Established', 'False', 'NotAccepted', 'not all names are accepted'],
    ],
  );
  assert.notEqual((await call('GET', '/apis/clash.example.com/v1/namespaces/default/bars')).status, 200);
  assert.equal((await call('GET', '/apis/clash.example.com/v1/namespaces/default/foos')).status, 200);
});

test('discovery follows CRDs: group lists, aggregated discovery, categories and subresources', async () => {
  const apis = await call('GET', '/apis');
  const names = (apis.json.groups as { name: string }[]).map((g) => g.name);
  for (const g of ['apiextensions.k8s.io', 'multi.example.com', 'late.example.com', 'clash.example.com'])
    assert.ok(names.includes(g), `${g} in ${names.join(',')}`);
  const agg = await call('GET', '/apis', undefined, {
    accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
  });
  assert.equal(agg.status, 200);
  const items = agg.json.items as {
    metadata: { name: string };
    versions: { version: string; resources: { resource: string; scope: string }[] }[];
  }[];
  const multi = items.find((i) => i.metadata.name === 'multi.example.com')!;
  assert.deepEqual(
    multi.versions.map((v) => [v.version, v.resources.map((r) => `${r.resource}:${r.scope}`)]),
    [
      ['v1', ['gizmos:Namespaced']],
      ['v1beta1', ['gizmos:Namespaced']],
    ],
  );
  const late = items.find((i) => i.metadata.name === 'late.example.com')!;
  assert.equal(late.versions[0]!.resources[0]!.scope, 'Cluster');
  const crdGroup = await call('GET', '/apis/apiextensions.k8s.io/v1');
  assert.deepEqual(
    (crdGroup.json.resources as { name: string; shortNames: string[] }[]).map((r) => [r.name, r.shortNames]),
    [['customresourcedefinitions', ['crd', 'crds']]],
  );
});

test('deleting a namespace deletes its custom resources', async () => {
  assert.equal((await call('POST', '/api/v1/namespaces', { metadata: { name: 'tmp' } })).status, 201);
  const made = await call('POST', '/apis/multi.example.com/v1/namespaces/tmp/gizmos', {
    apiVersion: 'multi.example.com/v1',
    kind: 'Gizmo',
    metadata: { name: 'in-tmp' },
    spec: {},
  });
  assert.equal(made.status, 201, made.text);
  assert.equal((await call('DELETE', '/api/v1/namespaces/tmp')).status, 200);
  let status = 0;
  for (let i = 0; i < 50; i++) {
    status = (await call('GET', '/apis/multi.example.com/v1/namespaces/tmp/gizmos/in-tmp')).status;
    if (status === 404) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(status, 404);
  // NamespaceLifecycle refuses new custom resources in a missing namespace.
  const refused = await call('POST', '/apis/multi.example.com/v1/namespaces/nowhere/gizmos', {
    apiVersion: 'multi.example.com/v1',
    kind: 'Gizmo',
    metadata: { name: 'x' },
  });
  assert.equal(refused.status, 404);
  assert.equal(refused.json.message, 'namespaces "nowhere" not found');
});

test('bad input: wrong kind, malformed body, unknown subresource, strategic merge patch', async () => {
  const wrongKind = await call('POST', '/apis/multi.example.com/v1/namespaces/default/gizmos', {
    apiVersion: 'multi.example.com/v1',
    kind: 'Other',
    metadata: { name: 'x' },
  });
  assert.equal(wrongKind.status, 400);
  assert.match(String(wrongKind.json.message), /Other in version "v1" cannot be handled as a Gizmo/);
  const malformed = await server.fetch(
    new Request('https://localhost/apis/multi.example.com/v1/namespaces/default/gizmos', {
      method: 'POST',
      body: '{"apiVersion":',
      headers: { 'content-type': 'application/json' },
    }),
  );
  assert.equal(malformed.status, 400);
  assert.equal((await call('GET', '/apis/multi.example.com/v1/namespaces/default/gizmos/g/status')).status, 404);
  const smp = await call(
    'PATCH',
    '/apis/multi.example.com/v1/namespaces/default/gizmos/g',
    {},
    {
      'content-type': 'application/strategic-merge-patch+json',
    },
  );
  assert.equal(smp.status, 415);
  assert.match(
    String(smp.json.message),
    /accepted media types include: application\/json-patch\+json, application\/merge-patch\+json/,
  );
  // Apply and patch bad input: upstream's Status, nothing written.
  const G = '/apis/multi.example.com/v1/namespaces/default/gizmos/g';
  const applyRaw = (path: string, body: string) =>
    server
      .fetch(
        new Request(`https://localhost${path}`, {
          method: 'PATCH',
          body,
          headers: { 'content-type': 'application/apply-patch+yaml' },
        }),
      )
      .then(async (r) => ({ status: r.status, json: (await r.json()) as { message: string; reason: string } }));
  const before = (await call('GET', G)).json;
  let a = await applyRaw(`${G}?fieldManager=m`, 'spec: [unclosed');
  assert.equal(a.status, 400);
  assert.match(a.json.message, /^error decoding patch: yaml: /);
  a = await applyRaw(G, 'apiVersion: multi.example.com/v1\nkind: Gizmo\nmetadata: {name: g}\n');
  assert.equal(a.status, 422);
  assert.match(a.json.message, /fieldManager: Required value: is required for apply patch/);
  a = await applyRaw(
    `${G}?fieldManager=m`,
    'apiVersion: multi.example.com/v1beta1\nkind: Gizmo\nmetadata: {name: g}\n',
  );
  assert.equal(a.status, 400);
  assert.equal(
    a.json.message,
    'invalid object type: multi.example.com/v1beta1, Kind=Gizmo, expected multi.example.com/v1, Kind=Gizmo',
  );
  a = await applyRaw(`${G}?fieldManager=m`, 'apiVersion: multi.example.com/v1\nkind: Gizmo\nmetadata: {name: other}\n');
  assert.equal(a.status, 400);
  assert.match(a.json.message, /the name of the object \(other\) does not match the name on the URL \(g\)/);
  const strict = await call(
    'PATCH',
    `${G}?fieldValidation=Strict`,
    { spec: { zz: 1 } },
    {
      'content-type': 'application/merge-patch+json',
    },
  );
  assert.equal(strict.status, 422);
  assert.match(String(strict.json.message), /patch: Invalid value: .*strict decoding error: unknown field "spec\.zz"/);
  const bigOps = await call(
    'PATCH',
    G,
    Array.from({ length: 10001 }, () => ({ op: 'test', path: '/kind', value: 'Gizmo' })),
    {
      'content-type': 'application/json-patch+json',
    },
  );
  assert.equal(bigOps.status, 413);
  assert.deepEqual((await call('GET', G)).json, before, 'nothing was written');
  // An invalid CRD update is refused and changes nothing.
  const cur = await call('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.multi.example.com');
  const bad = structuredClone(cur.json) as { spec: { group: string } };
  bad.spec.group = 'other.example.com';
  const put = await call(
    'PUT',
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.multi.example.com',
    bad,
  );
  assert.equal(put.status, 422);
  assert.match(String(put.json.message), /spec\.group: Invalid value: "other\.example\.com": field is immutable/);
});

test('the schema code runs with code generation from strings disallowed (as on Workers)', async () => {
  const script = `
    import { newStructural, validateStructural } from './src/apiextensions/schema/structural.ts';
    import { validateCustomResource } from './src/apiextensions/schema/validation.ts';
    import { prune, applyDefaults } from './src/apiextensions/schema/pruning.ts';
    import { Path } from './src/util/validation/field.ts';
    const raw = { type: 'object', properties: { spec: { type: 'object', properties: {
      n: { type: 'string', pattern: '^[a-z]+$', default: 'x' }, f: { type: 'string', format: 'date-time' } } } } };
    const s = newStructural(raw);
    const o = { spec: { q: 1, f: 'nope' } };
    const pruned = prune(o, s, true);
    applyDefaults(o, s);
    const errs = [...validateStructural(Path.of('s'), s), ...validateCustomResource(undefined, o, raw)].map(String);
    let evalBlocked = false;
    try { new Function('return 1'); } catch { evalBlocked = true; }
    console.log(JSON.stringify({ pruned, o, errs, evalBlocked }));
  `;
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script],
      { cwd: new URL('..', import.meta.url).pathname },
      (err, stdout, stderr) => (err ? reject(new Error(stderr || String(err))) : resolve(stdout)),
    ),
  );
  assert.deepEqual(JSON.parse(out), {
    pruned: ['spec.q'],
    o: { spec: { f: 'nope', n: 'x' } },
    errs: ['spec.f: Invalid value: "nope": spec.f in body must be of type date-time: "nope"'],
    evalBlocked: true,
  });
});

test('deleting a CRD: Terminating while its objects go, new objects refused (405), then the CRD goes', async () => {
  const name = 'holds.term.example.com';
  const base = '/apis/term.example.com/v1/namespaces/default/holds';
  assert.equal(
    (
      await call(
        'POST',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        crd(name, {
          group: 'term.example.com',
          scope: 'Namespaced',
          names: { plural: 'holds', kind: 'Hold' },
          versions: [{ name: 'v1', served: true, storage: true, schema: schema({}) }],
        }),
      )
    ).status,
    201,
  );
  await settle();
  // An object held by its own finalizer keeps the CRD terminating.
  const held = await call('POST', base, {
    apiVersion: 'term.example.com/v1',
    kind: 'Hold',
    metadata: { name: 'h', finalizers: ['example.com/hold'] },
    spec: {},
  });
  assert.equal(held.status, 201, held.text);
  assert.equal((await call('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)).status, 200);
  await settle();
  const got = await call('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
  const conds = (got.json.status as { conditions: { type: string; status: string; reason: string; message: string }[] })
    .conditions;
  assert.deepEqual(
    conds.filter((c) => c.type === 'Terminating').map((c) => [c.status, c.reason, c.message]),
    [['True', 'InstanceDeletionInProgress', 'CustomResource deletion is in progress']],
  );
  const refused = await call('POST', base, {
    apiVersion: 'term.example.com/v1',
    kind: 'Hold',
    metadata: { name: 'new' },
    spec: {},
  });
  assert.equal(refused.status, 405, refused.text);
  assert.equal(refused.json.reason, 'MethodNotAllowed');
  // The object's finalizer removed, the next pass finishes: the CRD and its resources go.
  const cur = await call('GET', `${base}/h`);
  assert.ok((cur.json.metadata as { deletionTimestamp?: string }).deletionTimestamp);
  const patched = await call(
    'PATCH',
    `${base}/h`,
    { metadata: { finalizers: null } },
    {
      'content-type': 'application/merge-patch+json',
    },
  );
  assert.equal(patched.status, 200, patched.text);
  for (let i = 0; i < 50; i++) {
    await settle();
    if ((await call('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)).status === 404) break;
    await apiExtensionsState(
      (server as unknown as { delegationTarget: GenericAPIServer }).delegationTarget,
    )!.controller.resync();
  }
  assert.equal((await call('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)).status, 404);
  assert.equal((await call('GET', base)).status, 404);
});
