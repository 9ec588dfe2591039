import { test } from 'node:test';
import assert from 'node:assert/strict';
import { complete, newConfig } from '../server/config.ts';
import { newServer } from '../server/config.ts';
import { newEmptyDelegate, notFoundHandler, type GenericAPIServer } from '../server/genericapiserver.ts';
import { discardLogger } from '../util/logger.ts';
import { MemoryFileSystem } from '../util/filesystem.ts';
import { ServerOptions } from '../server/options/options.ts';
import { AuthorizationOptions } from '../server/options/authorization.ts';
import type { AuthenticatorResponse, RequestAuthenticator } from '../authentication/authenticator.ts';
import { decodeMessage, encodeEnvelope, encodeMessage, decodeEnvelope, objectMetaSchema } from '../util/protobuf.ts';
import { installAPIGroup } from '../endpoints/discovery/discovery.ts';

// Bearer <name> → that user; `root` is in system:masters; no header → anonymous.
const testAuthenticator: RequestAuthenticator = {
  async authenticateRequest(ctx): Promise<AuthenticatorResponse | null> {
    const h = ctx.request.headers.get('authorization');
    if (!h) return { user: { name: 'system:anonymous', groups: ['system:unauthenticated'] } };
    const name = h.slice('Bearer '.length);
    if (name === 'bad') throw new Error('invalid bearer token');
    const groups = name === 'root' ? ['system:masters', 'system:authenticated'] : ['system:authenticated'];
    const extra: Record<string, string[]> = name === 'alice' ? { scopes: ['a'] } : {};
    return { user: { name, uid: `uid-${name}`, groups, extra } };
  },
};

const policy = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-reader, namespace: default}
rules: [{apiGroups: [""], resources: [pods], verbs: [get, list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-reads, namespace: default}
subjects: [{kind: User, apiGroup: rbac.authorization.k8s.io, name: alice}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader}
`;

async function build(args: string[] = ['--authorization-rbac-manifests=/rbac.yaml']): Promise<GenericAPIServer> {
  const options = new ServerOptions([new AuthorizationOptions()]);
  options.parse(args);
  assert.deepEqual(options.validate(), []);
  const config = newConfig({ logger: discardLogger, externalAddress: '10.0.0.1:6443' });
  config.authentication.authenticator = testAuthenticator;
  await options.applyTo(config, { logger: discardLogger, fileSystem: new MemoryFileSystem({ '/rbac.yaml': policy }) });
  const s = newServer(complete(config), 'test', newEmptyDelegate(notFoundHandler));
  s.prepareRun();
  return s;
}

const s = await build();

async function call(path: string, init: RequestInit & { token?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  const r = await s.fetch(new Request('https://127.0.0.1:6443' + path, { ...init, headers }));
  return { status: r.status, headers: r.headers, text: await r.text() };
}

const post = (path: string, body: string | Uint8Array, token: string, contentType = 'application/json', query = '') =>
  call(path + query, { method: 'POST', body: body as BodyInit, token, headers: { 'content-type': contentType } });

const aggAccept =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

test('discovery: /apis legacy (apiVersion stripped), /apis/<g>, /apis/<g>/<v>; /api absent without a core group', async () => {
  let r = await call('/apis', { token: 'alice' });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'application/json');
  const cidrs = '"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"10.0.0.1:6443"}]';
  assert.equal(
    r.text,
    `{"kind":"APIGroupList","groups":[{"name":"authentication.k8s.io","versions":[{"groupVersion":"authentication.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"authentication.k8s.io/v1","version":"v1"},${cidrs}},{"name":"authorization.k8s.io","versions":[{"groupVersion":"authorization.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"authorization.k8s.io/v1","version":"v1"},${cidrs}}]}\n`,
  );
  r = await call('/apis/authorization.k8s.io', { token: 'alice' });
  assert.equal(
    r.text,
    '{"kind":"APIGroup","apiVersion":"v1","name":"authorization.k8s.io","versions":[{"groupVersion":"authorization.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"authorization.k8s.io/v1","version":"v1"}}\n',
  );
  r = await call('/apis/authentication.k8s.io/v1/', { token: 'alice' });
  assert.equal(
    r.text,
    '{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"authentication.k8s.io/v1","resources":[{"name":"selfsubjectreviews","singularName":"selfsubjectreview","namespaced":false,"kind":"SelfSubjectReview","verbs":["create"]},{"name":"tokenreviews","singularName":"tokenreview","namespaced":false,"kind":"TokenReview","verbs":["create"]}]}\n',
  );
  assert.equal(s.handler.claims('/api'), false, 'no core group: /api is not served');
  // Anonymous users may not discover (system:discovery is for authenticated users).
  assert.equal((await call('/apis')).status, 403);
});

test('aggregated discovery v2: content type, ETag, Vary, Cache-Control, 304; v2beta1; core group on /api', async () => {
  let r = await call('/apis', { token: 'alice', headers: { accept: aggAccept } });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
  const etag = r.headers.get('etag')!;
  assert.match(etag, /^"[0-9A-F]{128}"$/);
  assert.equal(r.headers.get('vary'), 'Accept');
  assert.equal(r.headers.get('cache-control'), 'public');
  const doc = JSON.parse(r.text);
  assert.equal(doc.kind, 'APIGroupDiscoveryList');
  assert.equal(doc.apiVersion, 'apidiscovery.k8s.io/v2');
  assert.deepEqual(doc.items[1].metadata, { name: 'authorization.k8s.io', creationTimestamp: null });
  assert.deepEqual(doc.items[1].versions[0].resources[1], {
    resource: 'selfsubjectaccessreviews',
    responseKind: { group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview' },
    scope: 'Cluster',
    singularResource: 'selfsubjectaccessreview',
    verbs: ['create'],
  });
  assert.equal(doc.items[1].versions[0].freshness, 'Current');
  r = await call('/apis', { token: 'alice', headers: { accept: aggAccept, 'if-none-match': etag } });
  assert.equal(r.status, 304);
  assert.equal(r.text, '');
  r = await call('/apis', {
    token: 'alice',
    headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' },
  });
  assert.equal(
    r.headers.get('content-type'),
    'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
  );
  // Parameter order does not matter; a protobuf-only clause falls back to JSON.
  r = await call('/apis', {
    token: 'alice',
    headers: { accept: 'application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io' },
  });
  assert.match(r.headers.get('content-type')!, /v=v2;as=APIGroupDiscoveryList$/);

  // A generic server with no groups; then a core group on /api.
  const g = newServer(complete(newConfig({ logger: discardLogger })), 'g');
  assert.equal(await (await g.fetch(new Request('https://x/apis'))).text(), '{"kind":"APIGroupList","groups":[]}\n');
  const g2 = newServer(complete(newConfig({ logger: discardLogger })), 'g2');
  installAPIGroup(g2, {
    name: '',
    versions: [
      {
        version: 'v1',
        resources: [
          {
            name: 'configmaps',
            singularName: 'configmap',
            namespaced: true,
            kind: 'ConfigMap',
            verbs: ['get'],
            shortNames: ['cm'],
          },
        ],
      },
    ],
  });
  const api = await g2.fetch(new Request('https://x/api'));
  assert.equal(
    await api.text(),
    '{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":""}]}\n',
  );
  const agg = JSON.parse(
    await (await g2.fetch(new Request('https://x/api', { headers: { accept: aggAccept } }))).text(),
  );
  assert.deepEqual(agg.items[0].metadata, { creationTimestamp: null });
  assert.deepEqual(agg.items[0].versions[0].resources[0].shortNames, ['cm']);
  assert.equal(
    JSON.parse(await (await g2.fetch(new Request('https://x/api/v1'))).text()).resources[0].name,
    'configmaps',
  );
  // The director rules still hold: /apis/foo is not claimed.
  assert.equal((await g.fetch(new Request('https://x/apis/foo'))).status, 404);
});

// --- protobuf bodies as kubectl 1.32 sends them ---

const ssarProto = (ns: string, verb: string, resource: string) =>
  encodeEnvelope(
    'authorization.k8s.io/v1',
    'SelfSubjectAccessReview',
    encodeMessage([
      [
        1,
        [
          [1, ''],
          [2, ''],
          [3, ''],
          [5, ''],
          [6, ''],
          [7, 0],
          [8, []],
        ],
      ],
      [
        2,
        [
          [
            1,
            [
              [1, ns],
              [2, verb],
              [3, ''],
              [4, ''],
              [5, resource],
              [6, ''],
              [7, ''],
            ],
          ],
        ],
      ],
      [
        3,
        [
          [1, false],
          [3, ''],
        ],
      ],
    ]),
  );

test('protobuf envelope: decodes the captured kubectl ConfigMap body shape', () => {
  const hex =
    '6b3873000a0f0a0276311209436f6e6669674d6170121b0a110a01781200' +
    '1a0022002a003200380042001206' +
    '0a0161120162' +
    '1a002200';
  const body = Uint8Array.from(hex.match(/../g)!.map((h) => Number.parseInt(h, 16)));
  const env = decodeEnvelope(body);
  assert.equal(env.apiVersion, 'v1');
  assert.equal(env.kind, 'ConfigMap');
  const cm = decodeMessage(env.raw, {
    1: { name: 'metadata', type: 'message', schema: objectMetaSchema },
    2: { name: 'data', type: 'map', value: 'string' },
  });
  assert.deepEqual(cm, { metadata: { name: 'x' }, data: { a: 'b' } });
});

test('SelfSubjectAccessReview: protobuf and JSON, yes and no by RBAC', async () => {
  const path = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
  let r = await post(path, ssarProto('default', 'get', 'pods'), 'alice', 'application/vnd.kubernetes.protobuf');
  assert.equal(r.status, 201);
  assert.equal(r.headers.get('content-type'), 'application/json');
  assert.equal(
    r.text,
    '{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"creationTimestamp":null},"spec":{"resourceAttributes":{"namespace":"default","verb":"get","resource":"pods"}},"status":{"allowed":true,"reason":"RBAC: allowed by RoleBinding \\"alice-reads/default\\" of Role \\"pod-reader\\" to User \\"alice\\""}}\n',
  );
  r = await post(path, ssarProto('default', 'delete', 'pods'), 'alice', 'application/vnd.kubernetes.protobuf');
  assert.equal(JSON.parse(r.text).status.allowed, false);
  r = await post(
    path,
    JSON.stringify({
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } },
    }),
    'bob',
  );
  assert.equal(r.status, 201);
  assert.deepEqual(JSON.parse(r.text).status, {
    allowed: true,
    reason:
      'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
  });
  // Anonymous may not create reviews.
  r = await post(path, '{}', '');
  assert.equal(r.status, 403);
});

test('review errors: invalid spec (422), metadata, malformed JSON and protobuf, unknown fields, wrong kind, media type', async () => {
  const path = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
  let r = await post(path, '{"spec":{}}', 'alice');
  assert.equal(r.status, 422);
  assert.equal(
    r.text,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"SelfSubjectAccessReview.authorization.k8s.io \\"\\" is invalid: spec.resourceAttributes: Invalid value: \\"null\\": exactly one of nonResourceAttributes or resourceAttributes must be specified","reason":"Invalid","details":{"group":"authorization.k8s.io","kind":"SelfSubjectAccessReview","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \\"null\\": exactly one of nonResourceAttributes or resourceAttributes must be specified","field":"spec.resourceAttributes"}]},"code":422}\n',
  );
  r = await post(path, '{"metadata":{"name":"x"},"spec":{"nonResourceAttributes":{"path":"/"}}}', 'alice');
  assert.match(JSON.parse(r.text).message, /metadata: Invalid value: \{"name":"x"\}: must be empty/);
  r = await post(path, '{"spec":', 'alice');
  assert.equal(r.status, 400);
  assert.equal(
    JSON.parse(r.text).message,
    'the object provided is unrecognized (must be of type SelfSubjectAccessReview): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"spec":)',
  );
  r = await post(path, 'xyz', 'alice');
  assert.equal(
    JSON.parse(r.text).message,
    "the object provided is unrecognized (must be of type SelfSubjectAccessReview): couldn't get version/kind; json parse error: invalid character 'x' looking for beginning of value (78797a)",
  );
  r = await post(path, new Uint8Array([1, 2, 3]), 'alice', 'application/vnd.kubernetes.protobuf');
  assert.equal(
    JSON.parse(r.text).message,
    'the object provided is unrecognized (must be of type SelfSubjectAccessReview): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (010203)',
  );
  const truncated = ssarProto('default', 'get', 'pods').slice(0, -3);
  r = await post(path, truncated, 'alice', 'application/vnd.kubernetes.protobuf');
  assert.equal(r.status, 400);
  assert.match(JSON.parse(r.text).message, /unexpected EOF|cannot be handled/);
  r = await post(
    path,
    '{"spec":{"nonResourceAttributes":{"path":"/x","verb":"get"},"bogus":1}}',
    'alice',
    'application/json',
    '?fieldValidation=Strict',
  );
  assert.equal(
    JSON.parse(r.text).message,
    'SelfSubjectAccessReview in version "v1" cannot be handled as a SelfSubjectAccessReview: strict decoding error: unknown field "spec.bogus"',
  );
  r = await post(path, '{"spec":{"nonResourceAttributes":{"path":"/x","verb":"get"},"bogus":1}}', 'alice');
  assert.equal(r.status, 201);
  assert.equal(r.headers.get('warning'), '299 - "unknown field \\"spec.bogus\\""');
  assert.ok(!r.text.includes('bogus'));
  r = await post(path, '{"kind":"ConfigMap","apiVersion":"v1"}', 'alice');
  assert.equal(
    JSON.parse(r.text).message,
    'ConfigMap in version "v1" cannot be handled as a SelfSubjectAccessReview: converting (v1.ConfigMap) to (authorization.SelfSubjectAccessReview): unknown conversion',
  );
  r = await post(path, '{"spec":"x"}', 'alice');
  assert.equal(r.status, 400);
  r = await post(path, 'x', 'alice', 'text/plain');
  assert.equal(r.status, 415);
  assert.equal(
    r.text,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf","reason":"UnsupportedMediaType","code":415}\n',
  );
  r = await post(path, 'spec:\n  nonResourceAttributes: {path: /healthz, verb: get}\n', 'alice', 'application/yaml');
  assert.equal(JSON.parse(r.text).status.allowed, true);
});

test('SelfSubjectRulesReview (protobuf), SelfSubjectReview (protobuf), SubjectAccessReview and LocalSubjectAccessReview', async () => {
  const ssrr = encodeEnvelope(
    'authorization.k8s.io/v1',
    'SelfSubjectRulesReview',
    encodeMessage([
      [1, []],
      [2, [[1, 'default']]],
      [3, [[3, false]]],
    ]),
  );
  let r = await post(
    '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
    ssrr,
    'alice',
    'application/vnd.kubernetes.protobuf',
  );
  assert.equal(r.status, 201);
  const rules = JSON.parse(r.text);
  assert.deepEqual(Object.keys(rules), ['kind', 'apiVersion', 'metadata', 'spec', 'status']);
  assert.deepEqual(rules.spec, {});
  assert.equal(rules.status.incomplete, false);
  assert.ok(rules.status.resourceRules.some((x: { resources?: string[] }) => x.resources?.includes('pods')));
  assert.ok(
    rules.status.nonResourceRules.some((x: { nonResourceURLs?: string[] }) => x.nonResourceURLs?.includes('/version')),
  );
  r = await post('/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', '{"spec":{}}', 'alice');
  assert.equal(JSON.parse(r.text).message, 'no namespace on request');

  const ssr = encodeEnvelope(
    'authentication.k8s.io/v1',
    'SelfSubjectReview',
    encodeMessage([
      [
        1,
        [
          [1, ''],
          [8, []],
        ],
      ],
    ]),
  );
  r = await post(
    '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    ssr,
    'alice',
    'application/vnd.kubernetes.protobuf',
  );
  assert.equal(r.status, 201);
  const who = JSON.parse(r.text);
  assert.match(who.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.deepEqual(who.status, {
    userInfo: { username: 'alice', uid: 'uid-alice', groups: ['system:authenticated'], extra: { scopes: ['a'] } },
  });

  const sar = (spec: object) =>
    post('/apis/authorization.k8s.io/v1/subjectaccessreviews', JSON.stringify({ spec }), 'root');
  r = await sar({ resourceAttributes: { namespace: 'default', verb: 'list', resource: 'pods' }, user: 'alice' });
  assert.equal(JSON.parse(r.text).status.allowed, true);
  r = await sar({ resourceAttributes: { namespace: 'kube-system', verb: 'list', resource: 'pods' }, user: 'alice' });
  assert.deepEqual(JSON.parse(r.text).status, { allowed: false });
  r = await sar({ resourceAttributes: { verb: 'list', resource: 'pods' } });
  assert.equal(r.status, 422);
  assert.match(
    JSON.parse(r.text).message,
    /spec\.user: Invalid value: "": at least one of user or group must be specified/,
  );
  // Only privileged users may create SubjectAccessReviews.
  assert.equal((await post('/apis/authorization.k8s.io/v1/subjectaccessreviews', '{}', 'alice')).status, 403);
  // Protobuf SAR with extra (map<string, ExtraValue>).
  const sarProto = encodeEnvelope(
    'authorization.k8s.io/v1',
    'SubjectAccessReview',
    encodeMessage([
      [
        2,
        [
          [
            2,
            [
              [1, '/healthz'],
              [2, 'get'],
            ],
          ],
          [3, 'x'],
          [4, 'g1'],
          [
            5,
            [
              [1, 'k'],
              [
                2,
                [
                  [1, 'v1'],
                  [1, 'v2'],
                ],
              ],
            ],
          ],
        ],
      ],
    ]),
  );
  r = await post(
    '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    sarProto,
    'root',
    'application/vnd.kubernetes.protobuf',
  );
  assert.deepEqual(JSON.parse(r.text).spec, {
    nonResourceAttributes: { path: '/healthz', verb: 'get' },
    user: 'x',
    groups: ['g1'],
    extra: { k: ['v1', 'v2'] },
  });

  r = await post(
    '/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews',
    JSON.stringify({
      spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' }, user: 'alice' },
    }),
    'root',
  );
  assert.equal(r.status, 201);
  const l = JSON.parse(r.text);
  assert.equal(l.metadata.namespace, 'default');
  assert.equal(l.status.allowed, true);
  r = await post(
    '/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews',
    JSON.stringify({ metadata: { namespace: 'x' }, spec: { resourceAttributes: { verb: 'get' }, user: 'a' } }),
    'root',
  );
  assert.equal(
    JSON.parse(r.text).message,
    'the namespace of the provided object does not match the namespace sent on the request',
  );
});

test('TokenReview: authenticated, rejected, token required', async () => {
  const path = '/apis/authentication.k8s.io/v1/tokenreviews';
  let r = await post(
    path,
    JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'alice' } }),
    'root',
  );
  assert.equal(r.status, 201);
  assert.equal(
    r.text,
    '{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","metadata":{"creationTimestamp":null},"spec":{"token":"alice"},"status":{"authenticated":true,"user":{"username":"alice","uid":"uid-alice","groups":["system:authenticated"],"extra":{"scopes":["a"]}}}}\n',
  );
  r = await post(path, JSON.stringify({ spec: { token: 'bad' } }), 'root');
  assert.deepEqual(JSON.parse(r.text).status, { user: {}, error: 'invalid bearer token' });
  r = await post(path, JSON.stringify({ spec: {} }), 'root');
  assert.equal(r.status, 400);
  assert.equal(JSON.parse(r.text).message, 'token is required for TokenReview in authentication');
  const proto = encodeEnvelope(
    'authentication.k8s.io/v1',
    'TokenReview',
    encodeMessage([
      [1, []],
      [
        2,
        [
          [1, 'bob'],
          [2, 'api'],
        ],
      ],
    ]),
  );
  r = await post(path, proto, 'root', 'application/vnd.kubernetes.protobuf');
  assert.deepEqual(JSON.parse(r.text).spec, { token: 'bob', audiences: ['api'] });
});

test('options: validation messages, unsupported modes, AlwaysAllow/AlwaysDeny behaviour', async () => {
  const v = (args: string[]) => {
    const o = new ServerOptions([new AuthorizationOptions()]);
    o.parse(args);
    return o.validate();
  };
  assert.deepEqual(v(['--authorization-mode=']), ['at least one authorization-mode must be passed']);
  assert.deepEqual(v(['--authorization-mode=RBAC,Foo']), ['authorization-mode "Foo" is not a valid mode']);
  assert.deepEqual(v(['--authorization-mode=Webhook']), [
    "authorization-mode Webhook's authorization config file not passed",
  ]);
  assert.deepEqual(v(['--authorization-webhook-config-file=/k']), [
    'cannot specify --authorization-webhook-config-file without mode Webhook',
  ]);
  assert.deepEqual(v(['--authorization-mode=RBAC,RBAC']), [
    'authorization-mode ["RBAC" "RBAC"] has mode specified more than once',
  ]);
  assert.deepEqual(v(['--authorization-mode=Node,RBAC']), [
    'authorization-mode "Node" is not supported by edge-apiserver (supported: AlwaysAllow, AlwaysDeny, RBAC, Webhook)',
  ]);
  assert.deepEqual(v(['--authorization-mode=AlwaysAllow', '--authorization-rbac-manifests=/x']), [
    'cannot specify --authorization-rbac-manifests without mode RBAC',
  ]);
  const deny = await build(['--authorization-mode=AlwaysDeny']);
  const r = await deny.fetch(new Request('https://x/healthz', { headers: { authorization: 'Bearer alice' } }));
  assert.equal(r.status, 403);
  assert.match(
    await r.text(),
    /"message":"forbidden: User \\"alice\\" cannot get path \\"\/healthz\\": Everything is forbidden\."/,
  );
  // system:masters is always allowed, whatever the modes.
  assert.equal(
    (await deny.fetch(new Request('https://x/healthz', { headers: { authorization: 'Bearer root' } }))).status,
    200,
  );
  const allow = await build(['--authorization-mode=AlwaysAllow']);
  assert.equal((await allow.fetch(new Request('https://x/apis'))).status, 200);
  // A bad manifest fails start-up with file and line.
  const o = new ServerOptions([new AuthorizationOptions()]);
  o.parse(['--authorization-rbac-manifests=/bad.yaml']);
  await assert.rejects(
    o.applyTo(newConfig({ logger: discardLogger }), {
      logger: discardLogger,
      fileSystem: new MemoryFileSystem({
        '/bad.yaml': 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {}\n',
      }),
    }),
    /\/bad\.yaml:3: ClusterRole "": metadata\.name: Required value/,
  );
});

test('secure default: admin kubeconfig only when serving TLS with no auth flags; token reused; other tokens fall through', async () => {
  const written = new Map<string, { data: string; mode: number }>();
  const fs = {
    readFile: async (p: string) => {
      const f = written.get(p);
      if (!f) throw new Error(`open ${p}: no such file or directory`);
      return new TextEncoder().encode(f.data);
    },
    writeFile: async (p: string, d: Uint8Array, mode: number) =>
      void written.set(p, { data: new TextDecoder().decode(d), mode }),
    mkdirAll: async () => {},
  };
  const { FlagSet } = await import('../server/options/flags.ts');
  const apply = async (args: string[], servesTLS: boolean) => {
    const flags = new FlagSet('t');
    flags.string('cert-dir', '', '');
    const o = new AuthorizationOptions();
    o.addFlags(flags);
    flags.parse(args);
    const config = newConfig({ logger: discardLogger });
    config.authentication.authenticator = testAuthenticator;
    config.secureServing = { bindAddress: '0.0.0.0', bindPort: 6443 } as never;
    await o.applyTo(config, { logger: discardLogger, fileSystem: fs, servesTLS });
    return { o, config };
  };
  const { o } = await apply(['--cert-dir=/certs'], false);
  assert.deepEqual(o.effectiveModes, ['AlwaysAllow']);
  assert.equal(written.size, 0);
  await apply(['--cert-dir=/certs', '--authorization-mode=RBAC'], true);
  assert.equal(written.size, 0, 'an authorization flag turns the admin credential off');
  const first = await apply(['--cert-dir=/certs'], true);
  assert.deepEqual(first.o.effectiveModes, ['RBAC']);
  const kc = written.get('/certs/admin.kubeconfig')!;
  assert.equal(kc.mode, 0o600);
  assert.match(kc.data, /server: https:\/\/localhost:6443/);
  const token = /token: (\S+)/.exec(kc.data)![1]!;
  await apply(['--cert-dir=/certs'], true);
  assert.equal(/token: (\S+)/.exec(written.get('/certs/admin.kubeconfig')!.data)![1], token, 'reused across restarts');
  const { newRequestContext } = await import('../endpoints/request/context.ts');
  const authn = first.config.authentication.authenticator!;
  const admin = await authn.authenticateRequest(
    newRequestContext(new Request('https://x/', { headers: { authorization: `Bearer ${token}` } })),
  );
  assert.deepEqual(admin?.user, {
    name: 'kubernetes-admin',
    uid: '',
    groups: ['system:masters', 'system:authenticated'],
  });
  const alice = await authn.authenticateRequest(
    newRequestContext(new Request('https://x/', { headers: { authorization: 'Bearer alice' } })),
  );
  assert.equal(alice?.user.name, 'alice');
});
