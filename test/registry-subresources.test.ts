// The /status subresources (namespaces, services) and namespace /finalize, in process: what each
// may change (upstream's status and finalize strategies), that main-resource updates ignore status,
// the verbs each serves (others 405), discovery, and a namespace held by a foreign finalizer until
// /finalize empties spec.finalizers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type Harness } from './registry-harness.ts';

let h: Harness;
before(async () => {
  h = await startServer();
  assert.equal((await h.req('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'sub' } }))).status, 201);
});
after(() => h.stop());

const SVC = '/api/v1/namespaces/sub/services';

test('services/status: get, update and patch change status only; updates of the service ignore status', async () => {
  let r = await h.req(
    'POST',
    SVC,
    JSON.stringify({ metadata: { name: 'lb' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } }),
  );
  assert.equal(r.status, 201, r.text);
  const created = r.json();
  r = await h.req('GET', `${SVC}/lb/status`);
  assert.equal(r.status, 200);
  assert.equal(r.json().kind, 'Service');
  assert.deepEqual(r.json().status, { loadBalancer: {} });
  // A status update that also tries to change the spec: only status is taken.
  const body = structuredClone(created);
  body.status = { loadBalancer: { ingress: [{ ip: '192.0.2.7' }] } };
  body.spec.ports = [{ port: 9999 }];
  r = await h.req('PUT', `${SVC}/lb/status`, JSON.stringify(body));
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json().status, { loadBalancer: { ingress: [{ ip: '192.0.2.7' }] } });
  assert.equal(r.json().spec.ports[0].port, 80);
  // kubectl get shows the ingress IP as EXTERNAL-IP.
  const t = await h.req('GET', `${SVC}/lb`, undefined, undefined, {
    accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
  });
  assert.equal(t.json().rows[0].cells[3], '192.0.2.7');
  // The main resource ignores status.
  const again = r.json();
  again.status = { loadBalancer: {} };
  again.metadata.labels = { a: 'b' };
  r = await h.req('PUT', `${SVC}/lb`, JSON.stringify(again));
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json().status, { loadBalancer: { ingress: [{ ip: '192.0.2.7' }] } });
  assert.deepEqual(r.json().metadata.labels, { a: 'b' });
  // Merge patch of status.
  r = await h.req(
    'PATCH',
    `${SVC}/lb/status`,
    JSON.stringify({ status: { loadBalancer: { ingress: [{ ip: '192.0.2.8' }] } }, spec: { type: 'ClusterIP' } }),
    'application/merge-patch+json',
  );
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json().status.loadBalancer.ingress[0].ip, '192.0.2.8');
  assert.equal(r.json().spec.type, 'LoadBalancer');
  r = await h.req(
    'PATCH',
    `${SVC}/lb/status`,
    JSON.stringify({ status: { loadBalancer: { ingress: [{ ip: 'nope' }] } } }),
    'application/merge-patch+json',
  );
  assert.equal(r.status, 422);
  assert.equal(
    r.json().message,
    'Service "lb" is invalid: status.loadBalancer.ingress[0].ip: Invalid value: "nope": must be a valid IP address',
  );
});

test('verbs a subresource does not serve are 405; unknown subresources 404', async () => {
  const notAllowed = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the server does not allow this method on the requested resource',
    reason: 'MethodNotAllowed',
    details: { causes: [{ reason: 'UnexpectedServerResponse', message: '405: Method Not Allowed' }] },
    code: 405,
  };
  let r = await h.req('DELETE', `${SVC}/lb/status`);
  assert.equal(r.status, 405);
  assert.deepEqual(r.json(), notAllowed);
  r = await h.req('GET', '/api/v1/namespaces/sub/finalize');
  assert.deepEqual(r.json(), notAllowed);
  r = await h.req('GET', `${SVC}/lb/scale`);
  assert.equal(r.status, 404);
  r = await h.req('GET', '/api/v1/namespaces/sub/configmaps/x/status');
  assert.equal(r.status, 404);
});

test('namespaces/status: the phase follows deletionTimestamp; spec is kept', async () => {
  const ns = (await h.req('GET', '/api/v1/namespaces/sub')).json();
  ns.status = { phase: 'Terminating' };
  let r = await h.req('PUT', '/api/v1/namespaces/sub/status', JSON.stringify(ns));
  assert.equal(r.status, 422);
  assert.equal(
    r.json().message,
    'Namespace "sub" is invalid: status.Phase: Invalid value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty',
  );
  ns.status = { phase: 'Active' };
  ns.spec = { finalizers: [] };
  r = await h.req('PUT', '/api/v1/namespaces/sub/status', JSON.stringify(ns));
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json().spec, { finalizers: ['kubernetes'] });
});

test('a namespace with a foreign finalizer stays Terminating until /finalize clears spec.finalizers', async () => {
  let r = await h.req(
    'POST',
    '/api/v1/namespaces',
    JSON.stringify({ metadata: { name: 'held' }, spec: { finalizers: ['example.com/hold'] } }),
  );
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(r.json().spec.finalizers, ['example.com/hold', 'kubernetes']);
  await h.req('POST', '/api/v1/namespaces/held/configmaps', JSON.stringify({ metadata: { name: 'c' } }));
  assert.equal((await h.req('DELETE', '/api/v1/namespaces/held')).status, 200);
  // The namespace controller removes the contents and its own finalizer.
  let ns: Record<string, any> = {}; // eslint-disable-line @typescript-eslint/no-explicit-any
  for (let i = 0; i < 100; i++) {
    ns = (await h.req('GET', '/api/v1/namespaces/held')).json();
    if (ns.spec.finalizers.length === 1) break;
    await new Promise((res) => setTimeout(res, 20));
  }
  assert.deepEqual(ns.spec.finalizers, ['example.com/hold']);
  assert.equal(ns.status.phase, 'Terminating');
  assert.equal((await h.req('GET', '/api/v1/namespaces/held/configmaps')).json().items.length, 0);
  // A label change does not delete it.
  ns.metadata.labels.x = 'y';
  r = await h.req('PUT', '/api/v1/namespaces/held', JSON.stringify(ns));
  assert.equal(r.status, 200, r.text);
  // Bad finalizer names are refused by index.
  const bad = structuredClone(r.json());
  bad.spec.finalizers = ['bad'];
  r = await h.req('PUT', '/api/v1/namespaces/held/finalize', JSON.stringify(bad));
  assert.equal(r.status, 422);
  assert.equal(
    r.json().message,
    'Namespace "held" is invalid: spec.finalizers[0]: Invalid value: "bad": name is neither a standard finalizer name nor is it fully qualified',
  );
  bad.spec.finalizers = [];
  bad.status = { phase: 'Active' };
  r = await h.req('PUT', '/api/v1/namespaces/held/finalize', JSON.stringify(bad));
  assert.equal(r.status, 200, r.text);
  assert.equal((await h.req('GET', '/api/v1/namespaces/held')).status, 404);
});

test('discovery lists the subresources with their verbs', async () => {
  const list = (await h.req('GET', '/api/v1')).json();
  const find = (n: string) => list.resources.find((r: { name: string }) => r.name === n);
  assert.deepEqual(find('namespaces/status').verbs, ['get', 'patch', 'update']);
  assert.deepEqual(find('namespaces/finalize').verbs, ['update']);
  assert.deepEqual(find('services/status').verbs, ['get', 'patch', 'update']);
  assert.equal(find('services/status').kind, 'Service');
});
