import { test } from 'node:test';
import assert from 'node:assert/strict';
import type os from 'node:os';
import { canonicalHeaderKey, goResponseHead } from './go-response.ts';
import { chooseHostInterface, defaultRoutes } from './host-interface.ts';

test('canonicalHeaderKey: textproto.CanonicalMIMEHeaderKey', () => {
  assert.equal(canonicalHeaderKey('content-type'), 'Content-Type');
  assert.equal(canonicalHeaderKey('x-kubernetes-pf-flowschema-uid'), 'X-Kubernetes-Pf-Flowschema-Uid');
  assert.equal(canonicalHeaderKey('ETAG'), 'Etag');
  assert.equal(canonicalHeaderKey('www-authenticate'), 'Www-Authenticate');
  assert.equal(canonicalHeaderKey('bad name'), 'bad name');
});

test('goResponseHead: sorted canonical handler headers, then Date, Content-Length, Connection, Transfer-Encoding', () => {
  const node =
    'HTTP/1.1 413 Payload Too Large\r\nx-b: 2\r\nwarning: 299 - "a"\r\nx-a:  1\r\nx-a-b: 3\r\nX-A: 0\r\n' +
    'Date: Tue, 01 Dec 2026 17:05:49 GMT\r\nConnection: keep-alive\r\nKeep-Alive: timeout=90\r\nTransfer-Encoding: chunked\r\n\r\n';
  assert.equal(
    goResponseHead(node),
    'HTTP/1.1 413 Request Entity Too Large\r\nWarning: 299 - "a"\r\nX-A: 1\r\nX-A: 0\r\nX-A-B: 3\r\nX-B: 2\r\n' +
      'Date: Tue, 01 Dec 2026 17:05:49 GMT\r\nTransfer-Encoding: chunked\r\n\r\n',
  );
  // Closing is announced on HTTP/1.1; HTTP/1.0 gets its own status line and keep-alive announced.
  assert.equal(
    goResponseHead('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'),
    'HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
  );
  assert.equal(
    goResponseHead('HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n', true),
    'HTTP/1.0 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n',
  );
  assert.equal(goResponseHead('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n', true), 'HTTP/1.0 200 OK\r\n\r\n');
});

type Ifaces = ReturnType<typeof os.networkInterfaces>;
const addr = (address: string, family: 'IPv4' | 'IPv6', internal = false) =>
  ({ address, family, internal, netmask: '', mac: '', cidr: null }) as unknown as os.NetworkInterfaceInfo;

test("chooseHostInterface: the default route's interface, IPv4 first; else any global unicast; else upstream's errors", () => {
  const ifaces: Ifaces = {
    lo: [addr('127.0.0.1', 'IPv4', true)],
    eth0: [addr('169.254.1.1', 'IPv4'), addr('fe80::1', 'IPv6'), addr('2001:db8::5', 'IPv6')],
    eth1: [addr('192.0.2.9', 'IPv4')],
  };
  const table = (path: string) => {
    if (path === '/proc/net/route')
      return 'Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\n eth1\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\n';
    throw new Error('ENOENT');
  };
  assert.deepEqual(defaultRoutes(table), [{ iface: 'eth1', family: 'IPv4' }]);
  assert.equal(chooseHostInterface(ifaces, defaultRoutes(table)), '192.0.2.9');
  // No route tables: the first interface with a global unicast address (IPv4 before IPv6).
  assert.equal(chooseHostInterface(ifaces, null), '192.0.2.9');
  assert.equal(chooseHostInterface({ lo: ifaces.lo, eth0: ifaces.eth0 }, null), '2001:db8::5');
  assert.throws(
    () => chooseHostInterface({ lo: ifaces.lo }, null),
    /^Error: no acceptable interface with global unicast address found on host$/,
  );
  assert.throws(
    () => chooseHostInterface({ lo: ifaces.lo }, [{ iface: 'eth9', family: 'IPv4' }]),
    /^Error: unable to select an IP from default routes\.$/,
  );
});
