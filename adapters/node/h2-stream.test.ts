// HTTP/2 streams served on Node's core stream API (h2-request.ts, h2-response.ts) over real
// sockets: what the listener refuses before the handler, what a client that goes away does to
// the request's body and signal, and the response shapes (no body, a handler failure) that
// Node's compatibility API and @hono/node-server produce.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeServingListener } from './listener.ts';
import { NodeFileSystem } from './fs.ts';
import { SecureServingOptions } from '../../src/server/options/serving.ts';
import { newConfig } from '../../src/server/config.ts';
import { discardLogger } from '../../src/util/logger.ts';
import { generateSelfSignedCertKey } from '../../src/server/dynamiccertificates/generate.ts';

const { NGHTTP2_CANCEL } = http2.constants;
const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-h2-stream-'));

type Handler = (request: Request) => Response | Promise<Response>;
/** Each test sets the handler the shared listener calls. */
let handler: Handler = () => new Response('unset', { status: 599 });
let listener: NodeServingListener;
let origin: string;

before(async () => {
  const pair = await generateSelfSignedCertKey({ host: '127.0.0.1' });
  writeFileSync(join(dir, 'tls.crt'), pair.cert);
  writeFileSync(join(dir, 'tls.key'), pair.key);
  const o = new SecureServingOptions();
  Object.assign(o, {
    bindAddress: '127.0.0.1',
    certDirectory: '',
    loopback: false,
    certFile: join(dir, 'tls.crt'),
    keyFile: join(dir, 'tls.key'),
  });
  const config = newConfig({ logger: discardLogger });
  await o.applyTo(config, { fileSystem: new NodeFileSystem(), logger: discardLogger, servesTLS: true });
  listener = new NodeServingListener(config.secureServing!, { port: 0, logger: discardLogger });
  // Called as it is: a synchronous answer (WithCORS's preflight, a 4xx from a filter) is written at once.
  await listener.serve((request) => handler(request) as Promise<Response>);
  origin = `https://127.0.0.1:${listener.address().port}`;
});
after(async () => {
  await listener.shutdown(1000);
  rmSync(dir, { recursive: true, force: true });
});

function connect(): http2.ClientHttp2Session {
  const s = http2.connect(origin, { rejectUnauthorized: false });
  s.on('error', () => {});
  return s;
}

interface Answer {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: string;
  informational: number[];
}

/** One request; `body` is written and the stream ended unless `open` is set. */
function request(
  s: http2.ClientHttp2Session,
  headers: http2.OutgoingHttpHeaders,
  body?: string,
  opts: { open?: boolean; endStream?: boolean } = {},
): { stream: http2.ClientHttp2Stream; answer: Promise<Answer> } {
  const stream = s.request(headers, { endStream: opts.endStream ?? (body === undefined && !opts.open) });
  const answer = new Promise<Answer>((resolve, reject) => {
    const informational: number[] = [];
    let head: http2.IncomingHttpHeaders = {};
    let text = '';
    stream.setEncoding('utf8');
    stream.on('headers', (h) => informational.push(Number(h[':status'])));
    stream.on('response', (h) => (head = h));
    stream.on('data', (c: string) => (text += c));
    stream.on('end', () => resolve({ status: Number(head[':status']), headers: head, body: text, informational }));
    stream.on('error', reject);
  });
  if (body !== undefined) {
    if (opts.open) stream.write(body);
    else stream.end(body);
  }
  return { stream, answer };
}

/** The server still answers on a fresh connection (nothing above crashed or wedged it). */
async function stillServing(): Promise<void> {
  handler = () => new Response('ok');
  const s = connect();
  try {
    const r = await request(s, { ':path': '/healthz' }).answer;
    assert.equal(r.body, 'ok');
  } finally {
    s.close();
  }
}

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

test('refused before the handler: CONNECT 405, an unknown expectation 417, a request target that is no URL 400', async () => {
  let called = 0;
  handler = () => {
    called++;
    return new Response('reached');
  };
  const s = connect();
  try {
    const connectMethod = await request(s, { ':method': 'CONNECT', ':authority': 'example.com:443' }, undefined, {
      open: true,
      endStream: false,
    }).answer.catch(() => undefined);
    // Node's client may reset a CONNECT stream after its answer; the status is what matters.
    assert.ok(connectMethod === undefined || connectMethod.status === 405, `CONNECT: ${connectMethod?.status}`);
    const expect = await request(s, { ':path': '/x', ':method': 'POST', expect: 'foo' }, 'body').answer;
    assert.equal(expect.status, 417);
    assert.equal(expect.body, '');
    // nghttp2 itself resets streams whose :path or :authority is malformed; they never reach the listener.
    for (const bad of [{ ':path': 'https://127.0.0.1/x' }, { ':path': '/x', ':authority': '' }]) {
      await assert.rejects(request(s, bad).answer, { code: 'ERR_HTTP2_STREAM_ERROR' }, JSON.stringify(bad));
    }
    // What passes nghttp2 but is no URL (a port out of range, a backslash in the path) is 400 without a body.
    for (const bad of [{ ':path': '/x', ':authority': 'a:99999' }, { ':path': '/x\\y' }]) {
      const r = await request(s, bad).answer;
      assert.deepEqual([r.status, r.body], [400, ''], JSON.stringify(bad));
    }
    assert.equal(called, 0);
    // Expect: 100-continue is answered 100, then the handler's response.
    handler = async (r) => new Response(`got ${await r.text()}`);
    const cont = await request(s, { ':path': '/x', ':method': 'POST', expect: '100-continue' }, 'it').answer;
    assert.deepEqual(cont.informational, [100]);
    assert.equal(cont.status, 200);
    assert.equal(cont.body, 'got it');
  } finally {
    s.close();
  }
  await stillServing();
});

test('the handler sees method, URL, joined headers and the body; the Request is a real Request for everything else', async () => {
  let seen: Record<string, unknown> = {};
  handler = async (r) => {
    seen = {
      instance: r instanceof Request,
      method: r.method,
      url: r.url,
      accept: r.headers.get('Accept'),
      cookie: r.headers.get('cookie'),
      missing: r.headers.get('x-missing'),
      // Deleted as the authentication filter deletes Authorization: gone for every later reader.
      deleted: (r.headers.delete('Authorization'), [r.headers.get('authorization'), r.headers.has('authorization')]),
      names: [...r.headers.keys()].filter((k) => k.startsWith('x-') || k === 'authorization'),
      redirect: r.redirect,
      body: await r.clone().text(),
      again: await r.text(),
    };
    return new Response(null, { status: 204 });
  };
  const s = connect();
  try {
    const r = await request(
      s,
      {
        ':path': '/a/b?c=d',
        ':method': 'patch',
        accept: ['application/json', 'text/plain'],
        cookie: ['a=1', 'b=2'],
        'x-one': '1',
        authorization: 'Bearer secret',
      },
      '{"x":1}',
    ).answer;
    assert.equal(r.status, 204);
    assert.deepEqual(seen, {
      instance: true,
      // fetch upper-cases only the methods it normalises; PATCH is not one of them.
      method: 'patch',
      url: `${origin}/a/b?c=d`,
      accept: 'application/json, text/plain',
      cookie: 'a=1; b=2',
      missing: null,
      deleted: [null, false],
      names: ['x-one'],
      redirect: 'follow',
      body: '{"x":1}',
      again: '{"x":1}',
    });
  } finally {
    s.close();
  }
});

test('a client that goes away mid-body: the body read fails (it does not end short), the signal is aborted', async () => {
  const outcome = deferred<{ read: string; aborted: boolean }>();
  const reading = deferred();
  handler = async (r) => {
    const reader = r.body!.getReader();
    await reader.read();
    reading.resolve();
    let read = 'ended';
    try {
      while (!(await reader.read()).done);
    } catch {
      read = 'failed';
    }
    // The close handler aborts the signal on the same 'close' event; give it that turn.
    await new Promise((resolve) => setImmediate(resolve));
    outcome.resolve({ read, aborted: r.signal.aborted });
    return new Response('late');
  };
  // The connection drops (a client that resets its stream with RST_STREAM ends its body first).
  const s = connect();
  const { answer } = request(s, { ':path': '/upload', ':method': 'POST' }, 'first chunk', { open: true });
  answer.catch(() => {});
  await reading.promise;
  s.destroy();
  assert.deepEqual(await outcome.promise, { read: 'failed', aborted: true });
  await stillServing();
});

test('a client that resets mid-response: the streamed body is cancelled, the signal aborted', async () => {
  const cancelled = deferred<unknown>();
  const started = deferred();
  let signal: AbortSignal | undefined;
  handler = (r) => {
    signal = r.signal;
    let n = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        c.enqueue(new TextEncoder().encode(`line ${n++}\n`));
        if (n === 1) started.resolve();
        await new Promise((resolve) => setTimeout(resolve, 5));
      },
      cancel(reason) {
        cancelled.resolve(reason);
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/plain' } });
  };
  const s = connect();
  try {
    const { stream, answer } = request(s, { ':path': '/watch' });
    answer.catch(() => {});
    await started.promise;
    stream.close(NGHTTP2_CANCEL);
    await cancelled.promise;
    assert.equal(signal?.aborted, true);
  } finally {
    s.close();
  }
  await stillServing();
});

test('a request body the handler never reads: the response arrives whole, then the stream is reset with NO_ERROR', async () => {
  for (const [name, answer] of [
    ['a body, asynchronously', () => Promise.resolve(new Response('refused early', { status: 413 }))],
    ['no body, synchronously', () => new Response(null, { status: 413 })],
  ] as const) {
    handler = answer;
    const s = connect();
    try {
      const { stream, answer } = request(s, { ':path': '/upload', ':method': 'PUT' }, 'x'.repeat(1000), {
        open: true,
      });
      const closed = new Promise<number>((resolve) => stream.once('close', () => resolve(stream.rstCode)));
      const r = await answer;
      assert.equal(r.status, 413, name);
      assert.equal(r.body, name.startsWith('a body') ? 'refused early' : '', name);
      assert.equal(await closed, http2.constants.NGHTTP2_NO_ERROR, name);
    } finally {
      s.close();
    }
  }
  await stillServing();
});

test('a synchronous answer without a body to a request without one (a CORS preflight) is not reset', async () => {
  handler = () => new Response(null, { status: 204, headers: { 'access-control-allow-origin': 'https://a.example' } });
  const s = connect();
  try {
    const { stream, answer } = request(s, { ':path': '/apis', ':method': 'OPTIONS' });
    const closed = new Promise<number>((resolve) => stream.once('close', () => resolve(stream.rstCode)));
    const r = await answer;
    assert.deepEqual([r.status, r.headers['access-control-allow-origin']], [204, 'https://a.example']);
    assert.equal(await closed, http2.constants.NGHTTP2_NO_ERROR);
  } finally {
    s.close();
  }
});

test('HEAD, 204 and 304 carry no body; Content-Length and the default content type as @hono/node-server sets them', async () => {
  handler = (r) => {
    const path = new URL(r.url).pathname;
    if (path === '/204') return new Response(null, { status: 204 });
    if (path === '/304') return new Response('ignored', { status: 304, headers: { etag: '"1"' } });
    return new Response('hello');
  };
  const s = connect();
  try {
    const head = await request(s, { ':path': '/x', ':method': 'HEAD' }).answer;
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers['content-length'], '5');
    assert.equal(head.headers['content-type'], 'text/plain; charset=UTF-8');
    const get = await request(s, { ':path': '/x' }).answer;
    assert.equal(get.body, 'hello');
    assert.equal(get.headers['content-length'], '5');
    assert.match(String(get.headers.date), /GMT$/);
    const noContent = await request(s, { ':path': '/204' }).answer;
    assert.deepEqual([noContent.status, noContent.body, noContent.headers['content-type']], [204, '', undefined]);
    const notModified = await request(s, { ':path': '/304' }).answer;
    assert.deepEqual([notModified.status, notModified.body, notModified.headers.etag], [304, '', '"1"']);
  } finally {
    s.close();
  }
});

test('a handler that throws or rejects is 500 without a body; a body that fails after HEADERS resets the stream', async () => {
  handler = (r) => {
    const path = new URL(r.url).pathname;
    if (path === '/throw') throw new Error('boom');
    if (path === '/reject') return Promise.reject(new Error('boom'));
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('partial'));
      },
      pull(c) {
        c.error(new Error('source failed'));
      },
    });
    return new Response(body);
  };
  const s = connect();
  try {
    for (const path of ['/throw', '/reject']) {
      const r = await request(s, { ':path': path }).answer;
      assert.deepEqual([r.status, r.body], [500, ''], path);
    }
    await assert.rejects(request(s, { ':path': '/fails-late' }).answer);
  } finally {
    s.close();
  }
  await stillServing();
});
