// Deno: the chain behind Deno.serve (HTTPS with HTTP/2 by ALPN when cert/key are given). The
// server is built once from the same kube-apiserver flags as the CLI, on the Node adapter's
// platform through Deno's Node compatibility (adapters/node/platform.ts): files the flags name are
// read from disk unless given in `files`, --audit-log-path rotates as on Node (needs
// --allow-write), webhooks present client certificates. Deno.serve cannot request client
// certificates (deno#26825), so x509 client auth needs a trusted proxy header (clientCertHeader).
//
//   import { serve } from 'edge-apiserver/deno';
//   await serve({ flags: '--token-auth-file=/etc/k/tokens.csv', port: 6443, cert, key });
//
// Or run adapters/deno/main.ts, configured by APISERVER_* env vars (docs/edge.md "Deno").

import type { Transport } from '../../src/endpoints/request/context.ts';
import { takeForwardedClientCertificates } from '../../src/endpoints/request/client-cert.ts';
import { buildProcessServer, runUntilListening, type ProcessServeSettings } from '../../src/app/edge.ts';
import type { BuiltServer } from '../../src/app/build.ts';
import type { GenericAPIServer, ServingListener } from '../../src/server/genericapiserver.ts';
import type { Platform } from '../../src/server/platform.ts';
import type { FileSystem } from '../../src/util/filesystem.ts';
import { NodeFileSystem } from '../node/fs.ts';
import { nodeCompatiblePlatform } from '../node/platform.ts';
import { nodeEtcdFetch } from '../node/etcd-fetch.ts';
import type { StoragePlatform } from '../../src/storage/storagebackend/open.ts';

// The slice of the Deno namespace used here (the repo type-checks with Node's types).
interface DenoServeInfo {
  remoteAddr: { hostname: string; port: number; transport: string };
}
interface DenoHttpServer {
  readonly addr: { hostname: string; port: number };
  readonly finished: Promise<void>;
  shutdown(): Promise<void>;
}
interface DenoNamespace {
  permissions?: { querySync?(d: { name: 'sys'; kind: string }): { state: string } };
  serve(
    options: {
      port?: number;
      hostname?: string;
      cert?: string;
      key?: string;
      signal?: AbortSignal;
      onListen?: (addr: { hostname: string; port: number }) => void;
    },
    handler: (request: Request, info: DenoServeInfo) => Response | Promise<Response>,
  ): DenoHttpServer;
}
declare const Deno: DenoNamespace;

/** Without cert and key (given or from the flags) the server speaks plain HTTP, for a TLS-terminating proxy. */
export interface DenoServeOptions extends ProcessServeSettings {
  /** Trust this RFC 9440 header (e.g. `Client-Cert`) from a proxy in front for client certificates. */
  clientCertHeader?: string;
  onListen?: (addr: { hostname: string; port: number }) => void;
}

export interface DenoServing {
  server: GenericAPIServer;
  built: BuiltServer;
  addr: { hostname: string; port: number };
  /** Resolves when the server's run (and its shutdown sequence) has finished; rejects on failure. */
  finished: Promise<void>;
  /** Starts the shutdown sequence (readyz fails, delay, stop accepting, drain) and waits for it. */
  shutdown(): Promise<void>;
}

/**
 * The options read real files through the Node adapter's FileSystem (node:fs works on Deno):
 * Go-style errors, and directory watches so RBAC manifests, token files and client CAs reload.
 */
export const denoFileSystem: FileSystem = new NodeFileSystem();

/**
 * Deno's Platform: the Node one (node:fs, node:https, node:zlib work on Deno); Deno.serve
 * terminates TLS. The host IP is looked up only with --allow-sys granted (asking would prompt).
 */
export function denoPlatform(): Platform {
  let sys: boolean;
  try {
    sys = Deno.permissions?.querySync?.({ name: 'sys', kind: 'networkInterfaces' }).state === 'granted';
  } catch {
    sys = false;
  }
  return { ...nodeCompatiblePlatform({ lookUpHostIP: sys }), fileSystem: denoFileSystem };
}

/**
 * The Node CLI's storage engines on Deno, what adapters/deno/main.ts serves with: the embedded file
 * (the default backend, `registry.db` in --cert-dir; needs --allow-write) on node:sqlite, loaded
 * when opened, and etcd with client certificates. Pass it as `storage` to serve() for the same default.
 */
export function denoStoragePlatform(): StoragePlatform {
  return {
    etcdFetch: nodeEtcdFetch,
    openSQLite: async (path) => (await import('./sqlite.ts')).openSQLiteKV(path),
  };
}

/** The request and what the connection tells us, as the chain takes them. */
export function denoTransport(
  request: Request,
  info: DenoServeInfo,
  tls: boolean,
  clientCertHeader?: string,
): { request: Request; transport: Transport } {
  const transport: Transport = { remoteAddress: info.remoteAddr.hostname, remotePort: info.remoteAddr.port };
  if (clientCertHeader) {
    const taken = takeForwardedClientCertificates(request, clientCertHeader);
    request = taken.request;
    if (taken.certificates.length) transport.peerCertificates = taken.certificates;
  }
  if (!tls) transport.protocol = 'http/1.1';
  return { request, transport };
}

/**
 * Deno.serve as the server's listener (ServingListener), so run() drives it exactly like the
 * Node listener: shutdown closes the listener once NotAcceptingNewRequest fires (after
 * --shutdown-delay-duration) and waits for in-flight requests up to the shutdown timeout.
 */
export class DenoServingListener implements ServingListener {
  private http?: DenoHttpServer;
  private readonly opts: DenoListenOptions;
  private markStopped!: () => void;
  readonly stoppedListening = new Promise<void>((r) => (this.markStopped = r));
  addr?: { hostname: string; port: number };

  constructor(opts: DenoListenOptions) {
    this.opts = opts;
  }

  get tls(): boolean {
    return Boolean(this.opts.cert && this.opts.key);
  }

  serve(handler: (request: Request, transport?: Transport) => Response | Promise<Response>): Promise<void> {
    const o = this.opts;
    return new Promise<void>((resolve, reject) => {
      try {
        this.http = Deno.serve(
          {
            port: o.port,
            hostname: o.hostname,
            ...(this.tls ? { cert: o.cert, key: o.key } : {}),
            onListen: (addr) => {
              this.addr = addr;
              o.onListen?.(addr);
              resolve();
            },
          },
          (req, info) => {
            const { request, transport } = denoTransport(req, info, this.tls, o.clientCertHeader);
            return handler(request, transport);
          },
        );
      } catch (err) {
        reject(err);
      }
    });
  }

  async shutdown(timeoutMs: number): Promise<void> {
    if (!this.http) return this.markStopped();
    const drained = this.http.shutdown();
    this.markStopped();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([drained, new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
  }
}

interface DenoListenOptions {
  port: number;
  hostname: string;
  cert?: string;
  key?: string;
  clientCertHeader?: string;
  onListen?: (addr: { hostname: string; port: number }) => void;
}

/** Builds the server (rejecting on bad flags), then runs it on Deno.serve until `signal` aborts. */
export async function serve(options: DenoServeOptions = {}): Promise<DenoServing> {
  const { built, listen } = await buildProcessServer(options, denoPlatform());
  const listener = new DenoServingListener({
    ...listen,
    clientCertHeader: options.clientCertHeader,
    onListen: options.onListen ?? (() => {}),
  });
  const { finished, shutdown } = await runUntilListening(built, listener, options.signal);
  return { server: built.server, built, addr: listener.addr!, finished, shutdown };
}
