// HTTP/1.1 abuse against the real command over TLS, with our raw socket client: malformed request
// lines and versions get Go's answers (never a 5xx other than Go's 505), smuggling shapes are
// refused, header bombs and pipelining floods are bounded, slow clients are cut off by the
// server's timeouts, oversized bodies get their Status.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, adminToken, type ServerUnderTest } from './server.ts';
import { baseline, group, type Baseline } from './harness.ts';
import { exchange, parseResponses, RawH1 } from './h1-client.ts';

let server: ServerUnderTest;
let base: Baseline;
before(async () => {
  // A short header timeout (Go's ReadHeaderTimeout) keeps the slow-client cases short.
  server = await startServer([], { env: { EDGE_APISERVER_TEST_HEADERS_TIMEOUT_MS: '1500' } });
  base = await baseline(server);
});
after(() => server?.stop());

const errorHeaders = '\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n';
/** Go's net/http answer to a request it cannot read: a statusError, or the public 400. */
const go505 = `HTTP/1.1 505 HTTP Version Not Supported: unsupported protocol version${errorHeaders}505 HTTP Version Not Supported: unsupported protocol version`;
const go400 = `HTTP/1.1 400 Bad Request${errorHeaders}400 Bad Request`;

test('request versions: Go answers 505 for a well-formed version other than 1.x, 400 for a malformed one', async (t) => {
  await group(t, server, base, 'versions', async (g) => {
    for (const v of ['HTTP/2.0', 'HTTP/3.0', 'HTTP/0.9', 'HTTP/9.9', 'HTTP/2.1']) {
      const r = await exchange(server.port, `GET /version ${v}\r\nHost: x\r\n\r\n`);
      assert.equal(r.raw, go505, v);
      assert.ok(r.closed, v);
      g.count();
    }
    // With a body and an Authorization header, over a kept-alive connection: the same.
    const withBody = await exchange(server.port, `POST /version HTTP/2.0\r\nHost: x\r\nAuthorization: Bearer ${adminToken}\r\nContent-Length: 2\r\n\r\n{}`);
    assert.equal(withBody.raw, go505);
    g.count();
    // Go's ParseHTTPVersion takes only HTTP/<digit>.<digit>: the rest is malformed (400).
    // HTTP/1.2 is served by Go as 1.x; Node's parser refuses it (400), still a client error.
    for (const v of ['HTTP/1.10', 'HTTP/2', 'HTTP/x.y', 'HTTPS/1.1', 'http/1.1', 'HTTP/1.1 extra', 'HTTP/1.2', 'HTTP/-1.1']) {
      const r = await exchange(server.port, `GET /version ${v}\r\nHost: x\r\n\r\n`);
      assert.equal(r.raw, go400, v);
      g.count();
    }
  });
});
