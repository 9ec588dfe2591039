// 1,000 idle or slow connections against the real CLI (child processes) while a normal client
// runs: the normal client is served, the process stays alive, and the server closes each kind of
// connection by the timeout upstream's http.Server would: ReadHeaderTimeout (32 s) for one that
// has not finished its request headers (the TLS handshake included), IdleTimeout (90 s) for a
// keep-alive connection and for an HTTP/2 session without streams.
// Two servers start side by side: one with upstream's timeouts holds the 1,000 connections (so
// that none is due while they are opened, however slow the machine), one with shortened timeouts
// shows that each kind is closed when it is due. Latency figures are bench/idle-connections.ts'
// job: no timed assertion here.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openIdleConnections, runLoad, summarize, type IdleConnection, type IdleKind } from './load-client.ts';
import { freePort, killAll, probe, startServer, tokenFile, waitServed } from './operational-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-idle-'));
after(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const token = 'ops-idle-token-0123456789';
const auth = { authorization: `Bearer ${token}` };

test('1,000 idle and slow connections: the normal client is served, the server lives and closes them by its timeouts', async (t) => {
  const tokens = tokenFile(dir, token);
  const args = (port: number, name: string) =>
    ['--cert-dir', join(dir, name), '--secure-port', String(port), '--token-auth-file', tokens, '--authorization-mode=AlwaysAllow'];
  const [portL, portS] = [await freePort(), await freePort()];
  const headersTimeout = 3000;
  const idleTimeout = 4000;
  const upstream = startServer(args(portL, 'certs-l'));
  const short = startServer(args(portS, 'certs-s'), {
    env: { EDGE_APISERVER_TEST_HEADERS_TIMEOUT_MS: String(headersTimeout), EDGE_APISERVER_TEST_IDLE_TIMEOUT_MS: String(idleTimeout) },
  });
  await Promise.all([waitServed(upstream, portL), waitServed(short, portS)]);

  // kind, count on the upstream-timeouts server, the timeout that closes it: 90 s ones first.
  const mix: [IdleKind, number, number][] = [
    ['tls-keepalive', 250, idleTimeout],
    ['h2-idle', 250, idleTimeout],
    ['slowloris', 200, headersTimeout],
    ['tls-fresh', 250, headersTimeout],
    ['tcp-silent', 50, headersTimeout],
  ];
  const upstreamTimeout = (kind: IdleKind) => (mix.find((m) => m[0] === kind)![2] === idleTimeout ? 90_000 : 32_000);

  // The short-timeout server: 40 of each kind, left to be closed while the big test runs.
  const dueShort: IdleConnection[] = [];
  for (const [kind] of mix) dueShort.push(...(await openIdleConnections(kind, 40, { port: portS, trickleMs: 500, headers: auth })));

  // The 1,000, held open.
  const opening = performance.now();
  const held: IdleConnection[] = [];
  for (const [kind, n] of mix) held.push(...(await openIdleConnections(kind, n, { port: portL, trickleMs: 1000, headers: auth })));
  const openMs = performance.now() - opening;
  assert.equal(held.length, 1000);

  // The normal client: one HTTP/2 and one HTTP/1.1 connection, authenticated, for about a second.
  const stop = new AbortController();
  const bound = setTimeout(() => stop.abort(), 1000);
  const common = { port: portL, connections: 1, path: () => '/version', headers: auth, signal: stop.signal, maxRequestsPerWorker: 200 };
  const [h2, h1] = await Promise.all([runLoad({ ...common, protocol: 'h2' }), runLoad({ ...common, protocol: 'h1' })]);
  clearTimeout(bound);
  const normal = [...h2.records, ...h1.records];
  const heldDuring = held.filter((c) => c.closedByServerAt === undefined).length;
  t.diagnostic(`opened 1,000 in ${openMs.toFixed(0)} ms; ${heldDuring} held while the normal client sent ${normal.length} requests ` +
    `(${JSON.stringify(summarize(normal))})`);
  assert.ok(normal.length >= 10 && normal.every((r) => r.outcome === 'ok'), JSON.stringify(summarize(normal)));
  assert.equal((await probe(portL, '/healthz')).status, 200);
  // None closed before upstream's timeout for its kind.
  const early = held.filter((c) => c.closedByServerAt !== undefined && c.closedByServerAt - c.openedAt < upstreamTimeout(c.kind) - 1100);
  assert.deepEqual(early.map((c) => c.kind), [], 'closed before upstream would');
  for (const c of held) c.close();

  // The short-timeout server closed each of its connections when due (Node's HTTP/1 connection
  // checker runs every second: up to 1 s late, and a little early by its clock).
  const deadline = Date.now() + idleTimeout + 6000;
  while (dueShort.some((c) => c.closedByServerAt === undefined) && Date.now() < deadline) await sleep(100);
  const byKind: Record<string, { open: number; early: number; late: number; minMs: number; maxMs: number }> = {};
  for (const [kind, , timeout] of mix) {
    const lived = dueShort.filter((c) => c.kind === kind && c.closedByServerAt !== undefined).map((c) => c.closedByServerAt! - c.openedAt);
    byKind[kind] = {
      open: 40 - lived.length,
      early: lived.filter((ms) => ms < timeout - 1100).length,
      // Node adds a 1 s buffer to keepAliveTimeout; the rest is the checker and a loaded machine.
      late: lived.filter((ms) => ms > timeout + 5000).length,
      minMs: Math.round(Math.min(...lived)),
      maxMs: Math.round(Math.max(...lived)),
    };
  }
  for (const c of dueShort) c.close();
  t.diagnostic(`closed by the server with ReadHeaderTimeout ${headersTimeout} ms, IdleTimeout ${idleTimeout} ms: ${JSON.stringify(byKind)}`);
  for (const [kind, k] of Object.entries(byKind)) {
    assert.equal(k.open, 0, `${kind}: every connection closed by the server (${JSON.stringify(k)})`);
    assert.equal(k.early, 0, `${kind}: none closed before its timeout (${JSON.stringify(k)})`);
    assert.equal(k.late, 0, `${kind}: none left open long after its timeout (${JSON.stringify(k)})`);
  }

  // Both alive and serving; a clean exit.
  for (const [srv, port] of [[upstream, portL], [short, portS]] as const) {
    assert.equal(srv.proc.exitCode, null);
    assert.equal((await probe(port, '/version', auth)).status, 200);
    srv.proc.kill('SIGTERM');
  }
  assert.equal(await upstream.exit, 0, upstream.stderr());
  assert.equal(await short.exit, 0, short.stderr());
});
