// Bad input on the API side, in process through the whole chain: each answer is upstream's exact
// Status JSON (k8s.io/apiserver/pkg/endpoints/handlers: create.go, update.go, rest.go checkName,
// transformDecodeError; registry/generic/registry/store.go) and nothing is written.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSQLiteKV } from '../adapters/node/sqlite.ts';
import { startServer, type Harness } from './registry-harness.ts';

let h: Harness;
before(async () => {
  // A SQLite engine whose rows hold at most 512 KiB: objects under the 3 MiB body limit can exceed it.
  h = await startServer('', { kv: () => openSQLiteKV(':memory:', { maxRowBytes: 512 * 1024 }) });
  const r = await h.req('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'bad' } }));
  assert.equal(r.status, 201, r.text);
  assert.equal(
    (await h.req('POST', CMS, JSON.stringify({ metadata: { name: 'keep' }, data: { a: '1' } }))).status,
    201,
  );
});
after(() => h.stop());

const CMS = '/api/v1/namespaces/bad/configmaps';
const status = (code: number, reason: string, message: string, details?: object) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  reason,
  ...(details ? { details } : {}),
  code,
});

/** The names in the namespace and the kept object's resourceVersion: what a failure must not change. */
async function snapshot(): Promise<string> {
  const list = (await h.req('GET', CMS)).json();
  return list.items
    .map(
      (i: { metadata: { name: string; resourceVersion: string } }) =>
        `${i.metadata.name}@${i.metadata.resourceVersion}`,
    )
    .join(',');
}

async function refused(
  method: string,
  path: string,
  body: string,
  want: object,
  contentType = 'application/json',
): Promise<void> {
  const before = await snapshot();
  const r = await h.req(method, path, body, contentType);
  assert.deepEqual(r.json(), want, r.text);
  assert.equal(r.status, (want as { code: number }).code);
  assert.equal(await snapshot(), before, 'nothing written');
}

test('a body over --max-request-body-bytes (3 MiB) is 413 RequestEntityTooLarge', async () => {
  const body = JSON.stringify({ metadata: { name: 'huge' }, data: { k: 'x'.repeat(3 * 1024 * 1024) } });
  const want = status(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
  await refused('POST', CMS, body, want);
  await refused('PUT', `${CMS}/keep`, body.replace('huge', 'keep'), want);
  await refused(
    'PATCH',
    `${CMS}/keep`,
    JSON.stringify({ data: { k: 'x'.repeat(3 * 1024 * 1024) } }),
    want,
    'application/merge-patch+json',
  );
});

test("an object over the storage engine's limit is 413, not 500, on create, update and patch", async () => {
  // Annotations are not size-checked per key beyond 256 KiB in total; several keys of a ServiceAccount's
  // secrets list are not checked at all: a 600 KiB list passes validation and exceeds the engine's row.
  const big = Array.from({ length: 6000 }, (_, i) => ({ name: `s-${i}-${'x'.repeat(90)}` }));
  const want = status(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 524288');
  const before = await h.req('GET', '/api/v1/namespaces/bad/serviceaccounts');
  let r = await h.req(
    'POST',
    '/api/v1/namespaces/bad/serviceaccounts',
    JSON.stringify({ metadata: { name: 'sa' }, secrets: big }),
  );
  assert.deepEqual(r.json(), want, r.text);
  r = await h.req('POST', '/api/v1/namespaces/bad/serviceaccounts', JSON.stringify({ metadata: { name: 'sa' } }));
  assert.equal(r.status, 201, r.text);
  r = await h.req(
    'PUT',
    '/api/v1/namespaces/bad/serviceaccounts/sa',
    JSON.stringify({ metadata: { name: 'sa' }, secrets: big }),
  );
  assert.deepEqual(r.json(), want, r.text);
  r = await h.req(
    'PATCH',
    '/api/v1/namespaces/bad/serviceaccounts/sa',
    JSON.stringify({ secrets: big }),
    'application/merge-patch+json',
  );
  assert.deepEqual(r.json(), want, r.text);
  r = await h.req('GET', '/api/v1/namespaces/bad/serviceaccounts/sa');
  assert.equal(r.json().secrets, undefined, 'nothing written');
  assert.ok(before.status === 200);
});

test('malformed JSON and YAML bodies are 400 with the decoder’s message', async () => {
  await refused(
    'POST',
    CMS,
    '{"metadata": ',
    status(
      400,
      'BadRequest',
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"metadata": )',
    ),
  );
  const r = await h.req('POST', CMS, 'metadata: [', 'application/yaml');
  assert.equal(r.status, 400);
  assert.equal(r.json().reason, 'BadRequest');
  assert.match(
    r.json().message,
    /^the object provided is unrecognized \(must be of type ConfigMap\): error converting YAML to JSON: yaml: /,
  );
});

test('a body of another kind or version than the URL is 400', async () => {
  await refused(
    'POST',
    CMS,
    JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }),
    status(
      400,
      'BadRequest',
      'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
    ),
  );
  await refused(
    'POST',
    CMS,
    JSON.stringify({ apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'x' } }),
    status(
      400,
      'BadRequest',
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
    ),
  );
  await refused(
    'PUT',
    `${CMS}/keep`,
    JSON.stringify({ apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'keep' } }),
    status(
      400,
      'BadRequest',
      'ConfigMap in version "v2" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "v2" in scheme "pkg/api/legacyscheme/scheme.go:30"',
    ),
  );
});

test('a name that is not DNS-1123 is 422 Invalid with its cause', async () => {
  const msg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  await refused(
    'POST',
    CMS,
    JSON.stringify({ metadata: { name: 'Bad_Name' } }),
    status(422, 'Invalid', `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${msg}`, {
      name: 'Bad_Name',
      kind: 'ConfigMap',
      causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: "Bad_Name": ${msg}`, field: 'metadata.name' }],
    }),
  );
  // IsDNS1123Label's own message for a subdomain-looking name.
  const label = 'must not contain dots';
  const r = await h.req('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'a.b' } }));
  assert.deepEqual(
    r.json(),
    status(422, 'Invalid', `Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": ${label}`, {
      name: 'a.b',
      kind: 'Namespace',
      causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: "a.b": ${label}`, field: 'metadata.name' }],
    }),
  );
});

test('a body whose name or namespace differs from the URL is 400', async () => {
  await refused(
    'PUT',
    `${CMS}/keep`,
    JSON.stringify({ metadata: { name: 'other' } }),
    status(400, 'BadRequest', 'the name of the object (other) does not match the name on the URL (keep)'),
  );
  await refused(
    'PUT',
    `${CMS}/keep`,
    JSON.stringify({ metadata: { name: 'keep', namespace: 'default' } }),
    status(400, 'BadRequest', 'the namespace of the object (default) does not match the namespace on the URL (bad)'),
  );
  await refused(
    'POST',
    CMS,
    JSON.stringify({ metadata: { name: 'x', namespace: 'default' } }),
    status(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request'),
  );
  await refused(
    'PATCH',
    `${CMS}/keep`,
    JSON.stringify({ metadata: { name: 'renamed' } }),
    status(400, 'BadRequest', 'the name of the object (renamed) does not match the name on the URL (keep)'),
    'application/merge-patch+json',
  );
});

test('an update with a stale resourceVersion is 409 Conflict', async () => {
  await refused(
    'PUT',
    `${CMS}/keep`,
    JSON.stringify({ metadata: { name: 'keep', resourceVersion: '1' }, data: { a: '2' } }),
    status(
      409,
      'Conflict',
      'Operation cannot be fulfilled on configmaps "keep": the object has been modified; please apply your changes to the latest version and try again',
      { name: 'keep', kind: 'configmaps' },
    ),
  );
  await refused(
    'PATCH',
    `${CMS}/keep`,
    JSON.stringify({ metadata: { resourceVersion: '1' }, data: { a: '2' } }),
    status(
      409,
      'Conflict',
      'Operation cannot be fulfilled on configmaps "keep": the object has been modified; please apply your changes to the latest version and try again',
      { name: 'keep', kind: 'configmaps' },
    ),
    'application/merge-patch+json',
  );
  await refused(
    'DELETE',
    `${CMS}/keep`,
    JSON.stringify({ preconditions: { uid: 'nope' } }),
    status(
      409,
      'Conflict',
      `Operation cannot be fulfilled on configmaps "keep": Precondition failed: UID in precondition: nope, UID in object meta: ${(await h.req('GET', `${CMS}/keep`)).json().metadata.uid}`,
      { name: 'keep', kind: 'configmaps' },
    ),
  );
});

test('field selectors: an unknown field is 400 with the kind’s message; the kind’s own fields select', async () => {
  const sel = (path: string, fs: string) => h.req('GET', `${path}?fieldSelector=${encodeURIComponent(fs)}`);
  // DefaultMetaV1FieldSelectorConversion (ConfigMap has no conversion of its own), also on watch and deletecollection.
  const unknown = status(
    400,
    'BadRequest',
    '"data.a" is not a known field selector: only "metadata.name", "metadata.namespace"',
  );
  assert.deepEqual((await sel(CMS, 'data.a=1')).json(), unknown);
  assert.deepEqual((await h.req('GET', `${CMS}?watch=1&fieldSelector=data.a%3D1`)).json(), unknown);
  await refused('DELETE', `${CMS}?fieldSelector=data.a%3D1`, '', unknown);
  assert.deepEqual(
    (await sel(CMS, 'metadata.name=keep')).json().items.map((i: { metadata: { name: string } }) => i.metadata.name),
    ['keep'],
  );
  // Kinds with a registered conversion: their own message and fields.
  assert.deepEqual(
    (await sel('/api/v1/namespaces', 'spec.finalizers=x')).json(),
    status(400, 'BadRequest', 'field label not supported: spec.finalizers'),
  );
  assert.ok(
    (await sel('/api/v1/namespaces', 'status.phase=Active'))
      .json()
      .items.some((n: { metadata: { name: string } }) => n.metadata.name === 'bad'),
  );
  assert.equal((await sel('/api/v1/namespaces', 'status.phase=Terminating')).json().items.length, 0);
  const tls = JSON.stringify({
    metadata: { name: 'tls' },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': '', 'tls.key': '' },
  });
  assert.equal((await h.req('POST', '/api/v1/namespaces/bad/secrets', tls)).status, 201);
  assert.equal(
    (await h.req('POST', '/api/v1/namespaces/bad/secrets', JSON.stringify({ metadata: { name: 'o' } }))).status,
    201,
  );
  const names = async (fs: string) =>
    (await sel('/api/v1/namespaces/bad/secrets', fs))
      .json()
      .items.map((i: { metadata: { name: string } }) => i.metadata.name);
  assert.deepEqual(await names('type=kubernetes.io/tls'), ['tls']);
  assert.deepEqual(await names('type!=kubernetes.io/tls'), ['o']);
  // events.k8s.io's names map to the stored core form's (regarding.* → involvedObject.*).
  assert.deepEqual(
    (await sel('/apis/events.k8s.io/v1/namespaces/bad/events', 'involvedObject.kind=Pod')).json(),
    status(400, 'BadRequest', 'field label not supported: involvedObject.kind'),
  );
  assert.equal((await sel('/apis/events.k8s.io/v1/namespaces/bad/events', 'regarding.kind=Pod')).status, 200);
  assert.equal((await sel('/api/v1/namespaces/bad/events', 'involvedObject.kind=Pod')).status, 200);
});

test('list options: ValidateListOptions errors are 422 ListOptions.meta.k8s.io "" is invalid', async () => {
  const invalid = async (query: string) => {
    const r = await h.req('GET', `${CMS}?${query}`);
    assert.equal(r.status, 422, r.text);
    const s = r.json();
    assert.equal(s.reason, 'Invalid');
    assert.deepEqual(
      { group: s.details.group, kind: s.details.kind, name: s.details.name },
      {
        group: 'meta.k8s.io',
        kind: 'ListOptions',
        name: undefined, // empty, so omitted
      },
    );
    return s.message as string;
  };
  assert.equal(
    await invalid('resourceVersionMatch=Exact'),
    'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
  );
  assert.equal(
    await invalid('resourceVersionMatch=Bogus&resourceVersion=1'),
    'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""',
  );
  assert.equal(
    await invalid('resourceVersionMatch=Exact&resourceVersion=0'),
    'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
  );
  assert.equal(
    await invalid('sendInitialEvents=false'),
    'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
  );
  assert.equal(
    await invalid('watch=1&resourceVersionMatch=NotOlderThan'),
    'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
  );
  assert.equal(
    await invalid('watch=1&sendInitialEvents=true'),
    'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
  );
  // The watch-list request client-go sends is accepted: the initial state, then a bookmark that ends it.
  // (A configmap write first: the watch starts at storage's current revision, which the watch cache
  // reaches by an event of its own resource or by a progress notification.)
  assert.equal((await h.req('POST', CMS, JSON.stringify({ metadata: { name: 'watched' } }))).status, 201);
  const w = await h.req(
    'GET',
    `${CMS}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1`,
  );
  assert.equal(w.status, 200, w.text);
  assert.match(w.text, /"type":"ADDED".*"name":"keep"/);
  assert.match(w.text, /"type":"BOOKMARK".*"k8s.io\/initial-events-end":"true"/);
  assert.equal((await h.req('GET', `${CMS}?resourceVersionMatch=NotOlderThan&resourceVersion=0`)).status, 200);
});

test('a body the typed decode cannot take is 400 with Go’s error, on create and update', async () => {
  const cannot = (err: string) =>
    status(400, 'BadRequest', `ConfigMap in version "v1" cannot be handled as a ConfigMap: ${err}`);
  await refused(
    'POST',
    CMS,
    JSON.stringify({ metadata: { name: 'typed' }, data: { a: 12 } }),
    cannot('json: cannot unmarshal number into Go struct field ConfigMap.data of type string'),
  );
  await refused(
    'POST',
    CMS,
    JSON.stringify({ metadata: { name: 'typed' }, binaryData: { a: '!!not base64' } }),
    cannot('illegal base64 data at input byte 0'),
  );
  await refused(
    'PUT',
    `${CMS}/keep`,
    JSON.stringify({ metadata: { name: 'keep', labels: { a: 1 } } }),
    cannot('json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string'),
  );
  await refused(
    'POST',
    CMS,
    'metadata: {name: typed}\nimmutable: "yes"\n',
    cannot('json: cannot unmarshal string into Go struct field ConfigMap.immutable of type bool'),
    'application/yaml',
  );
});
