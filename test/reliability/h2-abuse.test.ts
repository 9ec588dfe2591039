// HTTP/2 abuse against the real command over TLS, with our raw frame client: every case must
// leave the process alive and other clients served; a client's protocol error ends that stream
// or that session only.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, adminToken, type ServerUnderTest } from './server.ts';
import { baseline, group, type Baseline } from './harness.ts';
import { h2Get } from './probe.ts';
import { RawH2, ErrorCode, FrameType, Flags, headers, headerBlock, requestFields } from './h2-client.ts';

let server: ServerUnderTest;
let base: Baseline;
before(async () => {
  server = await startServer();
  base = await baseline(server);
});
after(() => server?.stop());

const auth = { authorization: `Bearer ${adminToken}` };

/** Connects and waits for the SETTINGS exchange, so that the server's limits are in force. */
async function connect(): Promise<RawH2> {
  const c = await RawH2.connect({ port: server.port });
  assert.ok(await c.until(() => c.frames.some((f) => f.type === FrameType.SETTINGS && (f.flags & Flags.ACK) !== 0), 5000), 'no SETTINGS ACK');
  return c;
}

test('streams over MaxConcurrentStreams in one burst (1,000 POST HEADERS without END_STREAM)', async (t) => {
  await group(t, server, base, 'streams-over-limit', async (g) => {
    for (const path of ['/apis/authentication.k8s.io/v1/tokenreviews', '/api/v1/namespaces/default/pods', '/version']) {
      const c = await connect();
      const block = headerBlock(requestFields('POST', path, { ...auth, 'content-type': 'application/json' }));
      const burst: Buffer[] = [];
      for (let i = 0; i < 1000; i++) burst.push(headers(1 + 2 * i, block, { endStream: false }));
      c.write(Buffer.concat(burst));
      // The 101st stream breaks the advertised limit: the server ends this session (GOAWAY
      // PROTOCOL_ERROR) or refuses the stream; either way only this client is affected.
      await c.closedWithin(3000);
      assert.ok(c.closed || c.goaway || [...c.streams.values()].some((s) => s.rst === ErrorCode.REFUSED_STREAM));
      if (c.goaway) assert.equal(c.goaway.code, ErrorCode.PROTOCOL_ERROR);
      c.close();
      const v = await h2Get(server.port, '/version', auth);
      assert.equal(v.status, 200);
      g.count();
    }
  });
});
