// The API side over the wire (issue 20's API rows): the kube-apiserver the CLI builds from its
// flags (token authentication, RBAC, APF, registry Store, watch cache, memory storage) behind
// adapters/node's listener, against bare Hono over a Map (bench/bare-api.ts) on
// @hono/node-server, same TLS certificate and HTTP/2 settings. Each side holds 500 ConfigMaps in
// namespace `bench`; the load is a GET of one, the list of all 500, or creates (generateName).

import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { buildServerFromFlags } from '../src/app/build.ts';
import { discardLogger } from '../src/util/logger.ts';
import { NodeServingListener } from '../adapters/node/listener.ts';
import { nodePlatform } from '../adapters/node/platform.ts';
import { bareAPI, configMapJSON } from './bare-api.ts';
import { plainTLSServer, type BenchRequest, type Variant } from './variants.ts';

const NS = 'bench';
const FIXTURES = 500;
const TOKEN = 'bench-api-token-0123456789abcdef';

const requests: Record<string, BenchRequest> = {
  get: { path: `/api/v1/namespaces/${NS}/configmaps/cm-0` },
  list: { path: `/api/v1/namespaces/${NS}/configmaps` },
  create: { path: `/api/v1/namespaces/${NS}/configmaps`, method: 'POST', body: configMapJSON({ generateName: 'b-' }) },
};

type InProcess = (req: Request) => Response | Promise<Response>;

async function seed(handle: InProcess, withNamespace: boolean): Promise<void> {
  const post = async (path: string, body: string) => {
    const r = await handle(
      new Request(`https://127.0.0.1${path}`, {
        method: 'POST',
        body,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'user-agent': 'bench' },
      }),
    );
    if (r.status !== 201) throw new Error(`seed ${path}: ${r.status} ${await r.text()}`);
    await r.arrayBuffer();
  };
  if (withNamespace) await post('/api/v1/namespaces', JSON.stringify({ metadata: { name: NS } }));
  for (let i = 0; i < FIXTURES; i++)
    await post(`/api/v1/namespaces/${NS}/configmaps`, configMapJSON({ name: `cm-${i}` }));
}

async function edgeAPIServer(certDir: string) {
  const { server, config } = await buildServerFromFlags(
    [
      '--bind-address=127.0.0.1',
      `--tls-cert-file=${join(certDir, 'apiserver.crt')}`,
      `--tls-private-key-file=${join(certDir, 'apiserver.key')}`,
      '--storage-backend=memory',
      '--authorization-mode=RBAC',
      `--token-auth-file=${join(certDir, 'api-tokens.csv')}`,
    ],
    { ...nodePlatform(), logger: discardLogger },
  );
  const listener = new NodeServingListener(config.secureServing!, { port: 0, logger: discardLogger });
  await listener.listen();
  const stop = new AbortController();
  const running = server.run({ signal: stop.signal, listener });
  const handle = (req: Request) => server.handle(req, { remoteAddress: '127.0.0.1' });
  // Ready once the post-start hooks (bootstrap RBAC, default namespaces …) have run.
  while ((await handle(new Request('https://127.0.0.1/readyz'))).status !== 200)
    await new Promise((r) => setTimeout(r, 20));
  await seed(handle, true);
  return {
    port: listener.address().port,
    stop: async () => {
      stop.abort();
      await running.catch(() => {});
    },
  };
}

const prepare = async (certDir: string) => {
  writeFileSync(join(certDir, 'api-tokens.csv'), `${TOKEN},admin,uid-admin,system:masters\n`);
  return { authorization: `Bearer ${TOKEN}` };
};

export const apiVariants: Variant[] = Object.entries(requests).flatMap(([op, request]): Variant[] => [
  {
    name: `bare-api-${op}`,
    description: `bare Hono over a Map (bench/bare-api.ts): ${request.method ?? 'GET'} ${request.path}`,
    baseline: true,
    request,
    prepare,
    start: async (certDir) => {
      const app = bareAPI();
      await seed((req) => app.fetch(req), false);
      return plainTLSServer(certDir, (req) => app.fetch(req));
    },
  },
  {
    name: `api-${op}`,
    description: `kube-apiserver from flags (token, RBAC, memory storage) on adapters/node: ${request.method ?? 'GET'} ${request.path}`,
    against: `bare-api-${op}`,
    request,
    prepare,
    start: edgeAPIServer,
  },
]);
