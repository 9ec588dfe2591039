// Deno: the chain behind Deno.serve (HTTPS with HTTP/2 by ALPN when cert/key are given). The
// server is built once from the same kube-apiserver flags as the CLI; files the flags name are
// read from disk (Deno.readFile) unless given in `files`. Deno.serve cannot request client
// certificates (deno#26825), so x509 client auth needs a trusted proxy header (clientCertHeader).
//
//   import { serve } from 'edge-apiserver/deno';
//   await serve({ flags: '--token-auth-file=/etc/k/tokens.csv', port: 6443, cert, key });
//
// Or run adapters/deno/main.ts, configured by APISERVER_* env vars (README "Deploy: Deno").

import type { Transport } from '../../src/endpoints/request/context.ts';
import { takeForwardedClientCertificates } from '../../src/endpoints/request/client-cert.ts';
import { EdgeServer, edgeFileSystem, listenSettings, type EdgeSettings } from '../../src/server/edge.ts';
import type { FileSystem } from '../../src/server/options/filesystem.ts';

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
  serve(
    options: { port?: number; hostname?: string; cert?: string; key?: string; signal?: AbortSignal; onListen?: (addr: { hostname: string; port: number }) => void },
    handler: (request: Request, info: DenoServeInfo) => Response | Promise<Response>,
  ): DenoHttpServer;
  readFile(path: string): Promise<Uint8Array>;
  readDir(path: string): AsyncIterable<{ name: string; isFile: boolean }>;
  watchFs(paths: string): AsyncIterable<unknown> & { close(): void };
}
declare const Deno: DenoNamespace;

export interface DenoServeOptions extends EdgeSettings {
  /** Default `--secure-port` (6443); 0 picks a free port (see the returned addr). */
  port?: number;
  /** Default `--bind-address` (0.0.0.0). */
  hostname?: string;
  /**
   * PEM certificate chain and key; default: the `--tls-cert-file`/`--tls-private-key-file` files.
   * Without either, Deno serves plain HTTP (only behind a TLS-terminating proxy).
   */
  cert?: string;
  key?: string;
  /** Trust this RFC 9440 header (e.g. `Client-Cert`) from a proxy in front for client certificates. */
  clientCertHeader?: string;
  /** Aborting stops accepting and starts the server's shutdown sequence. */
  signal?: AbortSignal;
  onListen?: (addr: { hostname: string; port: number }) => void;
}

export interface DenoServing {
  server: EdgeServer;
  addr: { hostname: string; port: number };
  /** Resolves when the listener has closed. */
  finished: Promise<void>;
  /** Stops accepting, lets open requests finish, then runs the server's shutdown sequence. */
  shutdown(): Promise<void>;
}

/** Deno's file system for the options (token files, manifests …). */
export const denoFileSystem: FileSystem = {
  readFile: async (path) => {
    try {
      return await Deno.readFile(path);
    } catch (err) {
      throw new Error(`open ${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
  },
  readDir: async (path) => {
    try {
      const names: string[] = [];
      for await (const e of Deno.readDir(path)) if (e.isFile) names.push(e.name);
      return names.sort();
    } catch {
      return undefined;
    }
  },
};

/** The request and what the connection tells us, as the chain takes them. */
export function denoTransport(request: Request, info: DenoServeInfo, tls: boolean, clientCertHeader?: string): { request: Request; transport: Transport } {
  const transport: Transport = { remoteAddress: info.remoteAddr.hostname, remotePort: info.remoteAddr.port };
  if (clientCertHeader) {
    const taken = takeForwardedClientCertificates(request, clientCertHeader);
    request = taken.request;
    if (taken.certificates.length) transport.peerCertificates = taken.certificates;
  }
  if (!tls) transport.protocol = 'http/1.1';
  return { request, transport };
}

/** Builds the server (rejecting on bad flags), then serves it with Deno.serve. */
export async function serve(options: DenoServeOptions = {}): Promise<DenoServing> {
  const settings = { ...options, fileSystem: options.fileSystem ?? denoFileSystem };
  const server = new EdgeServer(settings);
  const listen = await listenSettings(await server.ready(), edgeFileSystem(settings));
  const cert = options.cert ?? listen.cert;
  const key = options.key ?? listen.key;
  const tls = Boolean(cert && key);
  const stop = new AbortController();
  options.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const http = Deno.serve(
    {
      port: options.port ?? listen.port,
      hostname: options.hostname ?? listen.hostname,
      ...(tls ? { cert, key } : {}),
      signal: stop.signal,
      onListen: options.onListen ?? (() => {}),
    },
    (req, info) => {
      const { request, transport } = denoTransport(req, info, tls, options.clientCertHeader);
      return server.fetch(request, transport);
    },
  );
  const finished = http.finished.then(() => server.stop());
  const shutdown = async () => {
    stop.abort();
    await finished;
  };
  return { server, addr: http.addr, finished, shutdown };
}
