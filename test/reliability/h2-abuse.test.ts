// HTTP/2 abuse against the real command over TLS, with our raw frame client: every case must
// leave the process alive and other clients served; a client's protocol error ends that stream
// or that session only.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, adminToken, type ServerUnderTest } from './server.ts';
import { baseline, group, type Baseline } from './harness.ts';
import { h2Get } from './probe.ts';
import {
  RawH2,
  ErrorCode,
  FrameType,
  Flags,
  badHpack,
  continuation,
  data,
  frame,
  headerBlock,
  headers,
  hpackInt,
  literal,
  ping,
  priority,
  requestFields,
  rstStream,
  settings,
  windowUpdate,
} from './h2-client.ts';

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
  assert.ok(
    await c.until(() => c.frames.some((f) => f.type === FrameType.SETTINGS && (f.flags & Flags.ACK) !== 0), 5000),
    'no SETTINGS ACK',
  );
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const versionBlock = () => headerBlock(requestFields('GET', '/version', auth));

/**
 * What a case expects of the attacking connection: a GOAWAY with one of `goaway` codes (or, for
 * floods Node cuts off, a plain close), a reset of stream 1 with `rst`, or a stream error only
 * (`rst`, then stream 3 on the same connection is still served).
 */
interface Expect {
  goaway?: number[];
  rst?: number[];
  /** Stream 3 is sent after the attack and must be answered 200 (the session survived). With
   * nothing expected, the attack has asserted what it needs. */
  survives?: boolean;
  /** A close without GOAWAY is acceptable too (Node destroys a flooding session). */
  closeOk?: boolean;
}

interface Case {
  name: string;
  attack: (c: RawH2) => unknown;
  expect: Expect;
}

/** Runs cases on fresh connections; after each, a bystander connection opened first must still be served. */
async function runCases(g: { count(): void }, cases: Case[]): Promise<void> {
  const bystander = await connect();
  let next = 1;
  try {
    for (const k of cases) {
      const c = await connect();
      try {
        await k.attack(c);
        const e = k.expect;
        if (e.survives) c.request(3, 'GET', '/version', auth);
        await c.until(() => {
          if (e.goaway) return c.goaway !== undefined || (e.closeOk === true && c.closed);
          if (e.survives) return c.streams.get(3)?.ended === true;
          if (e.rst) return c.streams.get(1)?.rst !== undefined;
          return true;
        }, 5000);
        if (e.goaway) {
          assert.ok(c.goaway || (e.closeOk && c.closed), `${k.name}: no GOAWAY`);
          if (c.goaway)
            assert.ok(e.goaway.includes(c.goaway.code), `${k.name}: GOAWAY ${c.goaway.code} ${c.goaway.debug}`);
        }
        if (e.rst)
          assert.ok(
            e.rst.includes(c.streams.get(1)?.rst ?? -1),
            `${k.name}: stream 1 ${JSON.stringify(c.streams.get(1))}`,
          );
        if (e.survives) {
          assert.equal(c.goaway, undefined, `${k.name}: GOAWAY ${JSON.stringify(c.goaway)}`);
          assert.equal(c.streams.get(3)?.status, 200, `${k.name}: stream 3 ${JSON.stringify(c.streams.get(3))}`);
        }
      } finally {
        c.close();
      }
      bystander.request(next, 'GET', '/version', auth);
      const r = await bystander.response(next);
      assert.equal(r.status, 200, `bystander after ${k.name}`);
      next += 2;
      g.count();
    }
  } finally {
    bystander.close();
  }
}

test('rapid reset (CVE-2023-44487): 5,000 HEADERS + RST_STREAM pairs on one connection', async (t) => {
  await group(t, server, base, 'rapid-reset', async (g) => {
    for (const method of ['GET', 'POST']) {
      const c = await connect();
      const block = headerBlock(requestFields(method, '/version', auth));
      const deadline = Date.now() + 5000;
      for (let b = 0; b < 10 && !c.closed && Date.now() < deadline; b++) {
        const burst: Buffer[] = [];
        for (let i = 0; i < 500; i++) {
          const id = 1 + 2 * (b * 500 + i);
          burst.push(headers(id, block, { endStream: method === 'GET' }), rstStream(id));
        }
        c.write(Buffer.concat(burst));
        await sleep(10);
      }
      await c.until(() => false, 300);
      // Node's mitigation answers with ENHANCE_YOUR_CALM on some streams or ends the session; the
      // reset streams never reach the handler chain (the dispatcher drops them).
      for (const s of c.streams.values())
        if (s.rst !== undefined)
          assert.ok(
            [ErrorCode.ENHANCE_YOUR_CALM, ErrorCode.NO_ERROR, ErrorCode.CANCEL, ErrorCode.REFUSED_STREAM].includes(
              s.rst as never,
            ),
          );
      c.close();
      const v = await h2Get(server.port, '/version', auth);
      assert.equal(v.status, 200);
      g.count();
    }
  });
});

test('streams over the limit before the SETTINGS ACK are refused, not fatal', async (t) => {
  await group(t, server, base, 'streams-before-ack', async (g) => {
    const c = await RawH2.connect({ port: server.port, autoAck: false });
    const burst: Buffer[] = [];
    for (let i = 0; i < 1000; i++) burst.push(headers(1 + 2 * i, versionBlock()));
    c.write(Buffer.concat(burst));
    await c.until(() => [...c.streams.values()].filter((s) => s.ended).length >= 1000, 5000);
    const refused = [...c.streams.values()].filter((s) => s.rst === ErrorCode.REFUSED_STREAM).length;
    const served = [...c.streams.values()].filter((s) => s.status === 200).length;
    assert.ok(served >= 100, `served ${served}`);
    assert.equal(served + refused, 1000);
    c.close();
    g.count();
  });
});

test('CONTINUATION floods without END_HEADERS (CVE-2024-27316 class)', async (t) => {
  await group(t, server, base, 'continuation-flood', async (g) => {
    await runCases(g, [
      {
        name: '16 KiB CONTINUATION frames past the header list limit',
        attack: async (c) => {
          c.write(headers(1, versionBlock(), { endHeaders: false }));
          const chunk = continuation(1, literal('x-a', 'a'.repeat(16_000)));
          for (let i = 0; i < 2000 && !c.closed; i++) {
            c.write(chunk);
            if (i % 50 === 0) await sleep(0);
          }
        },
        expect: {
          goaway: [
            ErrorCode.COMPRESSION_ERROR,
            ErrorCode.ENHANCE_YOUR_CALM,
            ErrorCode.PROTOCOL_ERROR,
            ErrorCode.INTERNAL_ERROR,
          ],
          closeOk: true,
        },
      },
      {
        name: '20,000 empty CONTINUATION frames',
        attack: (c) => {
          const burst = [headers(1, versionBlock(), { endHeaders: false })];
          for (let i = 0; i < 20_000; i++) burst.push(continuation(1, Buffer.alloc(0)));
          c.write(Buffer.concat(burst));
        },
        expect: {
          goaway: [ErrorCode.INTERNAL_ERROR, ErrorCode.ENHANCE_YOUR_CALM, ErrorCode.PROTOCOL_ERROR],
          closeOk: true,
        },
      },
      {
        name: 'CONTINUATION on another stream',
        attack: (c) =>
          c.write(headers(1, versionBlock(), { endHeaders: false }), continuation(3, Buffer.alloc(0), true)),
        expect: { goaway: [ErrorCode.PROTOCOL_ERROR] },
      },
      {
        name: 'CONTINUATION without HEADERS',
        attack: (c) => c.write(continuation(1, versionBlock(), true)),
        expect: { goaway: [ErrorCode.PROTOCOL_ERROR] },
      },
    ]);
  });
});

test('control-frame floods: PING, SETTINGS, WINDOW_UPDATE, PRIORITY, RST_STREAM, empty DATA', async (t) => {
  await group(t, server, base, 'control-floods', async (g) => {
    const flood = (f: Buffer, n = 20_000) => Buffer.concat(Array.from({ length: n }, () => f));
    const postBlock = headerBlock(
      requestFields('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
        ...auth,
        'content-type': 'application/json',
      }),
    );
    await runCases(g, [
      {
        // A client that does not read: the ACKs queue until nghttp2's outbound limit ends it.
        name: 'PING flood, not reading',
        attack: async (c) => {
          c.socket.pause();
          c.write(flood(ping()));
          await sleep(300);
          c.socket.resume();
        },
        expect: { survives: true },
      },
      {
        name: 'SETTINGS flood',
        attack: (c) => void c.write(flood(settings([[0x3, 100]]))),
        expect: { goaway: [ErrorCode.INTERNAL_ERROR, ErrorCode.ENHANCE_YOUR_CALM], closeOk: true },
      },
      {
        name: 'WINDOW_UPDATE flood',
        attack: (c) => void c.write(flood(windowUpdate(0, 1))),
        expect: { survives: true },
      },
      {
        name: 'WINDOW_UPDATE past 2^31-1',
        attack: (c) => void c.write(windowUpdate(0, 0x7fffffff)),
        expect: { goaway: [ErrorCode.FLOW_CONTROL_ERROR] },
      },
      {
        name: 'WINDOW_UPDATE of 0',
        attack: (c) => void c.write(windowUpdate(0, 0)),
        expect: { goaway: [ErrorCode.PROTOCOL_ERROR] },
      },
      {
        name: 'PRIORITY flood on idle streams',
        attack: (c) => void c.write(Buffer.concat(Array.from({ length: 20_000 }, (_, i) => priority(1 + 2 * i, 0)))),
        expect: { goaway: [ErrorCode.ENHANCE_YOUR_CALM], closeOk: true },
      },
      {
        name: 'RST_STREAM on an idle stream',
        attack: (c) => void c.write(rstStream(1)),
        expect: { goaway: [ErrorCode.PROTOCOL_ERROR] },
      },
      {
        name: 'RST_STREAM flood on one stream',
        attack: (c) => void c.write(headers(1, postBlock, { endStream: false }), flood(rstStream(1))),
        expect: {
          goaway: [ErrorCode.INTERNAL_ERROR, ErrorCode.ENHANCE_YOUR_CALM, ErrorCode.PROTOCOL_ERROR],
          closeOk: true,
        },
      },
      {
        name: 'empty DATA flood',
        attack: (c) => void c.write(headers(1, postBlock, { endStream: false }), flood(data(1, ''))),
        expect: {
          goaway: [ErrorCode.INTERNAL_ERROR, ErrorCode.ENHANCE_YOUR_CALM, ErrorCode.PROTOCOL_ERROR],
          closeOk: true,
        },
      },
    ]);
  });
});

test('HPACK: invalid encodings end the session with COMPRESSION_ERROR; a bomb is a stream error', async (t) => {
  await group(t, server, base, 'hpack', async (g) => {
    const invalid: Case[] = Object.entries(badHpack).map(([name, block]) => ({
      name,
      attack: (c) =>
        void c.write(headers(1, name === 'badHuffmanPadding' ? Buffer.concat([versionBlock(), block]) : block)),
      expect: { goaway: [ErrorCode.COMPRESSION_ERROR] },
    }));
    // One 4,000-byte entry added to the dynamic table, then referenced 1,000 times (4 MB decoded
    // from 5 KB): past SETTINGS_MAX_HEADER_LIST_SIZE, the stream is reset, the session lives.
    const big = 'b'.repeat(4000);
    const entry = Buffer.concat([
      Buffer.from([0x40]),
      hpackInt(5, 7),
      Buffer.from('x-big'),
      hpackInt(big.length, 7),
      Buffer.from(big),
    ]);
    const bomb: Case = {
      name: 'HPACK bomb',
      attack: (c) => void c.write(headers(1, Buffer.concat([versionBlock(), entry, Buffer.alloc(1000, 0xbe)]))),
      expect: { rst: [ErrorCode.ENHANCE_YOUR_CALM, ErrorCode.PROTOCOL_ERROR], survives: true },
    };
    await runCases(g, [...invalid, bomb]);
  });
});

test('pseudo-headers and connection-specific headers: a stream error, the session lives', async (t) => {
  await group(t, server, base, 'pseudo-headers', async (g) => {
    const streamError = (name: string, fields: [string, string][]): Case => ({
      name,
      attack: (c) => void c.write(headers(1, headerBlock(fields))),
      expect: { rst: [ErrorCode.PROTOCOL_ERROR], survives: true },
    });
    const req = requestFields('GET', '/version', auth);
    await runCases(g, [
      streamError(
        'missing :path',
        req.filter(([n]) => n !== ':path'),
      ),
      streamError(
        'missing :method',
        req.filter(([n]) => n !== ':method'),
      ),
      streamError(
        'missing :scheme',
        req.filter(([n]) => n !== ':scheme'),
      ),
      streamError('empty :path', [...req.filter(([n]) => n !== ':path'), [':path', '']]),
      streamError('duplicate :path', [...req, [':path', '/healthz']]),
      streamError('duplicate :method', [[':method', 'GET'], ...req]),
      streamError('unknown pseudo-header', [...req, [':foo', 'x']]),
      streamError('response pseudo-header in a request', [...req, [':status', '200']]),
      streamError('pseudo-header after a regular header', [
        [':method', 'GET'],
        ['x-a', '1'],
        [':scheme', 'https'],
        [':path', '/version'],
      ]),
      streamError('upper-case header name', [...req, ['X-Upper', '1']]),
      streamError('connection header', [...req, ['connection', 'keep-alive']]),
      streamError('transfer-encoding header', [...req, ['transfer-encoding', 'chunked']]),
      streamError('upgrade header', [...req, ['upgrade', 'websocket']]),
      streamError('keep-alive header', [...req, ['keep-alive', 'timeout=5']]),
      streamError('te other than trailers', [...req, ['te', 'gzip']]),
    ]);
    // Fields nghttp2 calls invalid but Node drops instead of resetting the stream (its
    // on_invalid_header callback): the request is served without them, so nothing of them reaches
    // the chain or a response (no injection). Go's server resets such a stream (PROTOCOL_ERROR).
    const dropped = (name: string, field: [string, string]): Case => ({
      name,
      attack: async (c) => {
        c.write(headers(1, headerBlock([...req, field, ['accept', 'application/json']])));
        const r = await c.response(1);
        assert.equal(r.status, 200, name);
        assert.ok(!r.body.toString('latin1').includes('injected'), name);
      },
      expect: { survives: true },
    });
    await runCases(g, [
      dropped('space in a header name', ['x a', '1']),
      dropped('CR LF in a header value', ['x-a', 'a\r\nx-injected: 1']),
      dropped('NUL in a header value', ['x-a', 'a\0injected']),
      dropped('CR LF in the Authorization value', ['authorization', `Bearer ${adminToken}\r\nx-injected: 1`]),
    ]);
  });
});

test('stream ids and frames on closed or idle streams', async (t) => {
  await group(t, server, base, 'stream-ids', async (g) => {
    const served = async (c: RawH2, id: number) => {
      c.request(id, 'GET', '/version', auth);
      assert.equal((await c.response(id)).status, 200);
    };
    await runCases(g, [
      {
        name: 'even stream id',
        attack: (c) => c.request(2, 'GET', '/version', auth),
        expect: { goaway: [ErrorCode.PROTOCOL_ERROR] },
      },
      {
        name: 'HEADERS on stream 0',
        attack: (c) => void c.write(headers(0, versionBlock())),
        expect: { goaway: [ErrorCode.PROTOCOL_ERROR] },
      },
      {
        name: 'DATA on stream 0',
        attack: (c) => void c.write(data(0, 'x')),
        expect: { goaway: [ErrorCode.PROTOCOL_ERROR] },
      },
      {
        name: 'DATA on an idle stream',
        attack: (c) => void c.write(data(7, 'x')),
        expect: { goaway: [ErrorCode.PROTOCOL_ERROR] },
      },
      {
        name: 'PUSH_PROMISE from a client',
        attack: (c) => void c.write(frame(FrameType.PUSH_PROMISE, Flags.END_HEADERS, 1, Buffer.alloc(4))),
        expect: { goaway: [ErrorCode.PROTOCOL_ERROR] },
      },
      {
        name: 'unsolicited SETTINGS ACK',
        attack: (c) => void c.write(settings([], true)),
        expect: { goaway: [ErrorCode.PROTOCOL_ERROR] },
      },
      {
        name: 'SETTINGS_INITIAL_WINDOW_SIZE past 2^31-1',
        attack: (c) => void c.write(settings([[0x4, 0x80000000]])),
        expect: { goaway: [ErrorCode.FLOW_CONTROL_ERROR] },
      },
      {
        name: 'frame larger than SETTINGS_MAX_FRAME_SIZE',
        attack: (c) => void c.write(frame(FrameType.DATA, 0, 1, Buffer.alloc(300_000))),
        expect: { goaway: [ErrorCode.FRAME_SIZE_ERROR] },
      },
      // Frames on a stream the server closed are ignored (RFC 9113 §5.1 allows it for a while);
      // a lower stream id than one used is a closed stream too. The session goes on.
      {
        name: 'DATA on a closed stream',
        attack: async (c) => (await served(c, 1), c.write(data(1, 'x'))),
        expect: { survives: true },
      },
      {
        name: 'WINDOW_UPDATE on a closed stream',
        attack: async (c) => (await served(c, 1), c.write(windowUpdate(1, 100))),
        expect: { survives: true },
      },
      {
        name: 'RST_STREAM on a closed stream',
        attack: async (c) => (await served(c, 1), c.write(rstStream(1))),
        expect: { survives: true },
      },
      {
        name: 'unknown frame type',
        attack: (c) => void c.write(frame(0x42, 0, 1, Buffer.alloc(10))),
        expect: { survives: true },
      },
      {
        name: 'HEADERS on a lower stream id than one used',
        attack: async (c) => {
          await served(c, 5);
          c.request(1, 'GET', '/version', auth);
          await sleep(100);
          c.request(7, 'GET', '/version', auth);
          assert.equal((await c.response(7)).status, 200);
          assert.equal(c.streams.get(1)?.status, undefined);
          assert.equal(c.goaway, undefined);
        },
        // The attack checks it all: stream 1 is ignored, stream 7 is served on the same session.
        expect: {},
      },
    ]);
  });
});

test('oversized header blocks: 431-class stream errors or this session only', async (t) => {
  await group(t, server, base, 'oversized-headers', async (g) => {
    /** A header block split into CONTINUATION frames of 200 KB. */
    const split = (block: Buffer): Buffer => {
      const parts = [headers(1, block.subarray(0, 200_000), { endHeaders: block.length <= 200_000 })];
      for (let o = 200_000; o < block.length; o += 200_000)
        parts.push(continuation(1, block.subarray(o, o + 200_000), o + 200_000 >= block.length));
      return Buffer.concat(parts);
    };
    const req = requestFields('GET', '/version', auth);
    const many = (n: number, size: number) => [
      ...req,
      ...Array.from({ length: n }, (_, i) => [`x-h${i}`, 'v'.repeat(size)] as [string, string]),
    ];
    await runCases(g, [
      // Under the 1 MiB limit in fields of 16 KB: served.
      {
        name: '48 fields of 16 KB (768 KB)',
        attack: (c) => void c.write(split(headerBlock(many(48, 16_000)))),
        expect: { survives: true },
      },
      // Past the limit in fields nghttp2 accepts: the stream is reset, the session lives.
      {
        name: '80 fields of 16 KB (1.28 MB)',
        attack: (c) => void c.write(split(headerBlock(many(80, 16_000)))),
        expect: { rst: [ErrorCode.ENHANCE_YOUR_CALM, ErrorCode.PROTOCOL_ERROR], survives: true },
      },
      {
        name: '10,000 small fields',
        attack: (c) => void c.write(split(headerBlock(many(10_000, 1)))),
        expect: { rst: [ErrorCode.ENHANCE_YOUR_CALM, ErrorCode.PROTOCOL_ERROR], survives: true },
      },
      // One field over nghttp2's 64 KiB field limit (NGHTTP2_HD_MAX_NV): the session ends with
      // COMPRESSION_ERROR (Go would accept up to the list limit, or answer 431).
      {
        name: 'one 900 KB field',
        attack: (c) => void c.write(split(headerBlock([...req, ['x-big', 'v'.repeat(900_000)]]))),
        expect: { goaway: [ErrorCode.COMPRESSION_ERROR] },
      },
      {
        name: 'one 2 MB field',
        attack: (c) => void c.write(split(headerBlock([...req, ['x-big', 'v'.repeat(2_000_000)]]))),
        expect: { goaway: [ErrorCode.COMPRESSION_ERROR] },
      },
    ]);
  });
});

test("a connection error's GOAWAY reaches a client that is still sending (Go's goAwayTimeout)", async () => {
  // The server ends the session while the client's 2 MB header block is still arriving: closed at
  // once, the client's unread GOAWAY went down with the reset.
  const block = headerBlock([...requestFields('GET', '/version', auth), ['x-big', 'v'.repeat(2_000_000)]]);
  const parts = [headers(1, block.subarray(0, 200_000), { endHeaders: false })];
  for (let o = 200_000; o < block.length; o += 200_000)
    parts.push(continuation(1, block.subarray(o, o + 200_000), o + 200_000 >= block.length));
  const attack = Buffer.concat(parts);
  for (let i = 0; i < 5; i++) {
    const c = await connect();
    try {
      c.write(attack);
      await c.until(() => c.goaway !== undefined || c.closed, 5000);
      assert.equal(c.goaway?.code, ErrorCode.COMPRESSION_ERROR, `attempt ${i + 1}: closed ${c.closed} without GOAWAY`);
    } finally {
      c.close();
    }
  }
  assert.equal((await h2Get(server.port, '/version', auth)).status, 200);
});
