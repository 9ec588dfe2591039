// Operational faults with a real load client against the real CLI in a child process:
// - SIGTERM while 16 connections (8 HTTP/1.1, 8 HTTP/2, token-authenticated) are sending and 25
//   more are silent, half-open or idle: no in-flight request lost, the graceful-termination
//   sequence of k8s.io/apiserver's RunWithContext holds (signal order, readyz red during
//   --shutdown-delay-duration, drain, listener closed, exit 0), and the silent ones are closed as
//   Go's Shutdown closes them instead of holding the exit to the shutdown timeout;
// - a rolling restart with --permit-port-sharing under the same load: zero failed requests for a
//   client that reconnects and retries as client-go does.
// Bounded: request counts and every wait are capped.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openIdleConnections, percentile, runLoad, summarize } from './load-client.ts';
import type { IdleConnection, IdleKind, LoadOptions, LoadResult, RequestRecord } from './load-client.ts';
import { freePort, gracefulEvents, killAll, probe, startServer, tokenFile, waitServed, type Probe } from './operational-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-ops-'));
after(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

const token = 'ops-load-token-0123456789';
const tokens = tokenFile(dir, token);
const auth = { authorization: `Bearer ${token}` };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The exit code, or 'timeout' after `ms` (the timer does not hold the test process). */
function exitWithin(exit: Promise<number | null>, ms: number): Promise<number | null | 'timeout'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), ms)));
  return Promise.race([exit, bound]).finally(() => clearTimeout(timer));
}

/** Mostly /slow (0–240 ms, so requests are in flight at every step), every fourth /version. */
const paths = (w: number, n: number) => (n % 4 === 3 ? '/version' : `/slow?ms=${(n * 37 + w * 11) % 250}`);

/** 8 HTTP/1.1 and 8 HTTP/2 connections. */
async function load16(port: number, signal: AbortSignal, extra: Partial<LoadOptions> = {}): Promise<LoadResult> {
  const common = { port, connections: 8, path: paths, headers: auth, signal, thinkMs: 5, maxRequestsPerWorker: 400, timeoutMs: 10_000, ...extra };
  const [h1, h2] = await Promise.all([runLoad({ ...common, protocol: 'h1', idPrefix: 'h1' }), runLoad({ ...common, protocol: 'h2', idPrefix: 'h2' })]);
  return { records: [...h1.records, ...h2.records], connectionsOpened: h1.connectionsOpened + h2.connectionsOpened, goaways: h2.goaways };
}

/**
 * Refused before the server accepted it: a connection-level error, the id never entered the
 * handler chain, and on HTTP/2 the stream never went out, was refused (REFUSED_STREAM) or lay
 * above a GOAWAY's last-stream-id (RFC 9113 §6.8: not processed, safe to retry).
 */
function refusedBeforeAccepted(r: RequestRecord, accepted: Set<string>): boolean {
  if (r.outcome !== 'conn-error' || accepted.has(r.id)) return false;
  const a = r.attempts.at(-1)!;
  if (r.protocol === 'h1') return ['ECONNREFUSED', 'ECONNRESET', 'EPIPE'].includes(a.error!);
  return a.streamId === undefined || a.error === 'NGHTTP2_REFUSED_STREAM' || (a.goawayLastStreamId !== undefined && a.streamId > a.goawayLastStreamId);
}

const shuttingDown503 = (r: RequestRecord) => r.status === 503 && r.attempts.at(-1)?.retryAfter === '1' && /apiserver is shutting down/.test(r.body ?? '');

function figures(records: RequestRecord[]): string {
  const ok = records.filter((r) => r.outcome === 'ok');
  const p = (x: number) => percentile(ok.map((r) => r.latencyMs), x).toFixed(1);
  return `${records.length} requests, ${ok.length} ok, p50 ${p(50)} ms, p99 ${p(99)} ms; ${JSON.stringify(summarize(records))}`;
}

test('SIGTERM under load (16 connections, HTTP/1.1 + HTTP/2) and with idle ones: no in-flight request lost, the shutdown sequence holds, exit 0', async (t) => {
  const port = await freePort();
  const delay = 1500;
  // The shutdown timeout is --request-timeout: 15 s, so that a connection holding it fails in bounded time.
  const srv = startServer(
    ['--cert-dir', join(dir, 'certs-term'), '--secure-port', String(port), `--shutdown-delay-duration=${delay}ms`, '--request-timeout=15s',
      '--token-auth-file', tokens, '--authorization-mode=AlwaysAllow', '--v=1'],
    { accepted: join(dir, 'accepted-term') },
  );
  await waitServed(srv, port);
  // Not yet a request (Go's StateNew: closed by Shutdown once 5 s old) and idle after one (closed at once).
  const kinds: IdleKind[] = ['tls-fresh', 'tcp-silent', 'slowloris', 'tls-keepalive', 'h2-idle'];
  const held: IdleConnection[] = [];
  for (const kind of kinds) held.push(...(await openIdleConnections(kind, 5, { port, headers: auth })));

  // readyz as a load balancer sees it: a fresh connection every 50 ms until refused.
  const polls: Probe[] = [];
  const polling = (async () => {
    for (let i = 0; i < 200; i++) {
      const p = await probe(port, '/readyz');
      polls.push(p);
      if (p.error === 'ECONNREFUSED') break;
      await sleep(50);
    }
  })();

  const stopLoad = new AbortController();
  const loading = load16(port, stopLoad.signal);
  await sleep(700);
  // At least one green readyz first (bounded: a loaded machine is slow to answer).
  for (let i = 0; i < 100 && !polls.length; i++) await sleep(50);
  const sigAt = Date.now();
  srv.proc.kill('SIGTERM');
  // During the delay window: healthz stays green on a new connection.
  await sleep(delay / 2);
  const healthz = await probe(port, '/healthz');
  const code = await exitWithin(srv.exit, 20_000);
  stopLoad.abort();
  const { records, goaways, connectionsOpened } = await loading;
  await polling;
  assert.equal(code, 0, srv.stderr());
  assert.doesNotMatch(srv.stderr(), /Failed to shutdown server/);

  // The lifecycle signals, in order (RunWithContext, k8s.io/apiserver/pkg/server/genericapiserver.go).
  const events = gracefulEvents(srv.stderr());
  const names = events.map((e) => e.name);
  const order = [
    ['ShutdownInitiated', 'AfterShutdownDelayDuration'],
    ['AfterShutdownDelayDuration', 'NotAcceptingNewRequest'],
    ['PreShutdownHooksStopped', 'NotAcceptingNewRequest'],
    ['NotAcceptingNewRequest', 'HTTPServerStoppedListening'],
    ['NotAcceptingNewRequest', 'InFlightRequestsDrained'],
    ['InFlightRequestsDrained', 'exiting'],
    ['HTTPServerStoppedListening', 'exiting'],
  ];
  for (const [a, b] of order) {
    assert.ok(names.includes(a!) && names.indexOf(a!) < names.indexOf(b!), `${a} before ${b}: ${names.join(', ')}`);
  }
  assert.equal(names.length, 7, names.join(', '));
  const at = Object.fromEntries(events.map((e) => [e.name, e.at])) as Record<string, number>;
  assert.ok(at.ShutdownInitiated! >= sigAt - 5, 'ShutdownInitiated after the signal');
  assert.ok(at.AfterShutdownDelayDuration! - at.ShutdownInitiated! >= delay - 5, 'the --shutdown-delay-duration window');
  assert.ok(at.exiting! >= at.InFlightRequestsDrained!);

  // readyz: green before the signal, red (500 on a new connection) during the delay, refused after.
  const before = polls.filter((p) => p.end < sigAt);
  const window = polls.filter((p) => p.start > at.ShutdownInitiated! + 5 && p.start < at.AfterShutdownDelayDuration! - 5 && !p.error);
  const refusedPolls = polls.filter((p) => p.error);
  assert.ok(before.length > 0 && before.every((p) => p.status === 200), JSON.stringify(before));
  assert.ok(window.length >= 1, `readyz polled during the delay window: ${JSON.stringify(polls)}`);
  assert.ok(window.every((p) => p.status === 500 && /\[-\]shutdown failed: reason withheld/.test(p.body ?? '')), JSON.stringify(window));
  assert.ok(refusedPolls.length > 0, JSON.stringify(polls));
  assert.ok(refusedPolls.every((p) => p.error === 'ECONNREFUSED' && p.end >= at.NotAcceptingNewRequest! - 5), JSON.stringify(refusedPolls));
  assert.ok(polls.filter((p) => p.start > at.HTTPServerStoppedListening! + 5).every((p) => p.error === 'ECONNREFUSED'), JSON.stringify(polls));
  assert.equal(healthz.status, 200, 'healthz stays green during the delay');

  // Every request completed, or was refused before the server accepted it: a connection-level
  // error and its id never entered the handler chain. The 503 "apiserver is shutting down" (a
  // stream racing the GOAWAY, as upstream's WithWaitGroup answers it) is an answer, counted apart.
  const accepted = srv.accepted();
  assert.ok(accepted.size > 0, 'the fixture recorded accepted requests');
  const refused = records.filter((r) => refusedBeforeAccepted(r, accepted));
  const rejected = records.filter(shuttingDown503);
  const lost = records.filter((r) => r.outcome !== 'ok' && !refused.includes(r) && !rejected.includes(r));
  assert.deepEqual(lost, [], `lost requests: ${figures(records)}`);
  for (const r of records.filter((x) => x.outcome === 'ok' && x.path.startsWith('/slow'))) assert.equal(r.body, 'slow done');

  // The load really overlapped each step.
  const ok = records.filter((r) => r.outcome === 'ok');
  assert.ok(ok.length >= 32, figures(records));
  for (const proto of ['h1', 'h2'] as const) {
    assert.ok(ok.some((r) => r.protocol === proto && r.start > at.ShutdownInitiated!), `${proto} served during the delay`);
    assert.ok(
      ok.some((r) => r.protocol === proto && r.start < at.NotAcceptingNewRequest! && r.end > at.NotAcceptingNewRequest!),
      `${proto}: a request in flight at NotAcceptingNewRequest was drained`,
    );
  }
  assert.ok(records.some((r) => r.error === 'ECONNREFUSED' && r.start > at.HTTPServerStoppedListening!), 'new connections refused after the listener closed');
  assert.equal(records.filter((r) => r.error === 'ECONNREFUSED' && r.end < at.NotAcceptingNewRequest!).length, 0, 'no refusal before the listener closed');
  assert.ok(goaways >= 1, 'HTTP/2 sessions got a GOAWAY');

  // The idle ones closed once the server stops accepting; the new ones once 5 s old, not before.
  const closes: Record<string, number[]> = {};
  for (const c of held) {
    assert.ok(c.closedByServerAt !== undefined, `${c.kind} closed by the server`);
    const idle = c.kind === 'tls-keepalive' || c.kind === 'h2-idle';
    if (idle) assert.ok(c.closedByServerAt >= at.NotAcceptingNewRequest! - 5, `${c.kind} closed before the shutdown`);
    else assert.ok(c.closedByServerAt - c.openedAt >= 4800, `${c.kind} closed before it was 5 s old`);
    (closes[c.kind] ??= []).push(Math.round(c.closedByServerAt - (idle ? at.NotAcceptingNewRequest! : c.openedAt)));
  }
  t.diagnostic(`closed by the server, ms after NotAcceptingNewRequest (idle) or after accept (new): ${JSON.stringify(closes)}`);
  t.diagnostic(`SIGTERM: ${figures(records)}; ${refused.length} refused before accepted, ${rejected.length} answered 503; ` +
    `${connectionsOpened} connections; drain ${at.InFlightRequestsDrained! - at.NotAcceptingNewRequest!} ms`);
});

test('rolling restart with --permit-port-sharing under load: zero failed requests for a client-go-like client', async (t) => {
  const port = await freePort();
  const args = ['--cert-dir', join(dir, 'certs-roll'), '--secure-port', String(port), '--permit-port-sharing',
    '--shutdown-delay-duration=500ms', '--token-auth-file', tokens, '--authorization-mode=AlwaysAllow', '--v=1'];
  const t0 = Date.now();
  const steps: string[] = [];
  const step = (what: string) => steps.push(`${what} +${Date.now() - t0}`);
  const a = startServer(args);
  await waitServed(a, port);
  step('old serving');
  const stopLoad = new AbortController();
  const loading = load16(port, stopLoad.signal, { retry: true, maxRequestsPerWorker: 1000 });
  await sleep(300);

  // The new process binds the same port while the old one serves it.
  const b = startServer(args);
  await b.serving;
  step('new serving');
  // Both really accept: new connections are spread over the two processes (SO_REUSEPORT).
  const servedBy = new Set<string | undefined>();
  for (let i = 0; i < 40 && servedBy.size < 2; i++) servedBy.add((await probe(port, '/slow?ms=0', auth)).servedBy);
  assert.deepEqual([...servedBy].sort(), [String(a.pid), String(b.pid)].sort(), 'both processes accept on the shared port');
  step('both seen');

  a.proc.kill('SIGTERM');
  const codeA = await exitWithin(a.exit, 20_000);
  step('old exited');
  await sleep(300);
  stopLoad.abort();
  const { records } = await loading;
  step('load done');
  assert.equal(codeA, 0, a.stderr());
  b.proc.kill('SIGTERM');
  assert.equal(await b.exit, 0, b.stderr());
  step('new exited');

  const failed = records.filter((r) => r.outcome !== 'ok');
  assert.deepEqual(failed, [], figures(records));
  const pids = new Set(records.filter((r) => r.path.startsWith('/slow')).map((r) => r.servedBy));
  assert.ok(pids.has(String(a.pid)) && pids.has(String(b.pid)), 'the load was served by both processes');
  const late = records.filter((r) => r.start > a.exitedAt! && r.path.startsWith('/slow'));
  assert.ok(late.length > 0 && late.every((r) => r.servedBy === String(b.pid)), 'after the old process exited, the new one serves');
  const retried = records.filter((r) => r.attempts.length > 1);
  t.diagnostic(`rolling restart: ${figures(records)}; ${retried.length} retried once (first attempt: ` +
    `${JSON.stringify(summarize(retried.map((r) => ({ ...r, outcome: r.attempts[0]!.outcome, status: r.attempts[0]!.status, error: r.attempts[0]!.error }))))}); ` +
    `steps (ms): ${steps.join(', ')}`);
});
