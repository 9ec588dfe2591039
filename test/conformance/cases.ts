// The conformance suite: one list of request → expected response cases, run unchanged against
// every target (in-process fetch, Node TLS listener, workerd via wrangler, Deno, Bun, Lambda).
// A target supplies `send` (how a request reaches it) and calls registerConformance once.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

export interface CaseRequest {
  method?: string;
  /** Path and query, e.g. `/healthz?verbose`. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** What came back, reduced to what every target can report. */
export interface CaseResponse {
  status: number;
  headers: Headers;
  body: string;
}

export interface Expectation {
  status: number;
  /** Header values: exact string, a pattern, or null for "absent". */
  headers?: Record<string, string | RegExp | null>;
  /** Exact body, or a pattern. */
  body?: string | RegExp;
  /** Further checks on the parsed JSON body. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON, checked field by field
  json?: (value: any) => void;
}

export interface ConformanceCase {
  name: string;
  request: CaseRequest;
  expect: Expectation;
  /** Sent again (every 100 ms, up to this many ms) until the response matches: what a controller does next. */
  retryMs?: number;
}

/** Every request carries this agent, so Status pretty-printing (curl/Wget/Mozilla) never kicks in. */
export const USER_AGENT = 'edge-apiserver-conformance/1.0';

const textPlain = 'text/plain; charset=utf-8';
// go-restful's 404 under a served group version (/api/v1): a negotiated NotFound Status.
const notFoundStatus =
  '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}\n';
/** A token-file user the conformance RBAC policy lets read non-resource paths and pods in default. */
const alice = { Authorization: 'Bearer conformance-alice-token' };
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const statusNotFound =
  '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}\n';
const statusMethodNotAllowed =
  '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}\n';

/** Go's server sends `Date` on every response (RFC 1123 in GMT); targets whose platform or adapter writes it. */
export const dateCase: ConformanceCase = {
  name: 'GET /healthz → Date header as Go writes it',
  request: { path: '/healthz' },
  expect: {
    status: 200,
    headers: { date: /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/ },
  },
};

export const cases: ConformanceCase[] = [
  {
    name: 'GET /healthz → 200 ok, Audit-Id, Cache-Control',
    request: { path: '/healthz' },
    expect: {
      status: 200,
      headers: {
        'content-type': textPlain,
        'x-content-type-options': 'nosniff',
        'audit-id': uuid,
        'cache-control': 'no-cache, private',
      },
      body: 'ok',
    },
  },
  {
    name: 'a client Audit-ID is echoed verbatim as Audit-Id',
    request: { path: '/version', headers: { 'Audit-ID': 'conformance-audit-id-1' } },
    expect: { status: 200, headers: { 'audit-id': 'conformance-audit-id-1' } },
  },
  {
    name: 'GET /healthz?verbose lists every check',
    request: { path: '/healthz?verbose' },
    expect: {
      status: 200,
      headers: { 'content-type': textPlain },
      body: /^\[\+\]ping ok\n\[\+\]log ok\n(\[\+\][^\n]+ ok\n)*healthz check passed\n$/,
    },
  },
  {
    name: 'GET /livez → 200 ok',
    request: { path: '/livez' },
    expect: { status: 200, body: 'ok' },
  },
  {
    name: 'GET /readyz?verbose includes the shutdown check',
    request: { path: '/readyz?verbose' },
    expect: { status: 200, body: /^\[\+\]ping ok\n\[\+\]log ok\n(\[\+\][^\n]+ ok\n)*readyz check passed\n$/ },
  },
  {
    name: 'GET /readyz?exclude=nosuch&verbose warns about the unknown check',
    request: { path: '/readyz?exclude=nosuch&verbose' },
    expect: {
      status: 200,
      body: /\[\+\]shutdown ok\n(\[\+\][^\n]+ ok\n)*warn: some health checks cannot be excluded: no matches for "nosuch"\nreadyz check passed\n$/,
    },
  },
  {
    name: 'GET /healthz/ping → 200 ok (health subpaths need more than public-info-viewer)',
    request: { path: '/healthz/ping', headers: alice },
    expect: { status: 200, body: 'ok' },
  },
  {
    name: 'GET /version → version info',
    request: { path: '/version' },
    expect: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      json: (v) => {
        assert.equal(v.major, '1');
        assert.equal(v.minor, '34');
        assert.match(v.gitVersion, /^v1\.34\./);
        for (const k of ['gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform'])
          assert.equal(typeof v[k], 'string', k);
      },
    },
  },
  {
    name: 'GET /version/ (trailing slash) → version info',
    request: { path: '/version/', headers: alice },
    expect: { status: 200, json: (v) => assert.equal(v.major, '1') },
  },
  {
    name: 'POST /version → 405 Status',
    request: {
      method: 'POST',
      path: '/version',
      body: '{}',
      headers: { 'content-type': 'application/json', ...alice },
    },
    expect: { status: 405, headers: { 'content-type': 'application/json' }, body: statusMethodNotAllowed },
  },
  {
    name: 'GET /version/extra → 404 Status',
    request: { path: '/version/extra', headers: alice },
    expect: { status: 404, headers: { 'content-type': 'application/json' }, body: statusNotFound },
  },
  {
    name: 'a malformed percent-escape in the path → 400 (as Go rejects it while parsing)',
    request: { path: '/healthz%zz' },
    // Go writes `400 Bad Request` with no newline.
    expect: { status: 400, body: /^400 Bad Request$/ },
  },
  {
    name: 'GET / → sorted index of paths',
    request: { path: '/', headers: alice },
    expect: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: /^\{\n  "paths": \[\n/,
      json: (v) => {
        const paths: string[] = v.paths;
        for (const p of ['/healthz', '/healthz/ping', '/livez', '/readyz', '/readyz/shutdown', '/version'])
          assert.ok(paths.includes(p), p);
        assert.ok(!paths.includes('/'), 'index lists itself');
        assert.ok(!paths.includes('/conformance/panic'), 'unlisted path listed');
        assert.deepEqual(paths, [...paths].sort());
      },
    },
  },
  {
    name: 'GET /does-not-exist → 404 page not found',
    request: { path: '/does-not-exist', headers: alice },
    expect: {
      status: 404,
      headers: { 'content-type': textPlain, 'x-content-type-options': 'nosniff' },
      body: '404 page not found\n',
    },
  },
  {
    name: 'a handler that panics → 500 (with Audit-Id and Cache-Control)',
    request: { path: '/conformance/panic' },
    expect: {
      status: 500,
      headers: {
        'content-type': textPlain,
        'x-content-type-options': 'nosniff',
        'audit-id': uuid,
        'cache-control': 'no-cache, private',
      },
      body: 'This request caused apiserver to panic. Look in the logs for details.\n',
    },
  },
  {
    name: 'bad ?timeout= → 400 Status (before authentication)',
    request: { path: '/api/v1/namespaces/default/pods?timeout=foo' },
    expect: {
      status: 400,
      headers: { 'content-type': 'application/json', 'x-content-type-options': null, 'audit-id': uuid },
      body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid timeout specified in the request URL - time: invalid duration \\"foo\\"","reason":"BadRequest","code":400}\n',
    },
  },
  {
    name: "?timeout= without a unit → 400 with Go's parse error",
    request: { path: '/healthz?timeout=10' },
    expect: {
      status: 400,
      body: /"message":"invalid timeout specified in the request URL - time: missing unit in duration \\"10\\""/,
    },
  },
  {
    name: 'request info: an unresolvable resource URL → 500 InternalError text (no Cache-Control)',
    request: { path: '/api/v1/watch' },
    expect: {
      status: 500,
      headers: {
        'content-type': textPlain,
        'x-content-type-options': 'nosniff',
        'audit-id': uuid,
        'cache-control': null,
      },
      body: 'Internal Server Error: "/api/v1/watch": failed to create RequestInfo: unable to determine kind and namespace from url, /api/v1/watch\n',
    },
  },
  {
    name: 'CORS preflight from an allowed origin → 204 with the CORS headers (before authentication)',
    request: {
      method: 'OPTIONS',
      path: '/api/v1/namespaces/default/pods',
      headers: { Origin: 'https://allowed.example.com', 'Access-Control-Request-Method': 'GET' },
    },
    expect: {
      status: 204,
      headers: {
        'access-control-allow-origin': 'https://allowed.example.com',
        'access-control-allow-methods': 'POST, GET, OPTIONS, PUT, DELETE, PATCH',
        'access-control-allow-headers':
          'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since',
        'access-control-expose-headers': 'Date',
        'access-control-allow-credentials': 'true',
        'audit-id': uuid,
      },
      body: '',
    },
  },
  {
    name: 'CORS: an allowed origin gets the headers on a normal request',
    request: { path: '/version', headers: { Origin: 'https://allowed.example.com' } },
    expect: {
      status: 200,
      headers: {
        'access-control-allow-origin': 'https://allowed.example.com',
        'access-control-allow-credentials': 'true',
      },
    },
  },
  {
    name: 'CORS: another origin gets no CORS headers',
    request: { path: '/healthz', headers: { Origin: 'https://evil.example.com' } },
    expect: { status: 200, headers: { 'access-control-allow-origin': null }, body: 'ok' },
  },
  {
    name: 'request info: a watch is long-running, so ?timeout= is not parsed',
    request: { path: '/api/v1/namespaces/default/pods?watch=true&timeout=foo', headers: alice },
    expect: { status: 404, body: notFoundStatus },
  },
  {
    name: 'an unknown bearer token → 401 Status (even with anonymous auth on)',
    request: { path: '/api/v1/namespaces/default/pods', headers: { Authorization: 'Bearer not-a-known-token' } },
    expect: {
      status: 401,
      headers: {
        'content-type': 'application/json',
        'x-content-type-options': null,
        'www-authenticate': null,
        'audit-id': uuid,
      },
      body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}\n',
    },
  },
  {
    name: 'a token-file user is authenticated (groups + system:authenticated)',
    request: { path: '/conformance/transport', headers: alice },
    expect: {
      status: 200,
      json: (v) =>
        assert.deepEqual(v.user, {
          name: 'alice',
          uid: 'uid-alice',
          groups: ['devs', 'readers', 'system:authenticated'],
        }),
    },
  },
  {
    name: 'RBAC: a token-file user allowed to list pods passes authorization (then 404: no pods API here)',
    request: { path: '/api/v1/namespaces/default/pods', headers: alice },
    expect: { status: 404, headers: { 'content-type': 'application/json' }, body: notFoundStatus },
  },
  {
    name: 'RBAC: a token-file user without a binding → 403 Status (resource)',
    request: { path: '/api/v1/namespaces/default/pods', headers: { Authorization: 'Bearer conformance-bob-token' } },
    expect: {
      status: 403,
      headers: { 'content-type': 'application/json', 'x-content-type-options': 'nosniff', 'audit-id': uuid },
      body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods is forbidden: User \\"bob\\" cannot list resource \\"pods\\" in API group \\"\\" in the namespace \\"default\\"","reason":"Forbidden","details":{"kind":"pods"},"code":403}\n',
    },
  },
  {
    name: 'RBAC: anonymous on a path outside public-info-viewer → 403 Status (non-resource)',
    request: { path: '/does-not-exist' },
    expect: {
      status: 403,
      headers: { 'content-type': 'application/json', 'x-content-type-options': 'nosniff' },
      body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"system:anonymous\\" cannot get path \\"/does-not-exist\\"","reason":"Forbidden","details":{},"code":403}\n',
    },
  },
  {
    name: 'no credentials → system:anonymous',
    request: { path: '/conformance/transport' },
    expect: {
      status: 200,
      json: (v) => assert.deepEqual(v.user, { name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] }),
    },
  },
];

// --- the API served from storage: CRUD, a paged list, a watch (a sequence: later cases read what
// earlier ones saw; the first clears what a previous run against the same server left) ---

const CMS = '/api/v1/namespaces/default/configmaps';
const SEL = 'labelSelector=conformance%3Dapi';
const json = { ...alice, 'Content-Type': 'application/json' };
const api = { createdRV: '', continue: '' };
const cmBody = (name: string) =>
  JSON.stringify({ metadata: { name, labels: { conformance: 'api' } }, data: { k: name } });

export const apiCases: ConformanceCase[] = [
  {
    name: 'API: deletecollection by label selector → 200 ConfigMapList',
    request: { method: 'DELETE', path: `${CMS}?${SEL}`, headers: alice },
    expect: { status: 200, json: (v) => assert.equal(v.kind, 'ConfigMapList') },
  },
  {
    name: 'API: create a ConfigMap → 201 with uid, creationTimestamp and resourceVersion set',
    request: { method: 'POST', path: CMS, headers: json, body: cmBody('conf-a') },
    expect: {
      status: 201,
      headers: { 'content-type': 'application/json' },
      json: (v) => {
        assert.equal(v.kind, 'ConfigMap');
        assert.equal(v.apiVersion, 'v1');
        assert.equal(v.metadata.name, 'conf-a');
        assert.equal(v.metadata.namespace, 'default');
        assert.match(v.metadata.uid, uuid);
        assert.match(v.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        assert.match(v.metadata.resourceVersion, /^[1-9]\d*$/);
        assert.deepEqual(v.data, { k: 'conf-a' });
        api.createdRV = v.metadata.resourceVersion;
      },
    },
  },
  {
    name: 'API: create a second ConfigMap → 201',
    request: { method: 'POST', path: CMS, headers: json, body: cmBody('conf-b') },
    expect: { status: 201 },
  },
  {
    name: 'API: create an existing name → 409 AlreadyExists Status',
    request: { method: 'POST', path: CMS, headers: json, body: cmBody('conf-a') },
    expect: {
      status: 409,
      body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"conf-a\\" already exists","reason":"AlreadyExists","details":{"name":"conf-a","kind":"configmaps"},"code":409}\n',
    },
  },
  {
    name: 'API: update with a stale resourceVersion → 409 Conflict Status',
    request: {
      method: 'PUT',
      path: `${CMS}/conf-a`,
      headers: json,
      body: JSON.stringify({ metadata: { name: 'conf-a', resourceVersion: '1' }, data: { k: 'x' } }),
    },
    expect: {
      status: 409,
      body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on configmaps \\"conf-a\\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"conf-a","kind":"configmaps"},"code":409}\n',
    },
  },
  {
    name: 'API: list with limit=1 → the first item and a continue token',
    request: { path: `${CMS}?${SEL}&limit=1`, headers: alice },
    expect: {
      status: 200,
      json: (v) => {
        assert.equal(v.kind, 'ConfigMapList');
        assert.deepEqual(
          v.items.map((i: { metadata: { name: string } }) => i.metadata.name),
          ['conf-a'],
        );
        assert.match(v.metadata.continue, /^[A-Za-z0-9_-]+$/);
        assert.equal(v.metadata.remainingItemCount, undefined, 'no count with a selector');
        api.continue = v.metadata.continue;
      },
    },
  },
  {
    name: 'API: list with the continue token → the rest, no further token',
    request: {
      get path() {
        return `${CMS}?${SEL}&limit=1&continue=${encodeURIComponent(api.continue)}`;
      },
      headers: alice,
    },
    expect: {
      status: 200,
      json: (v) => {
        assert.deepEqual(
          v.items.map((i: { metadata: { name: string } }) => i.metadata.name),
          ['conf-b'],
        );
        assert.equal(v.metadata.continue, undefined);
      },
    },
  },
  {
    name: 'API: watch from the first create’s resourceVersion → ADDED conf-b, then the stream ends (timeoutSeconds)',
    request: {
      get path() {
        return `${CMS}?${SEL}&watch=true&resourceVersion=${api.createdRV}&timeoutSeconds=1`;
      },
      headers: alice,
    },
    expect: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: /^\{"type":"ADDED","object":\{[^\n]*"name":"conf-b"[^\n]*\}\}\n$/,
    },
  },
  {
    name: 'API: delete → 200 Status Success with the uid',
    request: { method: 'DELETE', path: `${CMS}/conf-a`, headers: alice },
    expect: {
      status: 200,
      json: (v) => {
        assert.equal(v.status, 'Success');
        assert.equal(v.details.name, 'conf-a');
        assert.equal(v.details.kind, 'configmaps');
        assert.match(v.details.uid, uuid);
      },
    },
  },
  {
    name: 'API: delete the second → 200',
    request: { method: 'DELETE', path: `${CMS}/conf-b`, headers: alice },
    expect: { status: 200 },
  },
  {
    name: 'API: get a deleted object → 404 NotFound Status',
    request: { path: `${CMS}/conf-a`, headers: alice },
    expect: {
      status: 404,
      body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"conf-a\\" not found","reason":"NotFound","details":{"name":"conf-a","kind":"configmaps"},"code":404}\n',
    },
  },
];

// --- CustomResourceDefinitions: a CRD applied and Established, its custom resources served with
// defaults, validation, list, watch and apply, RBAC on them, and deleting the CRD removing them.
// The sequence ends with the CRD gone, so it runs again on the same server. ---

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const CRD_NAME = 'gizmos.conformance.example.com';
const GIZMOS = '/apis/conformance.example.com/v1/namespaces/default/gizmos';
const crdState = { createdRV: '' };
const gizmoCRD = JSON.stringify({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: CRD_NAME },
  spec: {
    group: 'conformance.example.com',
    scope: 'Namespaced',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', shortNames: ['gz'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['color'],
                properties: {
                  color: { type: 'string' },
                  size: { type: 'string', enum: ['small', 'large'], default: 'small' },
                  replicas: { type: 'integer', minimum: 0, default: 1 },
                },
              },
            },
          },
        },
      },
    ],
  },
});
const gizmo = (name: string, spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'conformance.example.com/v1', kind: 'Gizmo', metadata: { name }, spec });
const gizmoInvalid =
  '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Gizmo.conformance.example.com \\"bad\\" is invalid: spec.size: Unsupported value: \\"huge\\": supported values: \\"small\\", \\"large\\"","reason":"Invalid","details":{"name":"bad","group":"conformance.example.com","kind":"Gizmo","causes":[{"reason":"FieldValueNotSupported","message":"Unsupported value: \\"huge\\": supported values: \\"small\\", \\"large\\"","field":"spec.size"}]},"code":422}\n';

export const crdCases: ConformanceCase[] = [
  {
    name: 'CRD: create a CustomResourceDefinition → 201',
    request: { method: 'POST', path: CRDS, headers: json, body: gizmoCRD },
    expect: {
      status: 201,
      json: (v) => {
        assert.equal(v.kind, 'CustomResourceDefinition');
        assert.equal(v.metadata.name, CRD_NAME);
      },
    },
  },
  {
    name: 'CRD: it becomes Established (NamesAccepted, InitialNamesAccepted)',
    request: { path: `${CRDS}/${CRD_NAME}`, headers: alice },
    retryMs: 10_000,
    expect: {
      status: 200,
      json: (v) => {
        const cond = (t: string) => v.status?.conditions?.find((c: { type: string }) => c.type === t);
        assert.equal(cond('NamesAccepted')?.reason, 'NoConflicts');
        assert.equal(cond('Established')?.status, 'True');
        assert.equal(cond('Established')?.reason, 'InitialNamesAccepted');
        assert.equal(v.status.acceptedNames.kind, 'Gizmo');
      },
    },
  },
  {
    name: 'CRD: discovery lists the custom resource',
    request: { path: '/apis/conformance.example.com/v1', headers: alice },
    retryMs: 10_000,
    expect: {
      status: 200,
      json: (v) => {
        assert.equal(v.kind, 'APIResourceList');
        const r = v.resources.find((x: { name: string }) => x.name === 'gizmos');
        assert.deepEqual([r.kind, r.namespaced, r.shortNames], ['Gizmo', true, ['gz']]);
      },
    },
  },
  {
    name: 'CRD: create a custom resource → 201 with its defaults, an unknown field pruned with a warning',
    request: { method: 'POST', path: GIZMOS, headers: json, body: gizmo('g1', { color: 'red', extra: 1 }) },
    expect: {
      status: 201,
      headers: { warning: '299 - "unknown field \\"spec.extra\\""' },
      json: (v) => {
        assert.equal(v.apiVersion, 'conformance.example.com/v1');
        assert.equal(v.kind, 'Gizmo');
        assert.deepEqual(v.spec, { color: 'red', size: 'small', replicas: 1 });
        assert.equal(v.metadata.generation, 1);
        assert.match(v.metadata.uid, uuid);
        crdState.createdRV = v.metadata.resourceVersion;
      },
    },
  },
  {
    name: 'CRD: an invalid custom resource → 422 naming the field',
    request: { method: 'POST', path: GIZMOS, headers: json, body: gizmo('bad', { color: 'red', size: 'huge' }) },
    expect: { status: 422, body: gizmoInvalid },
  },
  {
    name: 'CRD: a user without a Role for the resource → 403',
    request: { path: GIZMOS, headers: { Authorization: 'Bearer conformance-bob-token' } },
    expect: {
      status: 403,
      body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"gizmos.conformance.example.com is forbidden: User \\"bob\\" cannot list resource \\"gizmos\\" in API group \\"conformance.example.com\\" in the namespace \\"default\\"","reason":"Forbidden","details":{"group":"conformance.example.com","kind":"gizmos"},"code":403}\n',
    },
  },
  {
    name: 'CRD: merge patch → 200, generation bumped',
    request: {
      method: 'PATCH',
      path: `${GIZMOS}/g1`,
      headers: { ...alice, 'Content-Type': 'application/merge-patch+json' },
      body: '{"spec":{"replicas":3}}',
    },
    expect: {
      status: 200,
      json: (v) => {
        assert.deepEqual(v.spec, { color: 'red', size: 'small', replicas: 3 });
        assert.equal(v.metadata.generation, 2);
      },
    },
  },
  {
    name: 'CRD: server-side apply of a field another manager set → 409 conflict',
    request: {
      method: 'PATCH',
      path: `${GIZMOS}/g1?fieldManager=conformance`,
      headers: { ...alice, 'Content-Type': 'application/apply-patch+yaml' },
      body: 'apiVersion: conformance.example.com/v1\nkind: Gizmo\nmetadata: {name: g1}\nspec: {color: blue}\n',
    },
    expect: {
      status: 409,
      body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Apply failed with 1 conflict: conflict with \\"edge-apiserver-conformance\\" using conformance.example.com/v1: .spec.color","reason":"Conflict","details":{"causes":[{"reason":"FieldManagerConflict","message":"conflict with \\"edge-apiserver-conformance\\" using conformance.example.com/v1","field":".spec.color"}]},"code":409}\n',
    },
  },
  {
    name: 'CRD: server-side apply with force → 200 with the applier in managedFields',
    request: {
      method: 'PATCH',
      path: `${GIZMOS}/g1?fieldManager=conformance&force=true`,
      headers: { ...alice, 'Content-Type': 'application/apply-patch+yaml' },
      body: 'apiVersion: conformance.example.com/v1\nkind: Gizmo\nmetadata: {name: g1}\nspec: {color: blue}\n',
    },
    expect: {
      status: 200,
      json: (v) => {
        assert.equal(v.spec.color, 'blue');
        const m = v.metadata.managedFields.find((e: { manager: string }) => e.manager === 'conformance');
        assert.equal(m.operation, 'Apply');
        assert.deepEqual(m.fieldsV1, { 'f:spec': { 'f:color': {} } });
      },
    },
  },
  {
    name: 'CRD: list → GizmoList',
    request: { path: GIZMOS, headers: alice },
    expect: {
      status: 200,
      json: (v) => {
        assert.equal(v.kind, 'GizmoList');
        assert.equal(v.apiVersion, 'conformance.example.com/v1');
        assert.deepEqual(
          v.items.map((i: { metadata: { name: string } }) => i.metadata.name),
          ['g1'],
        );
      },
    },
  },
  {
    name: 'CRD: watch from the create’s resourceVersion → the two changes, then the stream ends',
    request: {
      get path() {
        return `${GIZMOS}?watch=true&resourceVersion=${crdState.createdRV}&timeoutSeconds=1`;
      },
      headers: alice,
    },
    expect: {
      status: 200,
      body: /^\{"type":"MODIFIED","object":\{[^\n]*"replicas":3[^\n]*\}\}\n\{"type":"MODIFIED","object":\{[^\n]*"color":"blue"[^\n]*\}\}\n$/,
    },
  },
  {
    name: 'CRD: OpenAPI v3 describes the custom resource',
    request: { path: '/openapi/v3/apis/conformance.example.com/v1', headers: alice },
    expect: {
      status: 200,
      json: (v) => {
        const s = v.components.schemas['com.example.conformance.v1.Gizmo'];
        assert.deepEqual(s.properties.spec.properties.size.enum, ['small', 'large']);
        assert.deepEqual(s['x-kubernetes-group-version-kind'], [
          { group: 'conformance.example.com', version: 'v1', kind: 'Gizmo' },
        ]);
      },
    },
  },
  {
    name: 'CRD: delete the CRD → 200, finalizing',
    request: { method: 'DELETE', path: `${CRDS}/${CRD_NAME}`, headers: alice },
    expect: { status: 200 },
  },
  {
    name: 'CRD: the CRD goes once its custom resources are deleted',
    request: { path: `${CRDS}/${CRD_NAME}`, headers: alice },
    retryMs: 10_000,
    expect: {
      status: 404,
      body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"customresourcedefinitions.apiextensions.k8s.io \\"gizmos.conformance.example.com\\" not found","reason":"NotFound","details":{"name":"gizmos.conformance.example.com","group":"apiextensions.k8s.io","kind":"customresourcedefinitions"},"code":404}\n',
    },
  },
  {
    name: 'CRD: its resources are no longer served → 404',
    request: { path: GIZMOS, headers: alice },
    retryMs: 10_000,
    expect: { status: 404 },
  },
];

/** Checks one response against a case's expectation. */
export function check(c: ConformanceCase, res: CaseResponse): void {
  const e = c.expect;
  const where = `${c.request.method ?? 'GET'} ${c.request.path}`;
  assert.equal(res.status, e.status, `${where}: status (body ${JSON.stringify(res.body.slice(0, 300))})`);
  for (const [name, want] of Object.entries(e.headers ?? {})) {
    const got = res.headers.get(name);
    if (want === null) assert.equal(got, null, `${where}: header ${name} should be absent`);
    else if (typeof want === 'string') assert.equal(got, want, `${where}: header ${name}`);
    else assert.match(got ?? '', want, `${where}: header ${name}`);
  }
  if (typeof e.body === 'string') assert.equal(res.body, e.body, `${where}: body`);
  else if (e.body) assert.match(res.body, e.body, `${where}: body`);
  if (e.json) e.json(JSON.parse(res.body));
}

export interface Target {
  /** Starts the runtime once for the file (bounded in time); returns how to send requests. */
  start(): Promise<(req: CaseRequest) => Promise<CaseResponse>>;
  stop?(): Promise<void>;
  /** Cases this target is known to answer differently, by name, with the reason (reported as skipped). */
  knownDifferences?: Record<string, string>;
  /** Target-only checks beyond request → response (e.g. HTTP/2 by ALPN), run after the cases. */
  checks?: Record<string, () => Promise<void>>;
}

/**
 * Registers the whole suite against one target, plus `extra` cases that only hold there (what the
 * platform tells the chain differs: client IP, protocol, where certificates come from).
 */
export function registerConformance(name: string, target: Target, extra: ConformanceCase[] = []): void {
  describe(`conformance: ${name}`, () => {
    let send: ((req: CaseRequest) => Promise<CaseResponse>) | undefined;
    before(async () => {
      send = await target.start();
    });
    after(async () => {
      await target.stop?.();
    });
    for (const c of [...cases, ...apiCases, ...crdCases, ...extra]) {
      const skip = target.knownDifferences?.[c.name];
      it(c.name, skip ? { skip } : {}, async () => {
        assert.ok(send, 'target did not start');
        const deadline = Date.now() + (c.retryMs ?? 0);
        for (;;) {
          const res = await send(c.request);
          try {
            check(c, res);
            return;
          } catch (err) {
            if (Date.now() >= deadline) throw err;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      });
    }
    for (const [checkName, fn] of Object.entries(target.checks ?? {})) it(checkName, fn);
  });
}

/** The Web Request for a case (in-process targets). */
export function toRequest(req: CaseRequest, origin = 'https://127.0.0.1:6443'): Request {
  const headers = new Headers({ 'user-agent': USER_AGENT, ...req.headers });
  return new Request(origin + req.path, { method: req.method ?? 'GET', headers, body: req.body });
}

export async function fromResponse(res: Response): Promise<CaseResponse> {
  return { status: res.status, headers: res.headers, body: await res.text() };
}

/** A target-specific case: what the conformance-only transport echo route reports. */
export function transportCase(
  name: string,
  headers: Record<string, string>,
  want: Record<string, unknown>,
): ConformanceCase {
  return {
    name: `transport: ${name}`,
    request: { path: '/conformance/transport', headers },
    expect: {
      status: 200,
      json: (v) => {
        for (const [k, w] of Object.entries(want)) assert.deepEqual(v[k], w, k);
      },
    },
  };
}

/** The x509 user of the fixture client certificate (CN=carol, O=x509-group). */
export const X509_USER = { name: 'carol', uid: '', groups: ['x509-group', 'system:authenticated'] };
