// Bun: the chain behind Bun.serve (HTTPS when cert/key are given, HTTP/2 by ALPN with `http2`).
// The server is built once from the same kube-apiserver flags as the CLI; files the flags name
// are read from disk (Bun.file) unless given in `files`. Bun.serve does not expose the peer
// certificate to fetch (bun#14097), so x509 client auth needs a trusted proxy header.
//
//   import { serve } from 'edge-apiserver/bun';
//   await serve({ flags: '--token-auth-file=/etc/k/tokens.csv', port: 6443, cert, key });
//
// Or run adapters/bun/main.ts, configured by APISERVER_* env vars (README "Deploy: Bun").

import type { Transport } from '../../src/endpoints/request/context.ts';
import { takeForwardedClientCertificates } from '../../src/endpoints/request/client-cert.ts';
import { EdgeServer, edgeFileSystem, listenSettings, type EdgeSettings } from '../../src/server/edge.ts';
import type { FileSystem } from '../../src/server/options/filesystem.ts';

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
  file(path: string): { exists(): Promise<boolean>; bytes(): Promise<Uint8Array> };
}
declare const Bun: BunNamespace;

export interface BunServeSettings extends EdgeSettings {
  /** Default `--secure-port` (6443); 0 picks a free port (see the returned port). */
  port?: number;
  /** Default `--bind-address` (0.0.0.0). */
  hostname?: string;
  /**
   * PEM certificate chain and key; default: the `--tls-cert-file`/`--tls-private-key-file` files.
   * Without either, Bun serves plain HTTP (only behind a TLS-terminating proxy).
   */
  cert?: string;
  key?: string;
  /** Offer HTTP/2 by ALPN (with TLS). Default true. */
  http2?: boolean;
  /** Trust this RFC 9440 header (e.g. `Client-Cert`) from a proxy in front for client certificates. */
  clientCertHeader?: string;
}

export interface BunServing {
  server: EdgeServer;
  port: number;
  hostname: string;
  /** Stops accepting, lets open requests finish, then runs the server's shutdown sequence. */
  shutdown(): Promise<void>;
}

/** Bun's file system for the options (token files, manifests …). */
export const bunFileSystem: FileSystem = {
  readFile: async (path) => {
    const f = Bun.file(path);
    if (!(await f.exists())) throw new Error(`open ${path}: no such file or directory`);
    return f.bytes();
  },
};

export function bunTransport(request: Request, bunServer: BunServer, tls: boolean, clientCertHeader?: string): { request: Request; transport: Transport } {
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

/** Builds the server (rejecting on bad flags), then serves it with Bun.serve. */
export async function serve(settings: BunServeSettings = {}): Promise<BunServing> {
  const withFs = { ...settings, fileSystem: settings.fileSystem ?? bunFileSystem };
  const server = new EdgeServer(withFs);
  const listen = await listenSettings(await server.ready(), edgeFileSystem(withFs));
  const cert = settings.cert ?? listen.cert;
  const key = settings.key ?? listen.key;
  const tls = Boolean(cert && key);
  const http = Bun.serve({
    port: settings.port ?? listen.port,
    hostname: settings.hostname ?? listen.hostname,
    ...(tls ? { tls: { cert: cert!, key: key! }, http2: settings.http2 ?? true } : {}),
    fetch(req, bunServer) {
      const { request, transport } = bunTransport(req, bunServer, tls, settings.clientCertHeader);
      return server.fetch(request, transport);
    },
  });
  return {
    server,
    port: http.port,
    hostname: http.hostname,
    shutdown: async () => {
      await http.stop(false);
      await server.stop();
    },
  };
}
