// The benchmarked servers. Each answers GET /api/v1/namespaces/default/pods/bench with the same
// small Pod JSON over TLS (HTTP/2 and HTTP/1.1 by ALPN), with the same certificate and HTTP/2
// settings. Add a variant here (authn, authz, audit, APF …) and `npm run bench` measures it
// against the bare baseline in the same run.

import http2 from 'node:http2';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import {
  complete,
  newConfig,
  newServer,
  newEmptyDelegate,
  notFoundHandler,
  type Config,
  type APIEnv,
} from '../src/index.ts';
import { discardLogger } from '../src/util/logger.ts';
import { NodeServingListener } from '../adapters/node/listener.ts';
import { NodeFileSystem } from '../adapters/node/fs.ts';
import { SecureServingOptions } from '../src/server/options/serving.ts';
import { AuditMetrics, IgnoreErrorsBackend, LogBackend, fixedPolicyRuleEvaluator } from '../src/index.ts';
import { openAuditLogFile } from '../adapters/node/audit-log-writer.ts';
import { nodeFlags } from '../adapters/node/node-flags.mjs';
import { AuthenticationOptions } from '../src/server/options/authentication.ts';
import { AuthorizationOptions } from '../src/server/options/authorization.ts';
import { FlagSet } from '../src/server/options/flags.ts';
import { mintServiceAccountToken } from '../src/authentication/serviceaccount.ts';
import { exportPKCS8, generateKeyPair } from 'jose';
import { writeFileSync } from 'node:fs';

export const benchPath = '/api/v1/namespaces/default/pods/bench';
/** Node flags of every bench server, baseline included: those the CLI runs with (adapters/node/node-flags.mjs). */
export const serverNodeFlags = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? nodeFlags;
export const podJSON = JSON.stringify({
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: { name: 'bench', namespace: 'default', uid: '6b1d2c3e-0000-4000-8000-000000000001', resourceVersion: '1' },
  spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
  status: { phase: 'Running' },
});

/** What the load tools send (default: GET benchPath). */
export interface BenchRequest {
  path: string;
  /** POST sends `body` as application/json. */
  method?: 'GET' | 'POST';
  body?: string;
}

export interface Variant {
  name: string;
  /** Shown in the report. */
  description: string;
  /** A baseline: other variants' ratios are computed against it (b/a). */
  baseline?: boolean;
  /** The baseline this variant is compared with (default `bare`). */
  against?: string;
  request?: BenchRequest;
  start(certDir: string): Promise<{ port: number; stop: () => Promise<void> }>;
  /** Run once by the driver before any server starts: writes fixtures into certDir, returns request headers. */
  prepare?(certDir: string): Promise<Record<string, string>>;
}

// Same HTTP/2 settings as adapters/node/listener.ts (upstream's server limits).
const h2Settings = {
  maxConcurrentStreams: 250,
  maxHeaderListSize: 1 << 20,
  initialWindowSize: 256 << 10,
  maxFrameSize: 256 << 10,
};

type PlainFetch = (req: Request, env: { incoming: { httpVersionMajor: number } }) => Response | Promise<Response>;

export function plainTLSServer(
  certDir: string,
  fetch: PlainFetch,
): Promise<{ port: number; stop: () => Promise<void> }> {
  const server = http2.createSecureServer(
    {
      cert: readFileSync(join(certDir, 'apiserver.crt')),
      key: readFileSync(join(certDir, 'apiserver.key')),
      allowHTTP1: true,
      settings: h2Settings,
    },
    getRequestListener(fetch as Parameters<typeof getRequestListener>[0]),
  );
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        port: (server.address() as { port: number }).port,
        stop: () => new Promise<void>((r) => server.close(() => r())),
      });
    });
  });
}

/**
 * A kube-style server config answering the bench path through the full chain; with `workMs`,
 * the handler waits that long first, like a storage round trip (synchronous otherwise).
 */
function edgeConfig(overrides: Partial<Config> = {}, workMs = 0): Config {
  const config = newConfig({ logger: discardLogger, ...overrides });
  const pod = () => new Response(podJSON, { headers: { 'content-type': 'application/json' } });
  config.routeInstallers.push((s) => {
    const routes = new Hono<APIEnv>();
    routes.get(
      '/api/v1/namespaces/:namespace/pods/:name',
      workMs > 0 ? () => new Promise<Response>((r) => setTimeout(() => r(pod()), workMs)) : pod,
    );
    s.handler.registerWebService('/api/v1', routes);
  });
  return config;
}

export async function edgeOnNodeListener(certDir: string, overrides: Partial<Config> = {}, workMs = 0) {
  const config = edgeConfig(overrides, workMs);
  const o = new SecureServingOptions();
  Object.assign(o, {
    bindAddress: '127.0.0.1',
    certDirectory: certDir,
    certFile: join(certDir, 'apiserver.crt'),
    keyFile: join(certDir, 'apiserver.key'),
  });
  await o.applyTo(config, { fileSystem: new NodeFileSystem(), logger: discardLogger, servesTLS: true });
  const server = newServer(complete(config), 'kube-apiserver', newEmptyDelegate(notFoundHandler));
  const listener = new NodeServingListener(config.secureServing!, { port: 0, logger: discardLogger });
  const stop = new AbortController();
  const running = server.run({ signal: stop.signal, listener });
  await new Promise<void>((resolve) => {
    const check = () => (listener.address() ? resolve() : setTimeout(check, 10));
    check();
  });
  return {
    port: listener.address().port,
    stop: async () => {
      stop.abort();
      await running.catch(() => {});
    },
  };
}

const diagApp = () => {
  const app = new Hono();
  app.get(
    '/api/v1/namespaces/:namespace/pods/:name',
    () => new Response(podJSON, { headers: { 'content-type': 'application/json' } }),
  );
  return app;
};

/** Diagnostics (BENCH_VARIANTS=…): what a chained server pays that bare Hono does not. */
export const diagnostics: Variant[] = [
  {
    name: 'd-jwt-nocache',
    description: 'edge + RS256 service-account JWT with the token cache off: jose verifies every request',
    prepare: prepareJWT('d-jwt-nocache'),
    start: async (certDir) =>
      edgeOnNodeListener(certDir, await authnConfig(certDir, jwtFlags(certDir, 'd-jwt-nocache'), 0)),
  },
  {
    name: 'd-node',
    description:
      "Node's own APIs without Hono: HTTP/2 on the core 'stream' API (no compatibility objects), HTTP/1.1 on http's request/response",
    start: (certDir) => {
      const length = String(Buffer.byteLength(podJSON));
      const server = http2.createSecureServer(
        {
          cert: readFileSync(join(certDir, 'apiserver.crt')),
          key: readFileSync(join(certDir, 'apiserver.key')),
          allowHTTP1: true,
          settings: h2Settings,
        },
        (req, res) => {
          // HTTP/1.1 only: Node hands HTTP/2 streams to this listener only without a 'stream' listener.
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': length });
          res.end(podJSON);
        },
      );
      server.prependListener('stream', (stream) => {
        stream.respond({ ':status': 200, 'content-type': 'application/json', 'content-length': length });
        stream.end(podJSON);
      });
      // Without the compatibility listener for HTTP/2 (it would answer the stream a second time).
      for (const l of server.listeners('stream').slice(1)) server.removeListener('stream', l as never);
      return new Promise((resolve) => {
        server.listen(0, '127.0.0.1', () => {
          resolve({
            port: (server.address() as { port: number }).port,
            stop: () => new Promise<void>((r) => server.close(() => r())),
          });
        });
      });
    },
  },
  {
    name: 'd-async',
    description: 'bare Hono answering through a Promise',
    start: (certDir) => {
      const app = diagApp();
      return plainTLSServer(certDir, async (req) => app.fetch(req));
    },
  },
  {
    name: 'd-touch',
    description: 'bare Hono, synchronous, reading URL, signal and a request header first',
    start: (certDir) => {
      const app = diagApp();
      return plainTLSServer(certDir, (req) => {
        void new URL(req.url);
        void req.signal;
        void req.headers.get('audit-id');
        return app.fetch(req);
      });
    },
  },
  {
    name: 'd-headers',
    description: 'bare Hono, synchronous, two response headers set after the handler',
    start: (certDir) => {
      const app = diagApp();
      return plainTLSServer(certDir, (req) => {
        const res = app.fetch(req) as Response;
        res.headers.set('Audit-Id', crypto.randomUUID());
        res.headers.set('Cache-Control', 'no-cache, private');
        return res;
      });
    },
  },
];

// Authentication variants: the same flags as kube-apiserver through AuthenticationOptions.
const benchIssuer = 'https://kubernetes.default.svc.cluster.local';

async function authnConfig(certDir: string, args: string[], tokenCacheTTL?: number): Promise<Partial<Config>> {
  const o = new AuthenticationOptions();
  const fs = new FlagSet('bench');
  o.addFlags(fs);
  fs.parse(args);
  if (tokenCacheTTL !== undefined) o.tokenSuccessCacheTTL = tokenCacheTTL;
  const c = newConfig({ logger: discardLogger });
  await o.applyTo(c, { fileSystem: new NodeFileSystem(), logger: discardLogger });
  return { authentication: c.authentication, routeInstallers: [] };
}

/** Authentication (token file) plus authorization through AuthorizationOptions (RBAC manifests). */
async function authzConfig(certDir: string, authnArgs: string[], authzArgs: string[]): Promise<Partial<Config>> {
  const authn = await authnConfig(certDir, authnArgs);
  const o = new AuthorizationOptions();
  const fs = new FlagSet('bench');
  o.addFlags(fs);
  fs.parse(authzArgs);
  const c = newConfig({ logger: discardLogger, authentication: authn.authentication! });
  c.routeInstallers = [];
  await o.applyTo(c, { fileSystem: new NodeFileSystem(), logger: discardLogger });
  return { authentication: c.authentication, authorization: c.authorization, routeInstallers: [] };
}

const benchRBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-reader, namespace: default}
rules: [{apiGroups: [""], resources: [pods], verbs: [get, list, watch]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: readers, namespace: default}
subjects: [{kind: Group, apiGroup: rbac.authorization.k8s.io, name: readers}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader}
`;

function jwtFlags(certDir: string, variant: string) {
  return [
    '--service-account-issuer',
    benchIssuer,
    '--service-account-signing-key-file',
    join(certDir, `${variant}-sa.key`),
  ];
}

function prepareJWT(variant: string) {
  return async (certDir: string): Promise<Record<string, string>> => {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const pem = await exportPKCS8(privateKey);
    writeFileSync(join(certDir, `${variant}-sa.key`), pem);
    const token = await mintServiceAccountToken({
      signingKey: pem,
      issuer: benchIssuer,
      namespace: 'default',
      name: 'bench',
      uid: 'u',
      expirationSeconds: 86400,
    });
    return { authorization: `Bearer ${token}` };
  };
}

export const variants: Variant[] = [
  {
    name: 'bare',
    description: 'bare Hono on @hono/node-server (http2.createSecureServer, allowHTTP1)',
    baseline: true,
    start: (certDir) => {
      const app = new Hono();
      app.get(
        '/api/v1/namespaces/:namespace/pods/:name',
        () => new Response(podJSON, { headers: { 'content-type': 'application/json' } }),
      );
      return plainTLSServer(certDir, (req) => app.fetch(req));
    },
  },
  {
    name: 'bare-async',
    description:
      'diagnostic: bare Hono answering through a Promise and touching request headers, URL and signal as every chained server must',
    start: (certDir) => {
      const app = new Hono();
      app.get(
        '/api/v1/namespaces/:namespace/pods/:name',
        () => new Response(podJSON, { headers: { 'content-type': 'application/json' } }),
      );
      return plainTLSServer(certDir, async (req) => {
        void new URL(req.url);
        void req.signal;
        void req.headers.get('audit-id');
        const res = await app.fetch(req);
        res.headers.set('Audit-Id', crypto.randomUUID());
        res.headers.set('Cache-Control', 'no-cache, private');
        return res;
      });
    },
  },
  {
    name: 'edge',
    description:
      'edge-apiserver: full DefaultBuildHandlerChain + director, adapters/node listener (no authn/authz/audit configured, max-in-flight 400/200)',
    start: (certDir) => edgeOnNodeListener(certDir),
  },
  {
    name: 'edge-audit',
    description:
      'edge + audit: Metadata-level policy for every request, JSON lines to a file (blocking mode, the default; adapters/node/audit-log-writer.ts)',
    start: async (certDir) => {
      const metrics = new AuditMetrics();
      const log = await openAuditLogFile(join(certDir, `audit-${process.pid}.log`), {
        maxSize: 100,
        maxAge: 0,
        maxBackups: 1,
        compress: false,
      });
      const backend = new IgnoreErrorsBackend(new LogBackend(log, 'json', discardLogger, metrics));
      return edgeOnNodeListener(certDir, {
        audit: { policyRuleEvaluator: fixedPolicyRuleEvaluator('Metadata'), backend, metrics },
      });
    },
  },
  {
    name: 'edge-authn-token',
    description:
      'edge + authentication: --token-auth-file bearer token (kube-apiserver token cache, 10s TTL), anonymous on',
    prepare: async (certDir) => {
      writeFileSync(join(certDir, 'bench-tokens.csv'), 'bench-token-0123456789abcdef,bench,1,"system:masters"\n');
      return { authorization: 'Bearer bench-token-0123456789abcdef' };
    },
    start: async (certDir) =>
      edgeOnNodeListener(certDir, await authnConfig(certDir, ['--token-auth-file', join(certDir, 'bench-tokens.csv')])),
  },
  {
    name: 'edge-authn-jwt',
    description: 'edge + authentication: RS256 service-account JWT (jose), kube-apiserver token cache (10s TTL)',
    prepare: prepareJWT('edge-authn-jwt'),
    start: async (certDir) =>
      edgeOnNodeListener(certDir, await authnConfig(certDir, jwtFlags(certDir, 'edge-authn-jwt'))),
  },
  {
    name: 'edge-rbac',
    description:
      'edge + --token-auth-file user (not system:masters) + RBAC: bootstrap ClusterRoleBindings visited, then a RoleBinding in the namespace allows get pods',
    prepare: async (certDir) => {
      writeFileSync(join(certDir, 'bench-rbac-tokens.csv'), 'bench-reader-0123456789abcdef,reader,2,"readers"\n');
      writeFileSync(join(certDir, 'bench-rbac.yaml'), benchRBAC);
      return { authorization: 'Bearer bench-reader-0123456789abcdef' };
    },
    start: async (certDir) =>
      edgeOnNodeListener(
        certDir,
        await authzConfig(
          certDir,
          ['--token-auth-file', join(certDir, 'bench-rbac-tokens.csv')],
          ['--authorization-mode=RBAC', '--authorization-rbac-manifests', join(certDir, 'bench-rbac.yaml')],
        ),
      ),
  },
  {
    name: 'edge-plain',
    description: 'edge-apiserver chain behind the same plain listener as bare (isolates the chain from the listener)',
    start: (certDir) => {
      const config = edgeConfig();
      const server = newServer(complete(config), 'kube-apiserver', newEmptyDelegate(notFoundHandler));
      server.prepareRun();
      return plainTLSServer(certDir, (req, env) =>
        server.handle(req, { protocol: env.incoming.httpVersionMajor === 2 ? 'h2' : 'http/1.1' }),
      );
    },
  },
];
