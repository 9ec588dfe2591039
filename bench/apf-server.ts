// The APF benchmark server (bench/apf.ts starts it in its own process):
//   node bench/apf-server.ts <certDir>
// edge-apiserver on the Node listener with API Priority and Fairness (the built-in bootstrap
// configuration), a small server concurrency limit so that a flood is far above capacity, bearer
// tokens for a workload-low flood (service accounts) and workload-high / exempt callers, and a
// handler that takes BENCH_APF_WORK_MS (default 20ms) like a storage round trip.
// Prints `PORT <n>` once listening; on SIGUSR2, `GC <json>`: the garbage collections since the
// last SIGUSR2 (count, total and longest pause in ms, young and old generation apart).

import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { FlowControl } from '../src/flowcontrol/controller.ts';
import { requestFunc } from '../src/authentication/authenticator.ts';
import { edgeOnNodeListener } from './variants.ts';

const certDir = process.argv[2]!;
const workMs = Number(process.env.BENCH_APF_WORK_MS ?? 20);
const inflight = Number(process.env.BENCH_APF_MAX_INFLIGHT ?? 40);

const sa = (ns: string, name: string) => ({
  name: `system:serviceaccount:${ns}:${name}`,
  groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
});
const users: Record<string, { name: string; groups: string[] }> = {
  flood1: sa('default', 'flood1'),
  flood2: sa('default', 'flood2'),
  high: { name: 'system:kube-controller-manager', groups: ['system:authenticated'] },
  admin: { name: 'admin', groups: ['system:masters', 'system:authenticated'] },
};

const server = await edgeOnNodeListener(
  certDir,
  {
    flowControl: new FlowControl(),
    maxRequestsInFlight: inflight,
    maxMutatingRequestsInFlight: inflight / 2,
    authentication: {
      apiAudiences: [],
      authenticator: requestFunc(async (ctx) => {
        const token = ctx.request.headers.get('authorization')?.replace(/^Bearer /, '') ?? '';
        const user = users[token];
        return user ? { user } : null;
      }),
    },
  },
  workMs,
);
console.log(`PORT ${server.port}`);
const shutdown = () => void server.stop().finally(() => process.exit(0));
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

// GC pauses by generation: under a flood, young-generation collections copy every request still in
// flight (and streams waiting for their turn), which sets the tail latency of the other levels.
const gc = { young: { n: 0, ms: 0, max: 0 }, old: { n: 0, ms: 0, max: 0 } };
new PerformanceObserver((list) => {
  for (const e of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[]) {
    const kind = e.detail?.kind;
    const g =
      kind === constants.NODE_PERFORMANCE_GC_MINOR
        ? gc.young
        : kind === constants.NODE_PERFORMANCE_GC_MAJOR
          ? gc.old
          : undefined;
    if (!g) continue;
    g.n++;
    g.ms += e.duration;
    g.max = Math.max(g.max, e.duration);
  }
}).observe({ entryTypes: ['gc'] });
process.on('SIGUSR2', () => {
  console.log(`GC ${JSON.stringify(gc)}`);
  for (const g of [gc.young, gc.old]) g.n = g.ms = g.max = 0;
});
