// A watch-style streamed response through the full chain and the Node listener over HTTP/2:
// HTTP/1 hop-by-hop headers a handler may set (Hono's streaming helpers set Transfer-Encoding and
// Connection) must not reach HTTP/2 (Node rejects them and the process dies).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { complete, newConfig, newServer, newEmptyDelegate, notFoundHandler } from '../src/index.ts';
import { discardLogger } from '../src/util/logger.ts';
import { SecureServingOptions } from '../src/server/options/serving.ts';
import { NodeServingListener } from '../adapters/node/listener.ts';
import { NodeFileSystem } from '../adapters/node/fs.ts';

test('HTTP/2: a streamed watch response keeps flowing and carries no hop-by-hop headers', async () => {
  const config = newConfig({ logger: discardLogger });
  let push!: ReadableStreamDefaultController<Uint8Array>;
  config.routeInstallers.push((s) => {
    s.handler.nonGoRestfulMux.handlePrefix(
      '/api/',
      () =>
        new Response(new ReadableStream<Uint8Array>({ start: (c) => void (push = c) }), {
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', connection: 'keep-alive' },
        }),
    );
  });
  const o = new SecureServingOptions();
  Object.assign(o, { bindAddress: '127.0.0.1', certDirectory: '' });
  await o.applyTo(config, { fileSystem: new NodeFileSystem(), logger: discardLogger, servesTLS: true });
  const server = newServer(complete(config), 'h2-stream', newEmptyDelegate(notFoundHandler));
  server.prepareRun();
  const listener = new NodeServingListener(config.secureServing!, { port: 0, logger: discardLogger });
  await listener.serve((req, t) => server.fetch(req, t));
  const client = http2.connect(`https://127.0.0.1:${listener.address().port}`, { rejectUnauthorized: false });
  try {
    const stream = client.request({ ':path': '/api/v1/namespaces/default/pods?watch=1' });
    const headers = await new Promise<http2.IncomingHttpHeaders>((resolve, reject) => {
      stream.once('response', resolve);
      stream.once('error', reject);
    });
    assert.equal(headers[':status'], 200);
    assert.equal(headers['transfer-encoding'], undefined);
    assert.equal(headers['connection'], undefined);
    assert.ok(headers['audit-id']);
    // A watch is long-running: no deadline, the stream keeps flowing.
    const chunks: string[] = [];
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => chunks.push(d));
    push.enqueue(new TextEncoder().encode('{"type":"ADDED"}\n'));
    await new Promise((r) => setTimeout(r, 50));
    push.enqueue(new TextEncoder().encode('{"type":"MODIFIED"}\n'));
    push.close();
    await new Promise((r) => stream.once('end', r));
    assert.equal(chunks.join(''), '{"type":"ADDED"}\n{"type":"MODIFIED"}\n');
  } finally {
    client.close();
    await listener.shutdown(1000);
  }
});
