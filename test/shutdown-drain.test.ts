// The chain during run()'s graceful shutdown (k8s.io/apiserver/pkg/server/genericapiserver.go): in-flight
// non-long-running requests are drained through WithWaitGroup; new ones get the 503 (default
// mode) or the 429 (--shutdown-send-retry-after); health paths stay exempt; watches are drained
// up to the grace period through WithWatchTerminationDuringShutdown.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { complete, newConfig, newServer, newEmptyDelegate, notFoundHandler, type Config } from '../src/index.ts';
import { serverShutdownSignalFrom } from '../src/filters/watch-termination.ts';
import { discardLogger } from '../src/util/logger.ts';

function setup(overrides: Partial<Config>) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const config = newConfig({ logger: discardLogger, ...overrides });
  config.routeInstallers.push((s) => {
    s.handler.nonGoRestfulMux.handle('/slow', async () => {
      await released;
      return new Response('slow done');
    });
    s.handler.nonGoRestfulMux.handle('/fast', () => new Response('fast'));
    // A "watch": resource-shaped path with ?watch=1 is routed to the mux's prefix handler below.
    s.handler.nonGoRestfulMux.handlePrefix('/api/', (ctx) => {
      const stop = serverShutdownSignalFrom(ctx);
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"type":"ADDED"}\n'));
          void stop?.signaled.then(() => c.close());
        },
      });
      return new Response(body);
    });
  });
  const server = newServer(complete(config), 'drain', newEmptyDelegate(notFoundHandler));
  const fetch = (path: string, ua?: string) =>
    server.fetch(new Request('https://h' + path, ua ? { headers: { 'user-agent': ua } } : {}));
  return { server, release, fetch, signals: config.lifecycleSignals };
}

test('shutdown (default mode): in-flight requests drain, new ones get the 503, health stays up', async () => {
  const { server, release, fetch, signals } = setup({});
  const stop = new AbortController();
  const running = server.run({ signal: stop.signal });
  const slow = fetch('/slow');
  await new Promise((r) => setTimeout(r, 10));
  stop.abort();
  await signals.NotAcceptingNewRequest.signaled;
  const refused = await fetch('/fast');
  assert.equal(refused.status, 503);
  assert.equal(
    await refused.text(),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"apiserver is shutting down","reason":"ServiceUnavailable","code":503}\n\n',
  );
  assert.equal((await fetch('/healthz')).status, 200);
  assert.equal((await fetch('/fast', 'kube-apiserver/v1.34.0 (linux/amd64) kubernetes/abc')).status, 200);
  // Not drained while /slow is in flight.
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(signals.InFlightRequestsDrained.hasFired, false);
  release();
  assert.equal(await (await slow).text(), 'slow done');
  await running;
  assert.equal(signals.InFlightRequestsDrained.hasFired, true);
});

test('shutdown (--shutdown-send-retry-after): the 429 with Retry-After: 5 once not accepting', async () => {
  const { server, release, fetch, signals } = setup({ shutdownSendRetryAfter: true });
  const stop = new AbortController();
  const running = server.run({ signal: stop.signal });
  const slow = fetch('/slow');
  await new Promise((r) => setTimeout(r, 10));
  stop.abort();
  await signals.NotAcceptingNewRequest.signaled;
  const refused = await fetch('/fast');
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get('retry-after'), '5');
  assert.equal(refused.headers.get('cache-control'), null);
  assert.ok(refused.headers.get('audit-id'));
  assert.equal(await refused.text(), 'The apiserver is shutting down, please try again later.\n');
  assert.equal((await fetch('/readyz/ping')).status, 200);
  release();
  await slow;
  await running;
});

test('shutdown with a watch termination grace period: watches are told to end and drained', async () => {
  const { server, fetch, signals } = setup({ shutdownWatchTerminationGracePeriod: 1_000 });
  const stop = new AbortController();
  const running = server.run({ signal: stop.signal });
  const watch = await fetch('/api/v1/pods?watch=1');
  assert.equal(watch.status, 200);
  const reader = watch.body!.getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), '{"type":"ADDED"}\n');
  assert.equal(server.config.watchRequestWaitGroup.size, 1);
  stop.abort();
  await signals.NotAcceptingNewRequest.signaled;
  // The handler closes its stream on the signal; the group drains once the body is consumed.
  assert.equal((await reader.read()).done, true);
  await running;
  assert.equal(server.config.watchRequestWaitGroup.size, 0);
  // New watches during the drain are refused.
  assert.equal((await fetch('/api/v1/pods?watch=1')).status, 503);
});
