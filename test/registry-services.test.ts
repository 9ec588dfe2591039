// core/v1 services in process: cluster IP allocation from --service-cluster-ip-range (its default,
// the requested IP, duplicates, out of range, release on delete, kept across updates), node ports,
// the `kubernetes` service and its Endpoints (the kubernetes-service controller), the flag's
// validation, and the Table columns of kube's printers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type Harness } from './registry-harness.ts';
import { ExtraOptions } from '../src/server/options/extra.ts';
import { FlagSet } from '../src/server/options/flags.ts';
import { candidates, contains, formatIP, parseCIDR, parseIP, rangeOffset } from '../src/registry/core/ipallocator.ts';

let h: Harness;
before(async () => {
  h = await startServer('--advertise-address=192.0.2.10 --secure-port=8443');
});
after(() => h.stop());

const SVC = '/api/v1/namespaces/default/services';
const svc = (name: string, spec: Record<string, unknown>) => JSON.stringify({ metadata: { name }, spec });

async function eventually<T>(f: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = await f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('timed out');
}

test('the kubernetes service: 443/https to the secure port on the first IP of the range, Endpoints at the advertise address', async () => {
  const k = await eventually(async () => {
    const r = await h.req('GET', `${SVC}/kubernetes`);
    return r.status === 200 ? r.json() : undefined;
  });
  assert.deepEqual(k.metadata.labels, { component: 'apiserver', provider: 'kubernetes' });
  assert.equal(k.spec.clusterIP, '10.0.0.1');
  assert.deepEqual(k.spec.clusterIPs, ['10.0.0.1']);
  assert.deepEqual(k.spec.ports, [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 8443 }]);
  assert.equal(k.spec.type, 'ClusterIP');
  assert.equal(k.spec.sessionAffinity, 'None');
  assert.deepEqual(k.spec.ipFamilies, ['IPv4']);
  assert.equal(k.spec.ipFamilyPolicy, 'SingleStack');
  const ep = await eventually(async () => {
    const r = await h.req('GET', '/api/v1/namespaces/default/endpoints/kubernetes');
    return r.status === 200 ? r.json() : undefined;
  });
  assert.deepEqual(ep.subsets, [
    { addresses: [{ ip: '192.0.2.10' }], ports: [{ name: 'https', port: 8443, protocol: 'TCP' }] },
  ]);
});

test('a ClusterIP service gets a free IP from the dynamic band and defaults; the IP is released on delete', async () => {
  let r = await h.req('POST', SVC, svc('web', { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] }));
  assert.equal(r.status, 201, r.text);
  const s = r.json().spec;
  assert.ok(contains(parseCIDR('10.0.0.0/24')!, s.clusterIP));
  assert.ok(parseIP(s.clusterIP)!.value >= parseIP('10.0.0.17')!.value, `dynamic band: ${s.clusterIP}`);
  assert.deepEqual(s.clusterIPs, [s.clusterIP]);
  assert.deepEqual(s.ports, [{ port: 80, targetPort: 8080, protocol: 'TCP' }]);
  assert.equal(s.type, 'ClusterIP');
  assert.equal(s.sessionAffinity, 'None');
  assert.equal(s.internalTrafficPolicy, 'Cluster');
  assert.deepEqual(r.json().status, { loadBalancer: {} });
  // The same IP asked for by another service is taken.
  r = await h.req('POST', SVC, svc('web2', { clusterIP: s.clusterIP, ports: [{ port: 80 }] }));
  assert.equal(r.status, 422);
  assert.equal(
    r.json().message,
    `Service "web2" is invalid: spec.clusterIPs: Invalid value: ["${s.clusterIP}"]: failed to allocate IP ${s.clusterIP}: provided IP is already allocated`,
  );
  assert.equal((await h.req('GET', `${SVC}/web2`)).status, 404);
  // An update without clusterIP keeps it; changing it is refused.
  r = await h.req('PUT', `${SVC}/web`, svc('web', { selector: { app: 'web2' }, ports: [{ port: 81 }] }));
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json().spec.clusterIP, s.clusterIP);
  assert.equal(r.json().spec.ports[0].targetPort, 81);
  r = await h.req('PUT', `${SVC}/web`, svc('web', { clusterIP: '10.0.0.5', ports: [{ port: 81 }] }));
  assert.equal(r.status, 422);
  assert.match(r.json().message, /spec.clusterIPs\[0\]: Invalid value: \["10.0.0.5"\]: may not change once set/);
  // Deleting releases the IP: a new service may ask for it.
  assert.equal((await h.req('DELETE', `${SVC}/web`)).status, 200);
  r = await h.req('POST', SVC, svc('web3', { clusterIP: s.clusterIP, ports: [{ port: 80 }] }));
  assert.equal(r.status, 201, r.text);
  assert.equal(r.json().spec.clusterIP, s.clusterIP);
});

test('requested IPs outside the range, headless and ExternalName services, node ports', async () => {
  let r = await h.req('POST', SVC, svc('out', { clusterIP: '10.9.0.1', ports: [{ port: 80 }] }));
  assert.equal(r.status, 422);
  assert.equal(
    r.json().message,
    'Service "out" is invalid: spec.clusterIPs: Invalid value: ["10.9.0.1"]: failed to allocate IP 10.9.0.1: the provided IP (10.9.0.1) is not in the valid range. The range of valid IPs is 10.0.0.0/24',
  );
  r = await h.req('POST', SVC, svc('headless', { clusterIP: 'None', selector: { a: 'b' } }));
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(r.json().spec.clusterIPs, ['None']);
  r = await h.req('POST', SVC, svc('ext', { type: 'ExternalName', externalName: 'example.com' }));
  assert.equal(r.status, 201, r.text);
  assert.equal(r.json().spec.clusterIP, undefined);
  r = await h.req('POST', SVC, svc('np', { type: 'NodePort', ports: [{ port: 80 }] }));
  assert.equal(r.status, 201, r.text);
  const nodePort = r.json().spec.ports[0].nodePort;
  assert.ok(nodePort >= 30000 && nodePort <= 32767, String(nodePort));
  assert.equal(r.json().spec.externalTrafficPolicy, 'Cluster');
  r = await h.req('POST', SVC, svc('np2', { type: 'NodePort', ports: [{ port: 80, nodePort }] }));
  assert.equal(r.status, 422);
  assert.match(r.json().message, /spec.ports\[0\].nodePort: Invalid value: \d+: provided port is already allocated/);
  r = await h.req('POST', SVC, svc('noports', {}));
  assert.equal(r.json().message, 'Service "noports" is invalid: spec.ports: Required value');
  r = await h.req('POST', SVC, svc('badtype', { type: 'Magic', ports: [{ port: 80 }] }));
  assert.equal(
    r.json().message,
    'Service "badtype" is invalid: spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
  );
  r = await h.req('POST', SVC, svc('Bad.Name', { ports: [{ port: 80 }] }));
  assert.equal(r.status, 422);
  assert.match(r.json().message, /a DNS-1035 label must consist of lower case alphanumeric characters/);
});

test('Table: NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE and SELECTOR (wide)', async () => {
  const r = await h.req('GET', SVC, undefined, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
  const t = r.json();
  assert.deepEqual(
    t.columnDefinitions.map((c: { name: string; priority: number }) => `${c.name}/${c.priority}`),
    ['Name/0', 'Type/0', 'Cluster-IP/0', 'External-IP/0', 'Port(s)/0', 'Age/0', 'Selector/1'],
  );
  const byName = new Map(t.rows.map((row: { cells: string[] }) => [row.cells[0], row.cells]));
  assert.deepEqual(
    (byName.get('kubernetes') as string[]).filter((_, i) => i !== 5),
    ['kubernetes', 'ClusterIP', '10.0.0.1', '<none>', '443/TCP', '<none>'],
  );
  assert.equal((byName.get('ext') as string[])[3], 'example.com');
  assert.match((byName.get('np') as string[])[4]!, /^80:\d+\/TCP$/);
  assert.equal((byName.get('headless') as string[])[2], 'None');
  assert.equal((byName.get('headless') as string[])[6], 'a=b');
});

test('--service-cluster-ip-range: default 10.0.0.0/24 and upstream validation', () => {
  const parse = (...args: string[]) => {
    const o = new ExtraOptions();
    const fs = new FlagSet('t');
    o.addFlags(fs);
    fs.parse(args);
    return o;
  };
  assert.deepEqual(
    parse()
      .ranges()
      .ranges.map((r) => r.text),
    ['10.0.0.0/24'],
  );
  assert.deepEqual(parse().validate(), []);
  assert.deepEqual(parse('--service-cluster-ip-range=10.96.0.0/12').validate(), []);
  assert.deepEqual(parse('--service-cluster-ip-range=nope').validate(), [
    'error determining service IP ranges: service-cluster-ip-range[0] is not a valid cidr',
  ]);
  assert.deepEqual(parse('--service-cluster-ip-range=10.0.0.0/8').validate(), [
    'specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12',
  ]);
  assert.deepEqual(parse('--service-cluster-ip-range=10.0.0.0/24,10.1.0.0/24').validate(), [
    '--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family',
  ]);
  assert.deepEqual(parse('--service-cluster-ip-range=10.0.0.0/24,fd00::/108,10.2.0.0/24').validate(), [
    '--service-cluster-ip-range must not contain more than two entries',
  ]);
  assert.deepEqual(parse('--event-ttl=5m').validate(), []);
});

test('ipallocator: parsing, formatting, bands', () => {
  assert.equal(parseCIDR('10.0.0.5/24')!.text, '10.0.0.0/24');
  assert.equal(parseCIDR('fd00:0:0::1/112')!.text, 'fd00::/112');
  assert.equal(parseCIDR('10.0.0.0/33'), undefined);
  assert.equal(parseIP('010.0.0.1'), undefined);
  assert.equal(formatIP(parseIP('2001:db8:0:0:1:0:0:1')!.value, 128), '2001:db8::1:0:0:1');
  assert.equal(rangeOffset(parseCIDR('10.0.0.0/24')!), 16n);
  assert.equal(rangeOffset(parseCIDR('10.0.0.0/28')!), 0n);
  const all = [...candidates(parseCIDR('10.0.0.0/29')!)];
  assert.deepEqual([...all].sort(), ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6']);
  const first = candidates(parseCIDR('10.0.0.0/24')!, () => 0).next().value;
  assert.equal(first, '10.0.0.17');
});
