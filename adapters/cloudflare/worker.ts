// Cloudflare Workers: the chain as a Worker. The server is built once per isolate from the same
// kube-apiserver flags as the CLI (var APISERVER_FLAGS), files from APISERVER_FILES* vars/secrets
// or bundled text; client certificates from request.cf.tlsClientAuth (mTLS at Cloudflare's edge)
// or a trusted forwarded RFC 9440 header; client IP from cf-connecting-ip; ctx.waitUntil for work
// after the response. See docs/edge.md "Cloudflare Workers".
//
//   // worker.ts — the default export is ready to deploy (wrangler.toml main)
//   export { default } from 'edge-apiserver/cloudflare';
//   // or with bundled files / extra routes:
//   import { createWorker } from 'edge-apiserver/cloudflare';
//   import rbac from './rbac.yaml';      // wrangler [[rules]] type = "Text"
//   export default createWorker({ files: { '/etc/kubernetes/rbac.yaml': rbac } });

import type { Transport } from '../../src/endpoints/request/context.ts';
import {
  cloudflareClientCertificates,
  takeForwardedClientCertificates,
  type CloudflareTLSClientAuth,
} from '../../src/endpoints/request/client-cert.ts';
import {
  CLIENT_CERT_HEADER_VAR,
  EdgeServer,
  mergeSettings,
  settingsFromEnv,
  type EdgeSettings,
} from '../../src/app/edge.ts';
import { durableObjectKV, type StoreNamespace } from './store-client.ts';
import { splitArgs } from '../../src/server/options/args.ts';

/**
 * The Durable Object binding of the storage engine (wrangler.toml). Not exported: workerd takes every export of the
 * main module for a handler and refuses a string.
 */
const STORE_BINDING = 'STORE';

/** The parts of `request.cf` the adapter reads (all strings, as the platform sends them). */
export interface IncomingRequestCf {
  tlsClientAuth?: CloudflareTLSClientAuth;
  tlsVersion?: string;
  httpProtocol?: string;
}

/** The parts of the Workers ExecutionContext the adapter uses. */
export interface WorkerExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

export type WorkerEnv = Record<string, unknown>;

export interface WorkerHandler {
  fetch(request: Request, env: WorkerEnv, ctx?: WorkerExecutionContext): Promise<Response>;
}

/** Settings in code; merged with the env (env files win by path, env flags come after these). */
export type WorkerSettings = EdgeSettings | ((env: WorkerEnv) => EdgeSettings | Promise<EdgeSettings>);

/** request + cf + ctx → what the chain takes. Exported for tests and custom Workers. */
export function cloudflareTransport(
  request: Request,
  ctx?: WorkerExecutionContext,
  forwardedCertHeader?: string,
): { request: Request; transport: Transport } {
  const cf = (request as Request & { cf?: IncomingRequestCf }).cf;
  let peerCertificates = cloudflareClientCertificates(cf?.tlsClientAuth);
  if (forwardedCertHeader) {
    const taken = takeForwardedClientCertificates(request, forwardedCertHeader);
    request = taken.request;
    if (!peerCertificates.length) peerCertificates = taken.certificates;
  }
  const transport: Transport = {
    remoteAddress: request.headers.get('cf-connecting-ip') ?? undefined,
    protocol: protocolName(cf?.httpProtocol),
    tlsVersion: cf?.tlsVersion,
  };
  if (peerCertificates.length) transport.peerCertificates = peerCertificates;
  if (ctx) transport.waitUntil = (p) => ctx.waitUntil(p);
  return { request, transport };
}

function protocolName(p: string | undefined): string | undefined {
  if (!p) return undefined;
  if (p === 'HTTP/2') return 'h2';
  if (p === 'HTTP/1.1') return 'http/1.1';
  return p.toLowerCase();
}

/** A Worker (`export default createWorker(...)`); one server per isolate, built on first request. */
export function createWorker(settings: WorkerSettings = {}): WorkerHandler {
  let server: EdgeServer | undefined;
  let certHeader: string | undefined;
  return {
    fetch(request, env, ctx) {
      if (!server) {
        const h = env?.[CLIENT_CERT_HEADER_VAR];
        certHeader = typeof h === 'string' && h ? h : undefined;
        server = new EdgeServer(async () => {
          const own = typeof settings === 'function' ? await settings(env) : settings;
          const merged = mergeSettings(own, settingsFromEnv(env));
          // The embedded store on Workers: the Store Durable Object bound as STORE (./store.ts), one
          // object per cluster; --storage-backend=sqlite (the default) selects it, --sqlite-path is unused.
          const store = env?.[STORE_BINDING] as StoreNamespace | undefined;
          if (!merged.storage && store) {
            merged.storage = { openSQLite: () => durableObjectKV(store) };
            // Watches are served by the Durable Object, one RPC stream per watch request, so events fan
            // out there to every isolate's watchers: an isolate-wide watch cache would be fed by a
            // reflector running in some earlier request, and workerd lets no request's I/O serve
            // another (its events never reach a later watch). `--watch-cache=true` in the flags wins.
            merged.flags = ['--watch-cache=false', ...splitArgs(merged.flags)];
          }
          return merged;
        });
      }
      const { request: req, transport } = cloudflareTransport(request, ctx, certHeader);
      const watching = isWatchRequest(request.url);
      return server.fetch(req, transport).then((r) => withDate(watching ? uncompressed(r) : r));
    },
  };
}

const watchQuery = /[?&]watch=(?:1|true)(?:&|$)/;

/** A watch: `?watch=true|1` or the legacy `/watch/` path (as RequestInfo resolves it). */
function isWatchRequest(url: string): boolean {
  const q = url.indexOf('?');
  return (q >= 0 && watchQuery.test(url.slice(q))) || /\/api(?:s\/[^/]+)?\/[^/]+\/watch\//.test(url);
}

/**
 * A watch stream must reach the client event by event. The platform compresses JSON for clients
 * that accept gzip (wrangler's local proxy too, which then holds the stream in the compressor):
 * `Content-Encoding: identity` marks the body as sent as is (kube-apiserver never compresses watches).
 */
function uncompressed(response: Response): Response {
  if (response.headers.has('content-encoding') || !response.body) return response;
  const headers = new Headers(response.headers);
  headers.set('content-encoding', 'identity');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

let dateSecond = -1;
let dateValue = '';

/**
 * Go's server writes `Date` on every response (net/http chunkWriter.writeHeader); local workerd
 * writes none, so the adapter adds it unless the response has one (RFC 1123, as Go's appendTime).
 */
export function withDate(response: Response): Response {
  if (response.headers.has('date')) return response;
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateValue = new Date(second * 1000).toUTCString();
  }
  try {
    response.headers.set('date', dateValue);
    return response;
  } catch {
    // Immutable headers (a fetched Response passed through): copy.
    const copy = new Response(response.body, response);
    copy.headers.set('date', dateValue);
    return copy;
  }
}

export default createWorker();
