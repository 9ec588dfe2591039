// The APF benchmark server (bench/apf.ts starts it in its own process):
//   node bench/apf-server.ts <certDir>
// edge-apiserver on the Node listener with API Priority and Fairness (the built-in bootstrap
// configuration), a small server concurrency limit so that a flood is far above capacity, bearer
// tokens for a workload-low flood (service accounts) and workload-high / exempt callers, and a
// handler that takes BENCH_APF_WORK_MS (default 20ms) like a storage round trip.
// Prints `PORT <n>` once listening.

import { Hono } from 'hono';
import { join } from 'node:path';
import { complete, newConfig, newServer, newEmptyDelegate, notFoundHandler, type APIEnv } from '../src/index.ts';
import { discardLogger } from '../src/util/logger.ts';
import { NodeServingListener } from '../adapters/node/listener.ts';
import { NodeFileSystem } from '../adapters/node/fs.ts';
import { SecureServingOptions } from '../src/server/options/serving.ts';
import { FlowControl } from '../src/flowcontrol/controller.ts';
import { requestFunc } from '../src/authentication/authenticator.ts';
import { podJSON } from './variants.ts';

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

const config = newConfig({
  logger: discardLogger,
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
});
config.routeInstallers.push((s) => {
  const routes = new Hono<APIEnv>();
  routes.get('/api/v1/namespaces/:namespace/pods/:name', async () => {
    if (workMs > 0) await new Promise((r) => setTimeout(r, workMs));
    return new Response(podJSON, { headers: { 'content-type': 'application/json' } });
  });
  s.handler.registerWebService('/api/v1', routes);
});
const o = new SecureServingOptions();
Object.assign(o, { bindAddress: '127.0.0.1', certDirectory: certDir, certFile: join(certDir, 'apiserver.crt'), keyFile: join(certDir, 'apiserver.key') });
await o.applyTo(config, { fileSystem: new NodeFileSystem(), logger: discardLogger, servesTLS: true });
const server = newServer(complete(config), 'kube-apiserver', newEmptyDelegate(notFoundHandler));
const listener = new NodeServingListener(config.secureServing!, { port: 0, logger: discardLogger });
const stop = new AbortController();
const running = server.run({ signal: stop.signal, listener });
await new Promise<void>((resolve) => {
  const check = () => (listener.address() ? resolve() : setTimeout(check, 10));
  check();
});
console.log(`PORT ${listener.address().port}`);
const shutdown = () => {
  stop.abort();
  void running.catch(() => {}).finally(() => process.exit(0));
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
