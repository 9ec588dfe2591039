// The Node TLS listener (SecureServingInfo.Serve + RunServer, pkg/server/secure_serving.go): HTTP/2 and
// HTTP/1.1 on one port by ALPN, upstream's server limits, per-handshake certificate selection
// (SNI, reloadable files), optional client certificates, and Go's graceful Shutdown (stop
// accepting, GOAWAY, drain, then close what is left).

import http2 from 'node:http2';
import https from 'node:https';
import tls from 'node:tls';
import type net from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { ServingListener } from '../../src/server/genericapiserver.ts';
import type { SecureServingInfo } from '../../src/server/options/serving.ts';
import type {
  CAContentProvider,
  CertKeyContent,
  CertKeyContentProvider,
} from '../../src/server/dynamiccertificates/content.ts';
import {
  buildNameToCertificate,
  selectByLocalAddress,
  selectByServerName,
} from '../../src/server/dynamiccertificates/sni.ts';
import type { Transport } from '../../src/endpoints/request/context.ts';
import { discardLogger, type Logger } from '../../src/util/logger.ts';
import { FairDispatcher } from './fair-dispatch.ts';
import { GoServerResponse, presetResponseHeaders } from './go-response.ts';
import { StreamRequest } from './h2-request.ts';
import { IncomingRequest } from './h1-request.ts';
import { closeOnClose, hopByHop, lightResponseCache, StreamResponse } from './h2-response.ts';

export interface NodeServingListenerOptions {
  logger?: Logger;
  /** Overrides `bindPort` (0: an ephemeral port, as upstream's pre-made listener in tests). */
  port?: number;
  /** Go's ReadHeaderTimeout: a client must send its request headers within this (ms). Default 32 s. */
  headersTimeout?: number;
  /** Go's IdleTimeout for HTTP/1.1 keep-alive and idle HTTP/2 sessions (ms). Default 90 s. */
  idleTimeout?: number;
  /** How often an HTTP/2 session is PINGed; unanswered by the next PING, its connection is closed (ms). Default 30 s. */
  pingInterval?: number;
  /** Client CA used when `info.clientCA` is unset (e.g. from --client-ca-file via the authentication options). */
  clientCA?: CAContentProvider;
  /** Called for every failed TLS handshake (apiserver_tls_handshake_errors_total). */
  onTLSHandshakeError?: () => void;
}

/** MaxHeaderBytes (1 MiB). */
export const maxHeaderBytes = 1 << 20;
/** Go reads up to MaxHeaderBytes + 4096 (bufio slack) for the request line and headers of HTTP/1. */
const h1HeaderLimit = maxHeaderBytes + 4096;
/** Go's HTTP/2 SETTINGS_MAX_HEADER_LIST_SIZE: MaxHeaderBytes plus 10 typical fields × 32 bytes overhead. */
const h2HeaderListSize = maxHeaderBytes + 10 * 32;
/** MaxUploadBufferPerStream and MaxReadFrameSize (256 KiB). */
const perStreamBuffer = 256 << 10;
/** Go's TCP keep-alive period for accepted connections. */
const tcpKeepAlive = 3 * 60 * 1000;

type Handler = (request: Request, transport?: Transport) => Response | Promise<Response>;
type AnyServer = http2.Http2SecureServer | https.Server;

/** Go errno texts for listen failures. */
const listenErrors: Record<string, string> = {
  EADDRINUSE: 'bind: address already in use',
  EACCES: 'bind: permission denied',
  EADDRNOTAVAIL: 'bind: cannot assign requested address',
};

export class NodeServingListener implements ServingListener {
  readonly info: SecureServingInfo;
  private readonly opts: NodeServingListenerOptions;
  private readonly logger: Logger;
  private readonly server: AnyServer;
  private handler: Handler | undefined;
  private handlerReady!: () => void;
  private readonly handlerSet = new Promise<void>((r) => (this.handlerReady = r));
  private readonly sockets = new Set<net.Socket>();
  private readonly sessions = new Set<http2.ServerHttp2Session>();
  private readonly providersStop = new AbortController();
  private shuttingDown = false;
  private resolveStopped!: () => void;
  readonly stoppedListening = new Promise<void>((r) => (this.resolveStopped = r));
  private readonly clientCA?: CAContentProvider;
  private readonly contextCache = new Map<string, tls.SecureContext>();
  private defaultContext: tls.SecureContext | undefined;
  private byName = new Map<string, tls.SecureContext>();
  private readonly dispatcher = new FairDispatcher();
  /** Accept time of each raw socket, and the TLS socket that took it over (for Shutdown). */
  private readonly accepted = new WeakMap<net.Socket, { at: number; tls?: tls.TLSSocket }>();
  /** The runtime links a TLS socket to its raw socket (Node's `_parent`): see closeNewConnections. */
  private tlsParentKnown = false;

  constructor(info: SecureServingInfo, opts: NodeServingListenerOptions = {}) {
    this.info = info;
    this.opts = opts;
    this.logger = opts.logger ?? discardLogger;
    this.clientCA = info.clientCA ?? opts.clientCA;
    if (!info.cert && !info.sniCerts.length) throw new Error('no serving certificate available for the secure server');
    this.rebuildContexts(true);
    for (const p of this.providers()) p.addListener(() => this.rebuildContexts(false));
    this.clientCA?.addListener(() => this.rebuildContexts(false));
    this.server = this.createServer();
  }

  private providers(): CertKeyContentProvider[] {
    return [...(this.info.cert ? [this.info.cert] : []), ...this.info.sniCerts];
  }

  /** The TLS options every context shares (min version, ciphers, client CA). */
  private tlsBase(): tls.SecureContextOptions {
    const info = this.info;
    const base: tls.SecureContextOptions = { minVersion: info.minTLSVersion };
    let ciphers = info.openSSLCipherSuites.length ? info.openSSLCipherSuites.join(':') : undefined;
    // OpenSSL 3 refuses TLS < 1.2 at the default security level.
    if (info.minTLSVersion === 'TLSv1' || info.minTLSVersion === 'TLSv1.1')
      ciphers = `${ciphers ?? tls.DEFAULT_CIPHERS}:@SECLEVEL=0`;
    if (ciphers) base.ciphers = ciphers;
    const ca = this.clientCA?.currentCABundleContent();
    if (ca) base.ca = ca;
    return base;
  }

  private contextFor(content: CertKeyContent, base: tls.SecureContextOptions): tls.SecureContext {
    const key = `${content.cert}\0${content.key}\0${base.ca ?? ''}`;
    let ctx = this.contextCache.get(key);
    if (!ctx) {
      ctx = tls.createSecureContext({ ...base, cert: content.cert, key: content.key });
      this.contextCache.set(key, ctx);
    }
    return ctx;
  }

  /**
   * The dynamic serving controller: one context per certificate, the SNI name map, and the
   * default context. A failure keeps the previous configuration (except at start-up).
   */
  private rebuildContexts(initial: boolean): void {
    try {
      const base = this.tlsBase();
      const used = new Set<tls.SecureContext>();
      const ctxOf = (p: CertKeyContentProvider) => {
        const c = this.contextFor(p.currentCertKeyContent(), base);
        used.add(c);
        return c;
      };
      const defaultProvider = this.info.cert ?? this.info.sniCerts[0]!;
      const defaultContext = ctxOf(defaultProvider);
      const byName = buildNameToCertificate(
        this.info.sniCerts.map((p) => ({
          explicitNames: p.sniNames(),
          leaf: p.currentCertKeyContent().parsed.leaf,
          value: ctxOf(p),
        })),
      );
      for (const [k, v] of this.contextCache) if (!used.has(v)) this.contextCache.delete(k);
      const defaultChanged = this.defaultContext !== undefined && this.defaultContext !== defaultContext;
      this.defaultContext = defaultContext;
      this.byName = byName;
      if (defaultChanged) this.server.setSecureContext(this.serverTLSOptions());
    } catch (err) {
      if (initial) throw new Error(`error configuring TLS: ${(err as Error).message}`);
      this.logger.error('Failed to rebuild the TLS configuration, keeping the previous one', {
        err: (err as Error).message,
      });
    }
  }

  private serverTLSOptions(): tls.TlsOptions {
    const content = (this.info.cert ?? this.info.sniCerts[0]!).currentCertKeyContent();
    return {
      ...this.tlsBase(),
      cert: content.cert,
      key: content.key,
      // RequestClientCert: ask, do not require, do not fail the handshake (verified per request).
      requestCert: Boolean(this.clientCA),
      rejectUnauthorized: false,
      handshakeTimeout: this.opts.headersTimeout ?? 32_000,
      SNICallback: (servername, cb) => cb(null, selectByServerName(this.byName, servername) ?? this.defaultContext),
    };
  }

  private createServer(): AnyServer {
    const info = this.info;
    const headersTimeout = this.opts.headersTimeout ?? 32_000;
    const idle = this.opts.idleTimeout ?? 90_000;
    const serve = getRequestListener((request, env) => this.handle(request, env.incoming, env.outgoing));
    const dispatcher = this.dispatcher;
    const listener = (
      incoming: IncomingMessage | http2.Http2ServerRequest,
      outgoing: ServerResponse | http2.Http2ServerResponse,
    ) => {
      const h2 = isHTTP2(incoming);
      if (!h2) {
        const refused = refuseHTTP1(incoming);
        if (refused) return void incoming.socket.end(refused);
      }
      // Uncontended: start at once, without the closures a waiting request needs.
      if (dispatcher.tryStart()) return void serve(incoming as IncomingMessage, outgoing as ServerResponse);
      const stream = (incoming as http2.Http2ServerRequest).stream as http2.ServerHttp2Stream | undefined;
      if (stream) {
        return dispatcher.dispatch({
          connection: stream.session!,
          alive: () => !stream.destroyed,
          start: () => void serve(incoming as unknown as IncomingMessage, outgoing as ServerResponse),
        });
      }
      const socket = incoming.socket;
      holdPipelined(socket);
      dispatcher.dispatch({
        connection: socket,
        alive: () => !socket.destroyed,
        start: () => {
          releasePipelined(socket);
          serve(incoming as IncomingMessage, outgoing as ServerResponse);
        },
      });
    };
    let server: AnyServer;
    if (info.disableHTTP2) {
      this.logger.info('Forcing use of http/1.1 only');
      server = https.createServer(
        {
          ...this.serverTLSOptions(),
          ALPNProtocols: ['http/1.1'],
          ServerResponse: GoServerResponse,
          maxHeaderSize: h1HeaderLimit,
          keepAliveTimeout: 0, // idleHTTP1 below
          headersTimeout,
          requestTimeout: 0,
          connectionsCheckingInterval: Math.min(1000, headersTimeout),
        },
        listener,
      );
    } else {
      const streams = info.http2MaxStreamsPerConnection;
      server = http2.createSecureServer(
        {
          ...this.serverTLSOptions(),
          allowHTTP1: true,
          // Go sets TCP_NODELAY on every accepted connection (net/tcpsock_posix.go newTCPConn);
          // https.Server does too, Http2SecureServer does not.
          noDelay: true,
          Http1ServerResponse: GoServerResponse,
          Http2ServerResponse: GoHttp2ServerResponse,
          settings: {
            maxConcurrentStreams: streams,
            maxHeaderListSize: h2HeaderListSize,
            initialWindowSize: perStreamBuffer,
            maxFrameSize: perStreamBuffer,
          },
          // MaxUploadBufferPerConnection = 256 KiB × streams (Node counts MB).
          maxSessionMemory: Math.max(10, Math.ceil((perStreamBuffer * streams) / (1 << 20))),
          maxHeaderListPairs: 4096,
        },
        listener,
      );
      // HTTP/1.1 fallback knobs are properties on the HTTP/2 server (not createSecureServer options).
      const h1 = server as unknown as Record<string, number>;
      h1.maxHeaderSize = h1HeaderLimit;
      h1.keepAliveTimeout = 0; // idleHTTP1 below
      h1.headersTimeout = headersTimeout;
      h1.requestTimeout = 0;
      h1.connectionsCheckingInterval = Math.min(1000, headersTimeout);
      server.on('session', (s) => {
        // MaxUploadBufferPerConnection: the connection-level receive window (RFC default 64 KiB).
        s.once('connect', () => s.setLocalWindowSize?.(perStreamBuffer * streams));
        this.trackSession(s, idle);
      });
      server.on('sessionError', () => {});
      // Where Node's internals allow it, HTTP/2 streams bypass this listener (dispatchStreams).
      this.dispatchStreams(server);
      lingerAfterGoAway(server);
    }
    idleHTTP1(server, idle);
    server.on('clientError', onClientError);
    this.interceptConnections(server, headersTimeout);
    server.on('connection', (socket: net.Socket) => {
      // A reset before TLS or HTTP takes the socket over is this connection's end only.
      socket.on('error', ignoreError);
      socket.setKeepAlive(true, tcpKeepAlive);
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('tlsClientError', (err: Error, socket: tls.TLSSocket) => {
      this.opts.onTLSHandshakeError?.();
      // Upstream logs these at V(5) only (secure_serving.go).
      if (this.logger.enabled(5)) {
        this.logger.info(
          `http: TLS handshake error from ${hostPort(socket.remoteAddress, socket.remotePort)}: ${err.message}`,
          undefined,
          5,
        );
      }
    });
    this.trackNewConnections(server);
    return server;
  }

  private trackNewConnections(server: AnyServer): void {
    server.on('connection', (raw: net.Socket) => this.accepted.set(raw, { at: Date.now() }));
    server.on('secureConnection', (t: tls.TLSSocket) => {
      const raw = (t as unknown as { _parent?: net.Socket })._parent;
      const entry = raw && this.accepted.get(raw);
      if (!entry) return;
      entry.tls = t;
      this.tlsParentKnown = true;
    });
  }

  /**
   * Go's Shutdown (net/http server.go closeIdleConns) counts a connection that has not delivered
   * a request for more than 5 s since it was accepted (StateNew: TLS handshake or request headers
   * unfinished) as idle and closes it. Node's HTTP/1 header-timeout checker stops with
   * server.close(), so without this one silent or slow connection holds the shutdown for the
   * whole shutdown timeout (60 s by default, more than a pod's termination grace period).
   * HTTP/2 sessions are left to their GOAWAY; an HTTP/1 socket with a request in flight is busy.
   */
  private closeNewConnections(): void {
    if (!this.tlsParentKnown) return;
    const before = Date.now() - 5000;
    for (const raw of this.sockets) {
      const e = this.accepted.get(raw);
      if (!e || e.at > before) continue;
      const t = e.tls;
      // Node's HTTP/1 server sets `_httpMessage` to the response while a request is in flight.
      if (t && (t.alpnProtocol === 'h2' || (t as unknown as { _httpMessage?: unknown })._httpMessage)) continue;
      raw.destroy();
      t?.destroy();
    }
  }

  /**
   * Runs before the TLS layer sees a connection: (1) a plaintext HTTP request gets Go's
   * `400 … Client sent an HTTP request to an HTTPS server.`; (2) without SNI, a certificate named
   * by the local IP (`--tls-sni-cert-key …:<ip>`) is served instead of the default (dynamiccertificates).
   * Node offers no per-connection default certificate, so (2) swaps the server's shared context
   * for the synchronous TLSSocket construction. On runtimes without Node's internals, neither applies.
   */
  private interceptConnections(server: AnyServer, handshakeTimeout: number): void {
    const listeners = server.listeners('connection') as ((this: AnyServer, s: net.Socket) => void)[];
    const tlsListener = listeners.find((f) => f.name === 'tlsConnectionListener');
    if (!tlsListener || !('_sharedCreds' in server)) return;
    server.removeListener('connection', tlsListener);
    const shared = server as unknown as { _sharedCreds: tls.SecureContext };
    server.prependListener('connection', (raw: net.Socket) => {
      // A reset before the TLS layer takes the socket must not become an uncaught 'error'.
      raw.on('error', () => raw.destroy());
      // Go bounds the handshake by ReadHeaderTimeout; the first bytes must arrive within it too.
      const timer = setTimeout(() => raw.destroy(), handshakeTimeout);
      timer.unref();
      raw.once('close', () => clearTimeout(timer));
      raw.once('readable', () => {
        const chunk = raw.read() as Buffer | null;
        if (!chunk) return void raw.destroy();
        if (chunk[0] !== 0x16 && looksLikeHTTP(chunk)) {
          clearTimeout(timer);
          raw.end('HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n');
          return;
        }
        clearTimeout(timer); // TLSSocket's own handshake timeout takes over
        raw.unshift(chunk);
        const byIP = selectByLocalAddress(this.byName, raw.localAddress);
        if (!byIP) return tlsListener.call(server, raw);
        const prev = shared._sharedCreds;
        shared._sharedCreds = byIP;
        try {
          tlsListener.call(server, raw);
        } finally {
          shared._sharedCreds = prev;
        }
      });
    });
  }

  /**
   * HTTP/2 streams are served on Node's core stream API (serveStream), without the compatibility
   * API's request and response objects, and go through the fair dispatcher first: a waiting
   * stream holds little memory (thousands may wait under a flood, and every young-generation GC
   * copies them). On runtimes without Node's compatibility listener to replace, their requests
   * go through the compatibility API and are dispatched as HTTP/1.1's are.
   */
  private dispatchStreams(server: http2.Http2SecureServer): void {
    type StreamListener = (
      stream: http2.ServerHttp2Stream,
      headers: http2.IncomingHttpHeaders,
      flags: number,
      rawHeaders: string[],
    ) => void;
    const compat = (server.listeners('stream') as StreamListener[]).find((f) => f.name === 'bound onServerStream');
    if (!compat) return;
    server.removeListener('stream', compat);
    server.on(
      'stream',
      (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, _flags: number, rawHeaders: string[]) => {
        // A session that dies of a client's protocol error (e.g. HEADERS over MaxConcurrentStreams)
        // destroys its streams with that error. Unheard, it would end the process; it ends this
        // client's streams only (Go's http2 server logs such errors at verbose levels only; Node's
        // compatibility API ignores them too).
        stream.on('error', ignoreError);
        if (this.dispatcher.tryStart()) return this.serveStream(stream, headers, rawHeaders);
        this.dispatcher.dispatch({
          connection: stream.session!,
          alive: () => !stream.destroyed,
          start: () => this.serveStream(stream, headers, rawHeaders),
        });
      },
    );
  }

  /**
   * One HTTP/2 stream, as Node's compatibility API (lib/internal/http2/compat.js onServerStream)
   * and @hono/node-server's listener would serve it: CONNECT is 405, `Expect: 100-continue` gets
   * its 100, any other expectation 417; a request that cannot be built is 400.
   */
  private serveStream(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, rawHeaders: string[]): void {
    const out = new StreamResponse(stream, this.logger);
    if (headers[':method'] === 'CONNECT') return out.empty(405);
    const expect = headers.expect;
    if (expect !== undefined) {
      if (expect !== '100-continue') return out.empty(417);
      if (!stream.headersSent && !stream.closed) stream.additionalHeaders({ ':status': 100 });
    }
    let request: StreamRequest;
    try {
      request = new StreamRequest(stream, headers, rawHeaders);
    } catch {
      return out.empty(400);
    }
    out.request = request;
    out.send(this.handleStream(request, rawHeaders, out));
  }

  private handleStream(
    request: StreamRequest,
    rawHeaders: string[],
    out: StreamResponse,
  ): Response | Promise<Response> {
    if (!this.handler) return this.handlerSet.then(() => this.handleStream(request, rawHeaders, out));
    const session = out.stream.session as http2.ServerHttp2Session;
    const transport = new NodeTransport(session.socket as tls.TLSSocket, rawHeaders, session, out);
    try {
      return this.handler(request as unknown as Request, transport);
    } catch (err) {
      // As a rejection, the way an async handler failed (answered 500, as @hono/node-server does).
      return Promise.reject(err);
    }
  }

  /** Counts streams per session; a session without streams for `idle` ms is closed (Go IdleTimeout). */
  private trackSession(s: http2.ServerHttp2Session, idle: number): void {
    this.sessions.add(s);
    if (this.shuttingDown) s.close();
    let active = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      timer = setTimeout(() => s.close(), idle);
      timer.unref();
    };
    arm();
    // One listener per session, not a closure (and a once-wrapper) per stream.
    const onStreamClose = () => {
      if (--active === 0 && !s.closed && !s.destroyed) arm();
    };
    s.on('stream', (stream: http2.ServerHttp2Stream) => {
      active++;
      if (timer) clearTimeout(timer);
      timer = undefined;
      stream.on('close', onStreamClose);
    });
    s.on('error', ignoreError);
    const health = this.checkPeer(s);
    s.once('close', () => {
      if (timer) clearTimeout(timer);
      clearInterval(health);
      this.sessions.delete(s);
    });
  }

  /**
   * Go's server notices a peer that reset the connection at once: a goroutine always reads it.
   * Node's HTTP/2 session stops reading its socket while a write is pending, and when the peer
   * resets the connection then (a client that stopped reading, then died), nothing tells it: the
   * session, its streams and their request bodies stay, and neither close() nor destroy() ends a
   * session whose write never completes. A PING every `pingInterval`: one unanswered by the next
   * (a live client's HTTP/2 stack answers at once) destroys the TCP socket under the session.
   */
  private checkPeer(s: http2.ServerHttp2Session): ReturnType<typeof setInterval> {
    let waiting = false;
    // Taken now: a destroyed session's socket proxy throws on every access.
    const raw = (s.socket as unknown as { _parent?: net.Socket } | undefined)?._parent;
    const check = setInterval(() => {
      if (waiting) {
        this.logger.info('http2: no PING acknowledgement, closing the connection', undefined, 4);
        if (raw) raw.destroy();
        else s.destroy();
        return clearInterval(check);
      }
      waiting = true;
      // A destroyed session that has not closed by the next tick is stuck the same way.
      if (s.destroyed) return;
      try {
        s.ping((err) => {
          if (!err) waiting = false;
        });
      } catch {
        waiting = false;
      }
    }, this.opts.pingInterval ?? 30_000);
    check.unref();
    return check;
  }

  /**
   * Synchronous when the handler is: @hono/node-server writes a Response returned as such at
   * once, where a Promise costs it a close handler and several awaits per request.
   */
  private handle(
    request: Request,
    incoming: IncomingMessage | http2.Http2ServerRequest,
    outgoing: ServerResponse | http2.Http2ServerResponse,
  ): Response | Promise<Response> {
    if (!this.handler) return this.handlerSet.then(() => this.handle(request, incoming, outgoing));
    const h2 = isHTTP2(incoming);
    const session = h2 ? (incoming as http2.Http2ServerRequest).stream.session : undefined;
    const socket = (h2 ? session!.socket : incoming.socket) as tls.TLSSocket;
    const transport = new NodeTransport(
      socket,
      incoming.rawHeaders,
      session as http2.ServerHttp2Session | undefined,
      outgoing,
    );
    let out: Response | Promise<Response>;
    try {
      out = this.handler(
        h2 ? request : (new IncomingRequest(request, incoming.rawHeaders) as unknown as Request),
        transport,
      );
    } catch (err) {
      // As a rejection, the way an async handler failed (@hono/node-server treats the two differently).
      return Promise.reject(err);
    }
    return out instanceof Promise
      ? out.then((response) => this.answered(response, h2, outgoing))
      : this.answered(out, h2, outgoing);
  }

  private answered(response: Response, h2: boolean, outgoing: ServerResponse | http2.Http2ServerResponse): Response {
    // Go's Shutdown disables keep-alives: responses close their connection.
    if (!h2 && this.shuttingDown) outgoing.setHeader('connection', 'close');
    return response;
  }

  /** Binds the port (upstream: ApplyTo creates the listener). Throws Go's listen error text. */
  async listen(): Promise<void> {
    const info = this.info;
    const port = this.opts.port ?? info.bindPort;
    const unspecified = info.bindAddress === '' || info.bindAddress === '0.0.0.0' || info.bindAddress === '::';
    // Go's "tcp" on an unspecified address is dual-stack; Node's '0.0.0.0' is IPv4 only.
    const hosts =
      unspecified && info.bindNetwork !== 'tcp4'
        ? ['::', ...(info.bindNetwork === 'tcp6' ? [] : ['0.0.0.0'])]
        : [info.bindAddress === '' ? '0.0.0.0' : info.bindAddress];
    const display = joinHostPort(info.bindAddress || '0.0.0.0', port);
    let lastErr: NodeJS.ErrnoException | undefined;
    for (const host of hosts) {
      try {
        await new Promise<void>((resolve, reject) => {
          this.server.once('error', reject);
          this.server.listen(
            { host, port, ipv6Only: info.bindNetwork === 'tcp6', reusePort: info.permitPortSharing || undefined },
            () => {
              this.server.off('error', reject);
              resolve();
            },
          );
        });
        // Accept errors (EMFILE …) are logged; Go's accept loop backs off and retries.
        this.server.on('error', (err) => this.logger.error('Accept error', { err: err.message }));
        return;
      } catch (err) {
        lastErr = err as NodeJS.ErrnoException;
        // Only fall back to IPv4 when the host has no IPv6.
        if (lastErr.code !== 'EAFNOSUPPORT' && lastErr.code !== 'EADDRNOTAVAIL') break;
      }
    }
    const net = info.bindNetwork;
    const reason = (lastErr?.code && listenErrors[lastErr.code]) ?? lastErr?.message;
    throw new Error(`failed to create listener: failed to listen on ${display}: listen ${net} ${display}: ${reason}`);
  }

  /** The bound address (after listen). */
  address(): net.AddressInfo {
    return this.server.address() as net.AddressInfo;
  }

  /** `host:port` as Go prints a listener address (`[::]:6443`). */
  addressString(): string {
    const a = this.address();
    return joinHostPort(a.address, a.port);
  }

  async serve(handler: Handler): Promise<void> {
    if (!this.server.listening) await this.listen();
    this.handler = handler;
    this.handlerReady();
    for (const p of this.providers()) p.run?.(this.providersStop.signal);
    this.clientCA?.run?.(this.providersStop.signal);
    this.logger.info(`Serving securely on ${this.addressString()}`);
  }

  /**
   * Go's http.Server.Shutdown: close the listener (new connections are refused), GOAWAY every
   * HTTP/2 session, close idle HTTP/1 connections, let in-flight requests finish, and after
   * `timeoutMs` destroy whatever is still open.
   */
  async shutdown(timeoutMs: number): Promise<void> {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    const addr = this.server.listening ? this.addressString() : '';
    this.server.close();
    this.resolveStopped();
    this.providersStop.abort();
    if (addr) this.logger.info(`Stopped listening on ${addr}`);
    for (const s of this.sessions) s.close();
    (this.server as https.Server).closeIdleConnections?.();
    const deadline = Date.now() + timeoutMs;
    while (this.sockets.size && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, Math.min(50, Math.max(1, deadline - Date.now()))));
      (this.server as https.Server).closeIdleConnections?.();
      this.closeNewConnections();
    }
    if (this.sockets.size) {
      this.logger.error('Failed to shutdown server: context deadline exceeded');
      for (const s of this.sessions) s.destroy();
      for (const s of this.sockets) s.destroy();
    }
  }
}

/**
 * `response.headers.get(name)` for a lower-case name. Answers null itself only when the init
 * provably lacks the header (a plain object without the key, or no headers and a name other than
 * the default content-type); everything else asks the Response.
 */
export function lightResponseHeader(response: Response, name: string): string | null {
  const cache = lightResponseCache(response);
  if (cache) {
    const init = cache[2] as unknown;
    if (init == null) {
      if (name !== 'content-type') return null;
    } else if (typeof init === 'object' && !Array.isArray(init) && !(init instanceof Headers)) {
      let found = false;
      for (const k in init) if (k.length === name.length && k.toLowerCase() === name) found = true;
      if (!found) return null;
    }
  }
  return response.headers.get(name);
}

/** The Transport seam, filled lazily from the socket (certificates are parsed only when asked). */
class NodeTransport implements Transport {
  private readonly socket: tls.TLSSocket;
  private readonly session?: http2.ServerHttp2Session;
  private readonly raw: string[];
  readonly protocol: 'h2' | 'http/1.1';
  /**
   * HTTP/1.1's framing (Transport.bodyWithinContentLength). HTTP/2 streams would qualify too
   * (nghttp2 resets a stream whose DATA exceeds its content-length), but reading one whole
   * measured no cheaper than its body stream (bench/instructions-wire.ts api-create h2).
   */
  readonly bodyWithinContentLength: boolean;
  private readonly outgoing: ServerResponse | http2.Http2ServerResponse | StreamResponse;
  private headerLines: string[] | undefined;
  constructor(
    socket: tls.TLSSocket,
    rawHeaders: string[],
    session: http2.ServerHttp2Session | undefined,
    outgoing: ServerResponse | http2.Http2ServerResponse | StreamResponse,
  ) {
    this.socket = socket;
    this.session = session;
    this.raw = rawHeaders;
    this.outgoing = outgoing;
    this.protocol = session ? 'h2' : 'http/1.1';
    this.bodyWithinContentLength = !session;
  }
  /** The filters' headers go to the outgoing message; writeHead's (the Response's) win on a clash. */
  presetHeaders(headers: Headers): void {
    const outgoing = this.outgoing;
    // HTTP/2 on the core API: into the stream's response headers.
    if (outgoing instanceof StreamResponse) return outgoing.preset(headers);
    const session = this.session;
    // HTTP/1: merged into writeHead's header object (go-response.ts), no setHeader per header.
    if (!session && presetResponseHeaders(this.outgoing, headers)) return;
    for (const [name, value] of headers) {
      if (session && hopByHop.has(name)) {
        if (name === 'connection') closeOnClose(value, session);
        continue;
      }
      outgoing.setHeader(name, value);
    }
  }
  /** HTTP/2 only (probabilistic GOAWAY); built when asked, not per request. */
  get goaway(): (() => void) | undefined {
    const session = this.session;
    return session && (() => void (!session.closed && session.close()));
  }
  get peerCertificates(): Uint8Array[] {
    return peerChain(this.socket);
  }
  responseHeader(response: Response, name: string): string | null {
    return lightResponseHeader(response, name);
  }
  get rawHeaders(): readonly string[] {
    if (!this.session) return this.raw;
    // HTTP/2 pseudo-headers (:method, :path …) are not header lines; filtered once per request
    // (authentication reads the list several times).
    if (this.headerLines) return this.headerLines;
    const out: string[] = [];
    for (let i = 0; i < this.raw.length; i += 2)
      if (!this.raw[i]!.startsWith(':')) out.push(this.raw[i]!, this.raw[i + 1]!);
    return (this.headerLines = out);
  }
  get remoteAddress(): string | undefined {
    return unmapIPv4(this.socket.remoteAddress);
  }
  get remotePort(): number | undefined {
    return this.socket.remotePort;
  }
  get localAddress(): string | undefined {
    return unmapIPv4(this.socket.localAddress);
  }
  get tlsVersion(): string | undefined {
    return this.socket.getProtocol?.() ?? undefined;
  }
}

const chains = new WeakMap<tls.TLSSocket, Uint8Array[]>();

/** The client's certificate chain as DER, leaf first (getPeerCertificate(true) links issuers). */
function peerChain(socket: tls.TLSSocket): Uint8Array[] {
  let chain = chains.get(socket);
  if (chain) return chain;
  chain = [];
  let c = socket.getPeerCertificate?.(true) as tls.DetailedPeerCertificate | undefined;
  const seen = new Set<unknown>();
  while (c && c.raw && !seen.has(c)) {
    seen.add(c);
    chain.push(new Uint8Array(c.raw));
    if (!c.issuerCertificate || c.issuerCertificate === c) break;
    c = c.issuerCertificate;
  }
  chains.set(socket, chain);
  return chain;
}

/**
 * Go's IdleTimeout for HTTP/1.1 keep-alive connections, as the socket's own inactivity timer set
 * once per connection. Node's keepAliveTimeout re-arms a timer twice per request (cleared when a
 * request starts, set again when its response ends); here every read and write refreshes the one
 * timer, and when it fires a connection with a request in flight (a quiet watch) is kept.
 */
function idleHTTP1(server: AnyServer, idle: number): void {
  server.on('secureConnection', (t: tls.TLSSocket) => {
    if (t.alpnProtocol !== 'h2') t.setTimeout(idle);
  });
  // Node's HTTP/1 socketOnTimeout destroys the socket unless the server handles 'timeout'.
  server.on('timeout', (s: net.Socket) => {
    const inFlight = s as unknown as { _httpMessage?: unknown; parser?: { incoming?: { complete: boolean } } };
    const incoming = inFlight.parser?.incoming;
    if (inFlight._httpMessage || (incoming && !incoming.complete)) return;
    s.destroy();
  });
}

/** golang.org/x/net/http2 server.go goAwayTimeout. */
const goAwayTimeout = 1000;

/**
 * Go's server, after the GOAWAY of a connection error, keeps reading (and discarding) for up to
 * goAwayTimeout before it closes. Node closes the socket right after the GOAWAY and its FIN, and
 * a client still sending (an oversized header block) gets a reset that can take the unread GOAWAY
 * with it. So an HTTP/2 socket destroyed with a session error drains until the client closes or
 * goAwayTimeout has passed.
 */
function lingerAfterGoAway(server: http2.Http2SecureServer): void {
  server.on('secureConnection', (t: tls.TLSSocket) => {
    if (t.alpnProtocol !== 'h2') return;
    const destroy = t.destroy;
    t.destroy = function (this: tls.TLSSocket, err?: Error) {
      // Once: whatever destroys it from now on (the timer, the client's FIN or reset) is Node's own.
      t.destroy = destroy;
      const code = (err as NodeJS.ErrnoException | undefined)?.code;
      if (!code?.startsWith('ERR_HTTP2') || this.destroyed || !this.readable) return destroy.call(this, err);
      const done = () => void (this.destroyed || destroy.call(this, err));
      const timer = setTimeout(done, goAwayTimeout);
      timer.unref();
      this.once('close', () => clearTimeout(timer));
      this.once('end', done);
      this.on('data', ignoreData);
      this.resume();
      return this;
    } as typeof t.destroy;
  });
}

const ignoreData = () => {};

/** An HTTP/2 request (compatibility API): an HTTP/1 request line may say 2.0 too. */
function isHTTP2(incoming: IncomingMessage | http2.Http2ServerRequest): incoming is http2.Http2ServerRequest {
  return incoming.httpVersionMajor === 2 && 'stream' in incoming;
}

// Go's answers to a request it cannot read (net/http server.go, conn.serve): a statusError as
// `<code> <text>: <detail>`, the rest as the public `400 Bad Request`, each with errorHeaders and
// the status line repeated as the body, then the connection is closed.
const errorHeaders = '\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n';
const statusError = (status: string, detail: string) =>
  `HTTP/1.1 ${status}: ${detail}${errorHeaders}${status}: ${detail}`;
const publicError = (status: string) => `HTTP/1.1 ${status}${errorHeaders}${status}`;
const unsupportedVersion = statusError('505 HTTP Version Not Supported', 'unsupported protocol version');
const badRequest = publicError('400 Bad Request');
const headersTooLarge = publicError('431 Request Header Fields Too Large');

/**
 * What Go's readRequest refuses after parsing and Node's parser passes: versions other than 1.x
 * (Node passes `HTTP/2.0` and `HTTP/0.9`, and reports a request line without a version, malformed
 * to Go, as 0.9 too), and HTTP/1.1 without exactly one Host header.
 */
function refuseHTTP1(incoming: IncomingMessage): string | undefined {
  const raw = incoming.rawHeaders;
  if (incoming.httpVersionMajor !== 1) return unsupportedVersion;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts++;
  if (hosts > 1) return statusError('400 Bad Request', 'too many Host headers');
  if (hosts === 0 && incoming.httpVersionMinor >= 1 && incoming.method !== 'CONNECT')
    return statusError('400 Bad Request', 'missing required Host header');
  return undefined;
}

/**
 * Node's parser refused an HTTP/1 request: Go's answer instead of Node's bare status line. A
 * version Go parses (`HTTP/<digit>.<digit>`, major not 1) is Go's 505; oversized headers 431;
 * Node's own 408 after the header timeout stays (Go closes silently); a reset gets nothing.
 */
function onClientError(err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: net.Socket): void {
  // The parser may report more errors from the same read: the first answer is on its way.
  if (socket.writableEnded) return;
  const message = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || message?.headersSent || err.code === 'ECONNRESET' || err.code === 'EPIPE')
    return void socket.destroy();
  let answer = badRequest;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') answer = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';
  else if (err.code === 'HPE_HEADER_OVERFLOW') answer = headersTooLarge;
  else if (err.code === 'HPE_INVALID_VERSION' && err.rawPacket) {
    const line = err.rawPacket.subarray(0, err.rawPacket.indexOf(0x0a) >>> 0).toString('latin1');
    const m = /^[^ ]+ [^ ]+ HTTP\/(\d)\.\d\r?$/.exec(line);
    if (m && m[1] !== '1') answer = unsupportedVersion;
  }
  socket.end(answer);
  // Go closes the connection after its answer; a client that does not read it cannot hold the socket.
  setTimeout(() => socket.destroy(), 1000).unref();
}

/**
 * Pipelined HTTP/1 requests that wait in the fair dispatcher, per connection. Node stops reading a
 * connection when its responses back up, but a waiting request has written nothing yet: without
 * this bound one connection's pipelined flood is read and queued whole (tens of thousands of
 * requests, hundreds of MB). Past `maxPipelined` the connection's reads stop (its TLS handle,
 * which Node's HTTP parser consumes directly, so pausing the stream would not stop it) until
 * its queue is half empty; what one read already holds is still parsed. HTTP/2 needs no such
 * bound: MaxConcurrentStreams caps what a session may have waiting.
 */
const maxPipelined = 32;
const pipelined = new WeakMap<net.Socket, number>();

type ReadHandle = { readStop?(): number; readStart?(): number };

function holdPipelined(socket: net.Socket): void {
  const n = (pipelined.get(socket) ?? 0) + 1;
  pipelined.set(socket, n);
  if (n >= maxPipelined) (socket as unknown as { _handle?: ReadHandle })._handle?.readStop?.();
}

function releasePipelined(socket: net.Socket): void {
  const n = (pipelined.get(socket) ?? 1) - 1;
  pipelined.set(socket, n);
  if (n === maxPipelined >> 1 && !socket.destroyed)
    (socket as unknown as { _handle?: ReadHandle })._handle?.readStart?.();
}

/** A client's protocol error ends its stream or session (Node has destroyed it), nothing else. */
function ignoreError(): void {}

/** Go's tlsRecordHeaderLooksLikeHTTP. */
function looksLikeHTTP(b: Buffer): boolean {
  const s = b.subarray(0, 5).toString('latin1');
  return s === 'GET /' || s === 'HEAD ' || s === 'POST ' || s === 'PUT /' || s === 'OPTIO';
}

function unmapIPv4(addr: string | undefined): string | undefined {
  return addr?.startsWith('::ffff:') && addr.includes('.') ? addr.slice(7) : addr;
}

export function joinHostPort(host: string | undefined, port: number | undefined): string {
  const h = host ?? '';
  return h.includes(':') ? `[${h}]:${port}` : `${h}:${port}`;
}

function hostPort(host: string | undefined, port: number | undefined): string {
  return joinHostPort(unmapIPv4(host), port);
}

/**
 * The HTTP/2 response class of the listener's server: HTTP/1 hop-by-hop headers are invalid on
 * HTTP/2 and make Node throw, so they are dropped from the header object @hono/node-server passes
 * to writeHead (without materialising the Response); `Connection: close` becomes GOAWAY, as in Go.
 */
class GoHttp2ServerResponse extends http2.Http2ServerResponse {
  override writeHead(...args: unknown[]): this {
    const headers = args[args.length - 1];
    if (headers && typeof headers === 'object' && !Array.isArray(headers)) {
      const record = headers as Record<string, unknown>;
      for (const key in record) {
        const lower = key.toLowerCase();
        if (!hopByHop.has(lower)) continue;
        if (lower === 'connection') closeOnClose(record[key], this.stream.session);
        delete record[key];
      }
    }
    return (super.writeHead as (...a: unknown[]) => this).apply(this, args);
  }
}
