import { test } from 'node:test';
import assert from 'node:assert/strict';
import { complete, newConfig, newServer } from '../../server/config.ts';
import { installDiscovery, installAPIGroup, type APIGroupInfo } from '../discovery/discovery.ts';
import { installOpenAPI, setResourceOpenAPI } from '../../server/routes/openapi.ts';
import type { GenericAPIServer } from '../../server/genericapiserver.ts';
import { buildV2Document, buildV3Document, toV2Schema } from './builder.ts';
import {
  builtinDefinition,
  builtinDefinitionName,
  builtinDefinitions,
  builtinSchemaForGVK,
  definitionClosure,
  resolveSchema,
} from './schemas.ts';
import { negotiateOpenAPI } from './service.ts';
import { encodeV2Protobuf } from './protobuf.ts';
import { ResourceRegistry } from '../../registry/rest/registry.ts';
import { builtinResources } from '../../registry/core/resources.ts';
import { StorageFactory } from '../../storage/storagebackend/factory.ts';
import { MemoryKV } from '../../storage/memory/kv.ts';

const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const core: APIGroupInfo = {
  name: '',
  versions: [
    {
      version: 'v1',
      resources: [
        { name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs },
        {
          name: 'namespaces',
          singularName: 'namespace',
          namespaced: false,
          kind: 'Namespace',
          verbs: verbs.filter((v) => v !== 'deletecollection'),
        },
      ],
    },
  ],
};
const coordination: APIGroupInfo = {
  name: 'coordination.k8s.io',
  versions: [
    { version: 'v1', resources: [{ name: 'leases', singularName: 'lease', namespaced: true, kind: 'Lease', verbs }] },
  ],
};

function server(...groups: APIGroupInfo[]): GenericAPIServer {
  const c = newConfig({
    routeInstallers: [
      installDiscovery,
      (s) => {
        for (const g of groups) installAPIGroup(s, g);
      },
      installOpenAPI,
    ],
  });
  return newServer(complete(c), 'test');
}

const get = (s: GenericAPIServer, path: string, headers: Record<string, string> = {}) =>
  s.fetch(new Request(`https://127.0.0.1${path}`, { headers }));

test('schemas: lookup by name and by group/version/kind, references resolve, closures are complete', () => {
  const cm = builtinDefinition('io.k8s.api.core.v1.ConfigMap')!;
  assert.equal(cm.properties!.data!.type, 'object');
  assert.deepEqual(cm['x-kubernetes-group-version-kind'], [{ group: '', kind: 'ConfigMap', version: 'v1' }]);
  assert.equal(builtinDefinitionName({ group: '', version: 'v1', kind: 'ConfigMap' }), 'io.k8s.api.core.v1.ConfigMap');
  assert.equal(
    builtinDefinitionName({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBinding' }),
    'io.k8s.api.rbac.v1.ClusterRoleBinding',
  );
  assert.equal(
    builtinDefinitionName({ group: 'events.k8s.io', version: 'v1', kind: 'Event' }),
    'io.k8s.api.events.v1.Event',
  );
  assert.equal(
    builtinDefinitionName({ group: 'coordination.k8s.io', version: 'v1', kind: 'DeleteOptions' }),
    'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
  );
  assert.equal(builtinDefinitionName({ group: 'apps', version: 'v1', kind: 'Deployment' }), undefined);
  for (const [g, k] of [
    ['', 'Namespace'],
    ['', 'Secret'],
    ['', 'ServiceAccount'],
    ['', 'Service'],
    ['', 'Event'],
    ['', 'Endpoints'],
    ['flowcontrol.apiserver.k8s.io', 'FlowSchema'],
    ['flowcontrol.apiserver.k8s.io', 'PriorityLevelConfiguration'],
    ['apiextensions.k8s.io', 'CustomResourceDefinition'],
    ['authentication.k8s.io', 'TokenReview'],
    ['authorization.k8s.io', 'SubjectAccessReview'],
    ['authorization.k8s.io', 'SelfSubjectRulesReview'],
  ] as const)
    assert.ok(builtinSchemaForGVK({ group: g, version: 'v1', kind: k }), `${g}/${k}`);

  // Upstream's v3 shape: a described reference is allOf [$ref]; patch and list extensions kept.
  const md = cm.properties!.metadata!;
  assert.deepEqual(md.allOf, [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }]);
  const om = resolveSchema(md)!;
  assert.equal(om, builtinDefinition('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'));
  assert.equal(om.properties!.ownerReferences!['x-kubernetes-patch-merge-key'], 'uid');
  assert.equal(om.properties!.ownerReferences!['x-kubernetes-patch-strategy'], 'merge');
  assert.equal(om.properties!.finalizers!['x-kubernetes-list-type'], 'set');
  const ports = resolveSchema(builtinDefinition('io.k8s.api.core.v1.Service')!.properties!.spec)!.properties!.ports!;
  assert.deepEqual(ports['x-kubernetes-list-map-keys'], ['port', 'protocol']);
  assert.equal(ports['x-kubernetes-list-type'], 'map');
  assert.equal(
    resolveSchema(builtinDefinition('io.k8s.api.rbac.v1.ClusterRole')!.properties!.aggregationRule)!.properties!
      .clusterRoleSelectors!['x-kubernetes-list-type'],
    'atomic',
  );
  assert.deepEqual(builtinDefinition('io.k8s.apimachinery.pkg.util.intstr.IntOrString')!.oneOf, [
    { type: 'integer' },
    { type: 'string' },
  ]);
  assert.ok(Object.isFrozen(cm) && Object.isFrozen(cm.properties!.data));

  // Every reference of every built-in definition resolves.
  const all = builtinDefinitions();
  const closure = definitionClosure(Object.keys(all));
  assert.equal(Object.keys(closure).length, Object.keys(all).length);
  const lease = definitionClosure(['io.k8s.api.coordination.v1.Lease']);
  assert.ok(lease['io.k8s.api.coordination.v1.LeaseSpec'] && lease['io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime']);
  assert.ok(lease['io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry']);
});

test('v3 document: the operations, parameters and extensions kubectl reads, as upstream names them', () => {
  const doc = buildV3Document({ group: '', version: 'v1', resources: core.versions[0]!.resources }, { version: 'v9' });
  const paths = doc.paths as Record<string, Record<string, Record<string, unknown>>>;
  const item = paths['/api/v1/namespaces/{namespace}/configmaps/{name}']!;
  const patch = item.patch!;
  assert.equal(patch.operationId, 'patchCoreV1NamespacedConfigMap');
  assert.equal(patch['x-kubernetes-action'], 'patch');
  assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: '', kind: 'ConfigMap', version: 'v1' });
  const names = (ps: unknown) => (ps as { name: string }[]).map((p) => p.name);
  assert.deepEqual(names(patch.parameters), ['dryRun', 'fieldManager', 'fieldValidation', 'force']);
  assert.deepEqual(names(item.parameters), ['name', 'namespace', 'pretty']);
  assert.deepEqual(Object.keys((patch.requestBody as { content: object }).content), [
    'application/apply-patch+yaml',
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
  ]);
  assert.deepEqual(Object.keys(item).sort(), ['delete', 'get', 'parameters', 'patch', 'put']);
  assert.equal(
    paths['/api/v1/namespaces/{namespace}/configmaps']!.delete!.operationId,
    'deleteCoreV1CollectionNamespacedConfigMap',
  );
  assert.equal(paths['/api/v1/configmaps']!.get!.operationId, 'listCoreV1ConfigMapForAllNamespaces');
  assert.equal(paths['/api/v1/watch/namespaces/{name}']!.get!['x-kubernetes-action'], 'watch');
  assert.equal(paths['/api/v1/']!.get!.operationId, 'getCoreV1APIResources');
  // Namespaces have no deletecollection: no DELETE on the collection.
  assert.deepEqual(Object.keys(paths['/api/v1/namespaces']!).sort(), ['get', 'parameters', 'post']);
  const schemas = (doc.components as { schemas: Record<string, unknown> }).schemas;
  for (const n of ['ConfigMap', 'ConfigMapList', 'Namespace', 'NamespaceSpec'])
    assert.ok(schemas[`io.k8s.api.core.v1.${n}`], n);
  for (const n of ['ObjectMeta', 'ListMeta', 'Status', 'DeleteOptions', 'Patch', 'WatchEvent', 'APIResourceList'])
    assert.ok(schemas[`io.k8s.apimachinery.pkg.apis.meta.v1.${n}`], n);
  assert.equal(schemas['io.k8s.api.coordination.v1.Lease'], undefined);
  assert.deepEqual(doc.info, { title: 'Kubernetes', version: 'v9' });
});

test('v2 document: swagger 2.0 with #/definitions references and upstream operation shapes', () => {
  const doc = buildV2Document(
    [
      { group: '', version: 'v1', resources: core.versions[0]!.resources },
      { group: 'coordination.k8s.io', version: 'v1', resources: coordination.versions[0]!.resources },
    ],
    { version: 'v9' },
  );
  assert.equal(doc.swagger, '2.0');
  const defs = doc.definitions as Record<string, Record<string, Record<string, Record<string, unknown>>>>;
  assert.equal(
    defs['io.k8s.api.core.v1.ConfigMap']!.properties!.metadata!.$ref,
    '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  );
  assert.deepEqual(toV2Schema(builtinDefinition('io.k8s.apimachinery.pkg.util.intstr.IntOrString')), {
    description: builtinDefinition('io.k8s.apimachinery.pkg.util.intstr.IntOrString')!.description,
    format: 'int-or-string',
    type: 'string',
  });
  const paths = doc.paths as Record<string, Record<string, Record<string, unknown>>>;
  const patch = paths['/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}']!.patch!;
  assert.equal(patch.operationId, 'patchCoordinationV1NamespacedLease');
  assert.deepEqual(patch.tags, ['coordination_v1']);
  const body = (patch.parameters as Record<string, unknown>[])[0]!;
  assert.deepEqual(body, {
    in: 'body',
    name: 'body',
    required: true,
    schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' },
  });
  assert.deepEqual(patch.consumes, [
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
    'application/apply-patch+yaml',
  ]);
});

test('a resource with its own schema, and one with none (a placeholder that keeps unknown fields)', () => {
  const gv = {
    group: 'stable.example.com',
    version: 'v1',
    resources: [
      {
        name: 'crontabs',
        kind: 'CronTab',
        namespaced: true,
        verbs,
        openAPI: {
          name: 'com.example.stable.v1.CronTab',
          definitions: {
            'com.example.stable.v1.CronTab': {
              type: 'object',
              properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' } } } },
              'x-kubernetes-group-version-kind': [{ group: 'stable.example.com', kind: 'CronTab', version: 'v1' }],
            },
          },
        },
      },
      { name: 'widgets', kind: 'Widget', namespaced: false, verbs },
    ],
  };
  const doc = buildV3Document(gv, { version: 'v9' });
  const schemas = (doc.components as { schemas: Record<string, Record<string, unknown>> }).schemas;
  assert.ok(schemas['com.example.stable.v1.CronTab']!.properties);
  assert.ok(schemas['com.example.stable.v1.CronTabList'], 'a placeholder list');
  assert.equal(schemas['com.example.stable.v1.Widget']!['x-kubernetes-preserve-unknown-fields'], true);
  const paths = doc.paths as Record<string, Record<string, Record<string, unknown>>>;
  assert.equal(
    paths['/apis/stable.example.com/v1/widgets/{name}']!.patch!.operationId,
    'patchStableExampleComV1Widget',
  );
  assert.deepEqual(paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs']!.get!.tags, [
    'stableExampleCom_v1',
  ]);
});

test('negotiation: goautoneg order among the offered types; none → undefined (406)', () => {
  const offered = ['application/json', 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf'];
  assert.equal(negotiateOpenAPI(null, offered), 'application/json');
  assert.equal(negotiateOpenAPI('*/*', offered), 'application/json');
  assert.equal(negotiateOpenAPI('application/com.github.proto-openapi.spec.v2@v1.0+protobuf', offered), offered[1]);
  assert.equal(
    negotiateOpenAPI('application/json;q=0.5, application/com.github.proto-openapi.spec.v2@v1.0+protobuf', offered),
    offered[1],
  );
  assert.equal(negotiateOpenAPI('text/html', offered), undefined);
});

test('/openapi/v3: root with hashed URLs, per group version ETag, 304, immutable caching, 301 on a stale hash', async () => {
  const s = server(core, coordination);
  const r = await get(s, '/openapi/v3');
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'application/json');
  const etag = r.headers.get('etag')!;
  assert.match(etag, /^"[0-9A-F]{128}"$/);
  const root = (await r.json()) as { paths: Record<string, { serverRelativeURL: string }> };
  assert.deepEqual(Object.keys(root.paths), ['api/v1', 'apis/coordination.k8s.io/v1']);
  assert.equal((await get(s, '/openapi/v3', { 'if-none-match': etag })).status, 304);

  const u = root.paths['apis/coordination.k8s.io/v1']!.serverRelativeURL;
  const hash = /\?hash=([0-9A-F]{128})$/.exec(u)![1]!;
  const d = await get(s, u, { accept: 'application/json' });
  assert.equal(d.status, 200);
  assert.equal(d.headers.get('etag'), `"${hash}"`);
  assert.equal(d.headers.get('cache-control'), 'public, immutable');
  assert.equal(d.headers.get('vary'), 'Accept');
  assert.ok(Date.parse(d.headers.get('expires')!) > Date.now() + 300 * 24 * 3600 * 1000);
  const doc = (await d.json()) as { openapi: string; paths: Record<string, unknown> };
  assert.equal(doc.openapi, '3.0.0');
  assert.ok(doc.paths['/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}']);

  const n = await get(s, '/openapi/v3/apis/coordination.k8s.io/v1', { 'if-none-match': `"${hash}"` });
  assert.equal(n.status, 304);
  assert.equal(n.headers.get('cache-control'), 'no-cache, private', "the chain's default without ?hash=");
  const moved = await get(s, '/openapi/v3/apis/coordination.k8s.io/v1?hash=0123');
  assert.equal(moved.status, 301);
  assert.equal(moved.headers.get('location'), u);
  assert.equal((await get(s, u, { accept: 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf' })).status, 406);
  assert.equal((await get(s, u, { accept: 'text/plain' })).status, 406);
  const unknown = await get(s, '/openapi/v3/apis/apps/v1');
  assert.equal(unknown.status, 200);
  assert.equal(await unknown.text(), '');
});

test('/openapi/v3 and /openapi/v2 follow the served set: a group added or a schema set changes the documents', async () => {
  const s = server(core);
  const before = (await (await get(s, '/openapi/v3')).json()) as { paths: Record<string, unknown> };
  assert.deepEqual(Object.keys(before.paths), ['api/v1']);
  const v2a = await get(s, '/openapi/v2');
  const etag2 = v2a.headers.get('etag')!;
  assert.equal(v2a.status, 200);
  assert.equal(((await v2a.json()) as { swagger: string }).swagger, '2.0');
  assert.equal((await get(s, '/openapi/v2', { 'if-none-match': etag2 })).status, 304);

  const crd: APIGroupInfo = {
    name: 'stable.example.com',
    versions: [
      {
        version: 'v1',
        resources: [{ name: 'crontabs', singularName: 'crontab', namespaced: true, kind: 'CronTab', verbs }],
      },
    ],
  };
  installAPIGroup(s, crd);
  const after = (await (await get(s, '/openapi/v3')).json()) as {
    paths: Record<string, { serverRelativeURL: string }>;
  };
  assert.deepEqual(Object.keys(after.paths), ['api/v1', 'apis/stable.example.com/v1']);
  const u1 = after.paths['apis/stable.example.com/v1']!.serverRelativeURL;
  setResourceOpenAPI(s, 'stable.example.com', 'v1', 'crontabs', {
    name: 'com.example.stable.v1.CronTab',
    definitions: { 'com.example.stable.v1.CronTab': { type: 'object', description: 'A CronTab' } },
  });
  const again = (await (await get(s, '/openapi/v3')).json()) as {
    paths: Record<string, { serverRelativeURL: string }>;
  };
  const u2 = again.paths['apis/stable.example.com/v1']!.serverRelativeURL;
  assert.notEqual(u1, u2);
  const doc = (await (await get(s, u2)).json()) as {
    components: { schemas: Record<string, { description?: string }> };
  };
  assert.equal(doc.components.schemas['com.example.stable.v1.CronTab']!.description, 'A CronTab');
  assert.notEqual((await get(s, '/openapi/v2')).headers.get('etag'), etag2);
  // The v1 document did not change: its hash stays.
  assert.equal(
    again.paths['api/v1']!.serverRelativeURL,
    (before.paths['api/v1'] as { serverRelativeURL: string }).serverRelativeURL,
  );
});

test('/openapi/v2: JSON, and gnostic protobuf for the media type client-go asks for, with the same ETag', async () => {
  const s = server(core, coordination);
  const j = await get(s, '/openapi/v2', { accept: 'application/json' });
  assert.equal(j.status, 200);
  const pb = await get(s, '/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
  assert.equal(pb.status, 200);
  assert.equal(pb.headers.get('content-type'), 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
  assert.equal(pb.headers.get('vary'), 'Accept');
  assert.equal(pb.headers.get('etag'), j.headers.get('etag'));
  const bytes = new Uint8Array(await pb.arrayBuffer());
  // Document.swagger = 1: "2.0"; then Info (2) with the title.
  assert.deepEqual([...bytes.subarray(0, 5)], [0x0a, 3, 0x32, 0x2e, 0x30]);
  const text = new TextDecoder().decode(bytes);
  for (const s of [
    'patchCoordinationV1NamespacedLease',
    'x-kubernetes-group-version-kind',
    'io.k8s.api.core.v1.ConfigMap',
    'fieldValidation',
  ])
    assert.ok(text.includes(s), s);
  assert.equal(
    (
      await get(s, '/openapi/v2', {
        accept: 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
        'if-none-match': j.headers.get('etag')!,
      })
    ).status,
    304,
  );
  const v2 = await get(s, '/openapi/v2', { accept: 'text/html' });
  assert.equal(v2.status, 406);
});

test('v2 protobuf: gnostic field numbers for schemas, parameters, responses and extensions', () => {
  const bytes = encodeV2Protobuf({
    swagger: '2.0',
    info: { title: 'T', version: 'v' },
    paths: {
      '/p/{name}': {
        get: {
          operationId: 'op',
          parameters: [{ in: 'query', name: 'q', type: 'string', uniqueItems: true }],
          responses: { '200': { description: 'OK', schema: { $ref: '#/definitions/D' } } },
          'x-kubernetes-action': 'get',
        },
        parameters: [{ in: 'path', name: 'name', required: true, type: 'string' }],
      },
    },
    definitions: { D: { type: 'object', required: ['a'], properties: { a: { type: 'integer', minimum: 1.5 } } } },
  });
  const hex = Buffer.from(bytes).toString('hex');
  // Definitions (9) → NamedSchema (1) {name "D", Schema {required (19) "a", type (22) {"object"}, properties (25)}}.
  assert.ok(hex.includes(Buffer.from([0x9a, 0x01, 0x01, 0x61]).toString('hex')), 'required = 19');
  assert.ok(
    hex.includes(Buffer.from([0xb2, 0x01, 0x08, 0x0a, 0x06]).toString('hex') + Buffer.from('object').toString('hex')),
    'type = 22',
  );
  // minimum (9) as a double.
  assert.ok(hex.includes('49' + Buffer.from(new Float64Array([1.5]).buffer).toString('hex')), 'minimum = 9, fixed64');
  // A message longer than 127 bytes gets a two-byte length.
  const long = encodeV2Protobuf({ info: { title: 'x'.repeat(200) } });
  assert.deepEqual([...long.subarray(0, 5)], [0x12, 0xcb, 0x01, 0x0a, 0xc8]);
  // The vendor extension as NamedAny {name, Any {yaml = 2: the value as JSON, which is YAML}}.
  assert.ok(
    hex.includes(
      Buffer.from('x-kubernetes-action').toString('hex') + '1208' + '1206' + Buffer.from('"get"\n').toString('hex'),
    ),
  );
});

test('config.resources: the served definitions, their openAPI schemas, and resources added and removed at run time', async () => {
  const factory = new StorageFactory({ kv: new MemoryKV(), watchCache: false });
  const registry = new ResourceRegistry(factory, builtinResources);
  const s = newServer(complete(newConfig({ resources: registry })), 'test');
  try {
    type Root = { paths: Record<string, { serverRelativeURL: string }> };
    type Doc = { paths: Record<string, unknown>; components: { schemas: Record<string, { description?: string }> } };
    const root = async () => (await (await get(s, '/openapi/v3')).json()) as Root;
    const doc = async (gv: string) => (await (await get(s, (await root()).paths[gv]!.serverRelativeURL)).json()) as Doc;
    const before = await root();
    assert.ok(before.paths['api/v1'] && before.paths['apis/coordination.k8s.io/v1']);
    const v1 = await doc('api/v1');
    assert.ok(v1.paths['/api/v1/namespaces/{namespace}/secrets/{name}']);
    assert.ok(v1.components.schemas['io.k8s.api.core.v1.Secret']);

    const lease = registry.get('coordination.k8s.io', 'leases')!.definition;
    const widget = (description: string) => ({
      ...lease,
      resource: { ...lease.resource, name: 'widgets', singularName: 'widget', kind: 'Widget' },
      listKind: 'WidgetList',
      openAPI: {
        name: 'io.example.Widget',
        definitions: { 'io.example.Widget': { type: 'object', description } },
      },
    });
    registry.add(widget('first'));
    const added = await doc('apis/coordination.k8s.io/v1');
    assert.ok(added.paths['/apis/coordination.k8s.io/v1/namespaces/{namespace}/widgets/{name}']);
    assert.equal(added.components.schemas['io.example.Widget']!.description, 'first');
    const url1 = (await root()).paths['apis/coordination.k8s.io/v1']!.serverRelativeURL;
    registry.remove('coordination.k8s.io', 'widgets');
    registry.add(widget('second'));
    assert.notEqual((await root()).paths['apis/coordination.k8s.io/v1']!.serverRelativeURL, url1);
    assert.equal(
      (await doc('apis/coordination.k8s.io/v1')).components.schemas['io.example.Widget']!.description,
      'second',
    );
    registry.remove('coordination.k8s.io', 'widgets');
    const removed = await doc('apis/coordination.k8s.io/v1');
    assert.equal(removed.paths['/apis/coordination.k8s.io/v1/namespaces/{namespace}/widgets/{name}'], undefined);
    assert.equal(removed.components.schemas['io.example.Widget'], undefined);
  } finally {
    s.destroy();
    factory.destroy();
  }
});
