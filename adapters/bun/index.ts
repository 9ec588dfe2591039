// Bun: the chain behind Bun.serve (HTTPS when cert/key are given, HTTP/2 by ALPN with `http2`).
// The server is built once from the same kube-apiserver flags as the CLI, on the Node adapter's
// platform through Bun's Node compatibility (adapters/node/platform.ts): files the flags name are
// read from disk unless given in `files`, --audit-log-path rotates as on Node, webhooks present
// client certificates. Bun.serve does not expose the peer
// certificate to fetch (bun#14097), so x509 client auth needs a trusted proxy header.
//
//   import { serve } from 'edge-apiserver/bun';
//   await serve({ flags: '--token-auth-file=/etc/k/tokens.csv', port: 6443, cert, key });
//
// Or run adapters/bun/main.ts, configured by APISERVER_* env vars (docs/edge.md "Bun").

import type { Transport } from '../../src/endpoints/request/context.ts';
import { takeForwardedClientCertificates } from '../../src/endpoints/request/client-cert.ts';
import { buildProcessServer, runUntilListening, type ProcessServeSettings } from '../../src/app/edge.ts';
import type { BuiltServer } from '../../src/app/build.ts';
import type { GenericAPIServer, ServingListener } from '../../src/server/genericapiserver.ts';
import type { Platform } from '../../src/server/platform.ts';
import type { FileSystem } from '../../src/util/filesystem.ts';
import type { StoragePlatform } from '../../src/storage/storagebackend/open.ts';
import { nodeEtcdFetch } from '../node/etcd-fetch.ts';
import { NodeFileSystem } from '../node/fs.ts';
import { nodeCompatiblePlatform } from '../node/platform.ts';

// The slice of Bun's API used here (the repo type-checks with Node's types).
interface BunServer {
  readonly port: number;
  readonly hostname: string;
  requestIP(request: Request): { address: string; port: number; family: string } | null;
  stop(closeActiveConnections?: boolean): Promise<void>;
}
interface BunServeOptions {
  port?: number;
  hostname?: string;
  tls?: { cert: string; key: string };
  http2?: boolean;
  fetch(request: Request, server: BunServer): Response | Promise<Response>;
  error?(err: Error): Response | Promise<Response>;
}
interface BunNamespace {
  serve(options: BunServeOptions): BunServer;
}
declare const Bun: BunNamespace;

/** Without cert and key (given or from the flags) the server speaks plain HTTP, for a TLS-terminating proxy. */
export interface BunServeSettings extends ProcessServeSettings {
  /** Offer HTTP/2 by ALPN (with TLS). Default true. */
  http2?: boolean;
  /** Trust this RFC 9440 header (e.g. `Client-Cert`) from a proxy in front for client certificates. */
  clientCertHeader?: string;
}

export interface BunServing {
  server: GenericAPIServer;
  built: BuiltServer;
  port: number;
  hostname: string;
  /** Resolves when the server's run (and its shutdown sequence) has finished; rejects on failure. */
  finished: Promise<void>;
  /** Starts the shutdown sequence (readyz fails, delay, stop accepting, drain) and waits for it. */
  shutdown(): Promise<void>;
}

/**
 * The options read real files through the Node adapter's FileSystem (node:fs works on Bun):
 * Go-style errors, and directory watches so RBAC manifests, token files and client CAs reload.
 */
export const bunFileSystem: FileSystem = new NodeFileSystem();

/** Bun's Platform: the Node one (node:fs, node:https, node:zlib work on Bun); Bun.serve terminates TLS. */
export function bunPlatform(): Platform {
  return { ...nodeCompatiblePlatform(), fileSystem: bunFileSystem };
}

/**
 * The Node CLI's storage engines on Bun, what adapters/bun/main.ts serves with: the embedded file
 * (the default backend, `registry.db` in --cert-dir) on bun:sqlite, loaded when opened, and etcd
 * with client certificates. Pass it as `storage` to serve() for the same default.
 */
export function bunStoragePlatform(): StoragePlatform {
  return {
    etcdFetch: nodeEtcdFetch,
    openSQLite: async (path) => (await import('./sqlite.ts')).openBunSQLiteKV(path),
  };
}

export function bunTransport(
  request: Request,
  bunServer: BunServer,
  tls: boolean,
  clientCertHeader?: string,
): { request: Request; transport: Transport } {
  const ip = bunServer.requestIP(request);
  const transport: Transport = { remoteAddress: ip?.address, remotePort: ip?.port };
  if (clientCertHeader) {
    const taken = takeForwardedClientCertificates(request, clientCertHeader);
    request = taken.request;
    if (taken.certificates.length) transport.peerCertificates = taken.certificates;
  }
  if (!tls) transport.protocol = 'http/1.1';
  return { request, transport };
}

interface BunListenOptions {
  port: number;
  hostname: string;
  cert?: string;
  key?: string;
  http2: boolean;
  clientCertHeader?: string;
}

/**
 * Bun.serve as the server's listener (ServingListener), so run() drives it exactly like the
 * Node listener: shutdown stops accepting once NotAcceptingNewRequest fires (after
 * --shutdown-delay-duration), waits for in-flight requests up to the shutdown timeout, then
 * closes what is left.
 */
export class BunServingListener implements ServingListener {
  private http?: BunServer;
  private readonly opts: BunListenOptions;
  private markStopped!: () => void;
  readonly stoppedListening = new Promise<void>((r) => (this.markStopped = r));

  constructor(opts: BunListenOptions) {
    this.opts = opts;
  }

  get tls(): boolean {
    return Boolean(this.opts.cert && this.opts.key);
  }

  get port(): number {
    return this.http?.port ?? this.opts.port;
  }

  get hostname(): string {
    return this.http?.hostname ?? this.opts.hostname;
  }

  async serve(handler: (request: Request, transport?: Transport) => Response | Promise<Response>): Promise<void> {
    const o = this.opts;
    const tls = this.tls;
    this.http = Bun.serve({
      port: o.port,
      hostname: o.hostname,
      ...(tls ? { tls: { cert: o.cert!, key: o.key! }, http2: o.http2 } : {}),
      fetch(req, bunServer) {
        const { request, transport } = bunTransport(req, bunServer, tls, o.clientCertHeader);
        return handler(request, transport);
      },
    });
  }

  async shutdown(timeoutMs: number): Promise<void> {
    const http = this.http;
    this.markStopped();
    if (!http) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const drained = http.stop(false).then(() => true);
    const timedOut = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs)));
    const ok = await Promise.race([drained, timedOut]);
    clearTimeout(timer);
    if (!ok) await http.stop(true);
  }
}

/** Builds the server (rejecting on bad flags), then runs it on Bun.serve until `signal` aborts. */
export async function serve(settings: BunServeSettings = {}): Promise<BunServing> {
  const { built, listen } = await buildProcessServer(settings, bunPlatform());
  const listener = new BunServingListener({
    ...listen,
    http2: settings.http2 ?? true,
    clientCertHeader: settings.clientCertHeader,
  });
  const { finished, shutdown } = await runUntilListening(built, listener, settings.signal);
  return { server: built.server, built, port: listener.port, hostname: listener.hostname, finished, shutdown };
}
