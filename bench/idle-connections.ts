// `node bench/idle-connections.ts`: a normal client's latency with 1,000 idle or slow connections
// held open against the real CLI (test/node-cli-fixture.ts in its own process, upstream's default
// timeouts: ReadHeaderTimeout 32 s, IdleTimeout 90 s). The normal client is one HTTP/2 and one
// HTTP/1.1 connection sending authenticated GET /version one after the other. Phases:
//   unloaded → 1,000 idle TLS connections (500 HTTP/1.1 keep-alive after a request, 500 HTTP/2
//   sessions without streams) → unloaded again → 1,000 slowloris connections (HTTP/1.1 headers
//   that never end, one header line a second each) → unloaded again.
// A loaded phase stops early when the first held connection is due to be closed by the server.
// Reports p50/p99 per phase and the ratio to the mean of the unloaded runs around it (the machine
// is shared: the baseline is measured on both sides). Target: p99 within 2× of unloaded.
// Not a test: nothing asserts on speed.
//
// Environment: BENCH_IDLE_REQUESTS (requests per connection per phase, default 300),
// BENCH_IDLE_CONNECTIONS (default 1000).

import { loadavg } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openIdleConnections, percentile, runLoad, type IdleConnection, type RequestRecord } from '../test/reliability/load-client.ts';
import { freePort, startServer, tokenFile, waitServed } from '../test/reliability/operational-server.ts';

const requests = Number(process.env.BENCH_IDLE_REQUESTS ?? 300);
const connections = Number(process.env.BENCH_IDLE_CONNECTIONS ?? 1000);
const token = 'bench-idle-token-0123456789';
const auth = { authorization: `Bearer ${token}` };

const dir = mkdtempSync(join(tmpdir(), 'edge-bench-idle-'));
const port = await freePort();
const srv = startServer(['--cert-dir', join(dir, 'certs'), '--secure-port', String(port), '--token-auth-file', tokenFile(dir, token), '--authorization-mode=AlwaysAllow']);
const cleanup = () => {
  srv.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
};
process.on('exit', cleanup);
await waitServed(srv, port);

/** `until`: stop early at this epoch ms (before the first held connection is due to be closed). */
async function normalClient(until?: number): Promise<RequestRecord[]> {
  const stop = new AbortController();
  const signal = stop.signal;
  const timer = until === undefined ? undefined : setTimeout(() => stop.abort(), Math.max(0, until - Date.now()));
  const common = { port, connections: 1, path: () => '/version', headers: auth, signal, maxRequestsPerWorker: requests };
  const [h2, h1] = await Promise.all([runLoad({ ...common, protocol: 'h2' }), runLoad({ ...common, protocol: 'h1' })]);
  clearTimeout(timer);
  const all = [...h2.records, ...h1.records];
  const bad = all.filter((r) => r.outcome !== 'ok');
  if (bad.length) throw new Error(`normal client failed: ${bad.length} of ${all.length}`);
  return all;
}

interface Phase {
  name: string;
  p50: number;
  p99: number;
  n: number;
  load: string;
}
const phases: Phase[] = [];
async function measure(name: string, until?: number): Promise<Phase> {
  const records = await normalClient(until);
  const lat = records.map((r) => r.latencyMs);
  const p = { name, p50: percentile(lat, 50), p99: percentile(lat, 99), n: records.length, load: loadavg().map((x) => x.toFixed(2)).join(' ') };
  phases.push(p);
  console.error(`${name}: p50 ${p.p50.toFixed(2)} ms, p99 ${p.p99.toFixed(2)} ms (${p.n} requests, load ${p.load})`);
  return p;
}

function stillOpen(held: IdleConnection[]): number {
  return held.filter((c) => c.closedByServerAt === undefined).length;
}

await normalClient(); // warm-up
const base1 = await measure('unloaded');

let held = [
  ...(await openIdleConnections('tls-keepalive', connections / 2, { port, headers: auth })),
  ...(await openIdleConnections('h2-idle', connections / 2, { port, headers: auth })),
];
// Upstream's IdleTimeout (90 s) closes them: measure only while all are held.
const idle = await measure(`${connections} idle TLS`, Math.min(...held.map((c) => c.openedAt)) + 89_000);
const idleOpen = stillOpen(held);
for (const c of held) c.close();
await new Promise((r) => setTimeout(r, 500));
const base2 = await measure('unloaded');

held = await openIdleConnections('slowloris', connections, { port, trickleMs: 1000 });
// ReadHeaderTimeout (32 s) closes them: measure only while all are held.
const slow = await measure(`${connections} slowloris`, Math.min(...held.map((c) => c.openedAt)) + 31_000);
const slowOpen = stillOpen(held);
for (const c of held) c.close();
await new Promise((r) => setTimeout(r, 500));
const base3 = await measure('unloaded');

const alive = srv.proc.exitCode === null;
srv.proc.kill('SIGTERM');
const code = await srv.exit;

const ratio = (x: Phase, a: Phase, b: Phase) => ({
  p50: x.p50 / ((a.p50 + b.p50) / 2),
  p99: x.p99 / ((a.p99 + b.p99) / 2),
});
const ri = ratio(idle, base1, base2);
const rs = ratio(slow, base2, base3);
console.log('| phase | p50 ms | p99 ms | p50 ratio | p99 ratio | load average |');
console.log('|---|---|---|---|---|---|');
for (const p of phases) {
  const r = p === idle ? ri : p === slow ? rs : undefined;
  console.log(`| ${p.name} | ${p.p50.toFixed(2)} | ${p.p99.toFixed(2)} | ${r ? r.p50.toFixed(2) + '×' : ''} | ${r ? r.p99.toFixed(2) + '×' : ''} | ${p.load} |`);
}
console.log(`\nidle connections still open during their phase: ${idleOpen}/${connections}; slowloris: ${slowOpen}/${connections}; ` +
  `server alive: ${alive}, exit ${code}; ${requests} requests per connection per phase`);
process.exit(alive && code === 0 ? 0 : 1);
