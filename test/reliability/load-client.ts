// A small real load client for the operational-fault tests and bench/idle-connections.ts: N
// connections (HTTP/1.1 keep-alive or HTTP/2 sessions) each sending requests one after the
// other, recording every request's outcome and latency. A connection the server closes (HTTP/2
// GOAWAY, HTTP/1.1 `Connection: close` or an idle close) is replaced by a new one for the next
// request, as client-go's transport does. With `retry`, a GET that failed with a connection-level
// error before any response byte is sent once more on a new connection (Go's http.Transport and
// client-go's request retry for idempotent requests), and a 429/503 with Retry-After once more
// after that delay (client-go checkWait), capped by `retryAfterCapMs`.

import http2 from 'node:http2';
import https from 'node:https';
import { connect as netConnect } from 'node:net';
import tls from 'node:tls';
import type { IncomingMessage } from 'node:http';

export type Protocol = 'h1' | 'h2';

export interface LoadOptions {
  host?: string;
  port: number;
  protocol: Protocol;
  connections: number;
  /** The path of the n-th request of a worker (`worker` is 0-based). */
  path: (worker: number, n: number) => string;
  headers?: Record<string, string>;
  /** Aborting stops sending new requests (those in flight finish). */
  signal: AbortSignal;
  /** Retry as client-go does (see the file comment). Default false. */
  retry?: boolean;
  /** Upper bound for a Retry-After wait (ms). Default 1000. */
  retryAfterCapMs?: number;
  /** Per-request bound (ms): a request still open then is recorded as a timeout. Default 15 s. */
  timeoutMs?: number;
  /** Bound on the requests per worker. Default 100,000. */
  maxRequestsPerWorker?: number;
  /** Pause between a worker's requests (ms). Default 0. */
  thinkMs?: number;
  /** Without `retry`: a worker stops after a refused connection (the listener is gone). Default true. */
  stopOnRefused?: boolean;
  /** Request ids are `${idPrefix}-${worker}-${n}`, sent as `x-load-id`. */
  idPrefix?: string;
}

/**
 * - ok: a 2xx response.
 * - status: any other response (recorded with its status).
 * - conn-error: a connection-level error before any response byte (refused connection, reset,
 *   HTTP/2 GOAWAY or REFUSED_STREAM, session closed).
 * - aborted: the connection failed after the response had started.
 * - timeout: no answer within `timeoutMs`.
 */
export type Outcome = 'ok' | 'status' | 'conn-error' | 'aborted' | 'timeout';

export interface Attempt {
  outcome: Outcome;
  status?: number;
  /** Error code (ECONNREFUSED, ECONNRESET, ERR_HTTP2_GOAWAY_SESSION, NGHTTP2_REFUSED_STREAM …). */
  error?: string;
  /** The request went out on a connection opened for it (false: a reused one). */
  freshConnection: boolean;
  retryAfter?: string;
  /** HTTP/2: the stream id (undefined: the stream never went out, e.g. the session never connected). */
  streamId?: number;
  /** HTTP/2: the last-stream-id of a GOAWAY the session received before this stream ended. */
  goawayLastStreamId?: number;
}

export interface RequestRecord {
  id: string;
  worker: number;
  protocol: Protocol;
  path: string;
  /** Epoch ms (sub-ms precision) of the first attempt's start and of the final answer. */
  start: number;
  end: number;
  latencyMs: number;
  outcome: Outcome;
  status?: number;
  error?: string;
  attempts: Attempt[];
  /** The `x-served-by` response header (the test fixture sends its pid). */
  servedBy?: string;
  body?: string;
}

export interface LoadResult {
  records: RequestRecord[];
  /** Connections (HTTP/1.1 sockets or HTTP/2 sessions) opened. */
  connectionsOpened: number;
  /** HTTP/2 GOAWAY frames received. */
  goaways: number;
}

const now = () => performance.timeOrigin + performance.now();

interface Answer extends Attempt {
  servedBy?: string;
  body?: string;
}

/** One connection's worth of state: an HTTP/1.1 agent with one socket, or one HTTP/2 session. */
class Connection {
  private readonly o: LoadOptions;
  private readonly stats: { opened: number; goaways: number };
  private agent?: https.Agent;
  private session?: http2.ClientHttp2Session;
  private goawayLast = new WeakMap<http2.ClientHttp2Session, number>();
  private sessionError = new WeakMap<http2.ClientHttp2Session, string>();
  private usable = false;

  constructor(o: LoadOptions, stats: { opened: number; goaways: number }) {
    this.o = o;
    this.stats = stats;
  }

  /** Forgets the current connection: the next request opens a new one. */
  reset(): void {
    this.usable = false;
    this.agent?.destroy();
    this.agent = undefined;
    if (this.session && !this.session.destroyed) this.session.destroy();
    this.session = undefined;
  }

  send(path: string, id: string, freshOnly: boolean): Promise<Answer> {
    if (freshOnly) this.reset();
    return this.o.protocol === 'h1' ? this.sendH1(path, id) : this.sendH2(path, id);
  }

  private sendH1(path: string, id: string): Promise<Answer> {
    this.agent ??= new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
    const agent = this.agent;
    return new Promise<Answer>((resolve) => {
      let settled = false;
      let fresh = true;
      let responded = false;
      let status: number | undefined;
      const chunks: Buffer[] = [];
      let res: IncomingMessage | undefined;
      const finish = (a: Omit<Answer, 'freshConnection'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...a, freshConnection: fresh });
      };
      const req = https.request(
        { host: this.o.host ?? '127.0.0.1', port: this.o.port, path, agent, headers: { ...this.o.headers, 'x-load-id': id } },
        (r) => {
          res = r;
          responded = true;
          status = r.statusCode;
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => {
            const a: Omit<Answer, 'freshConnection'> = {
              outcome: status! >= 200 && status! < 300 ? 'ok' : 'status',
              status,
              servedBy: header(r.headers['x-served-by']),
              retryAfter: header(r.headers['retry-after']),
              body: Buffer.concat(chunks).toString('utf8'),
            };
            // The server closes after this response: the next request opens a new connection.
            if (/\bclose\b/i.test(header(r.headers.connection) ?? '')) this.usable = false;
            finish(a);
          });
          r.on('aborted', () => finish({ outcome: 'aborted', status, error: 'aborted' }));
          r.on('error', (e: NodeJS.ErrnoException) => finish({ outcome: 'aborted', status, error: e.code ?? e.message }));
        },
      );
      req.on('socket', (s) => {
        fresh = !req.reusedSocket;
        if (fresh) {
          this.stats.opened++;
          // A socket the agent keeps is closed by the server when idle: Node's agent drops it.
          s.on('error', () => {});
        }
      });
      req.on('error', (e: NodeJS.ErrnoException) => {
        if (responded) return finish({ outcome: 'aborted', status, error: e.code ?? e.message });
        finish({ outcome: 'conn-error', error: e.code ?? e.message });
      });
      const timer = setTimeout(() => {
        finish({ outcome: 'timeout', status, error: 'timeout' });
        req.destroy();
        res?.destroy();
      }, this.o.timeoutMs ?? 15_000);
      req.end();
    });
  }

  private openSession(): http2.ClientHttp2Session {
    const s = http2.connect(`https://${this.o.host ?? '127.0.0.1'}:${this.o.port}`, { rejectUnauthorized: false });
    this.stats.opened++;
    this.usable = true;
    s.on('error', (e: NodeJS.ErrnoException) => this.sessionError.set(s, e.code ?? e.message));
    s.on('goaway', (_code: number, last: number) => {
      this.stats.goaways++;
      this.goawayLast.set(s, last);
      // A GOAWAY'd session takes no new streams; in-flight ones (id ≤ last-stream-id) finish.
      if (this.session === s) this.usable = false;
    });
    s.on('close', () => {
      if (this.session === s) this.usable = false;
    });
    this.session = s;
    return s;
  }

  private sendH2(path: string, id: string): Promise<Answer> {
    let fresh = false;
    let s = this.session;
    if (!s || !this.usable || s.closed || s.destroyed) {
      if (s && !s.destroyed && !s.closed) s.close();
      s = this.openSession();
      fresh = true;
    }
    const session = s;
    return new Promise<Answer>((resolve) => {
      let settled = false;
      let status: number | undefined;
      let headers: http2.IncomingHttpHeaders | undefined;
      const chunks: Buffer[] = [];
      let stream: http2.ClientHttp2Stream | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (a: Omit<Answer, 'freshConnection'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...a, freshConnection: fresh, streamId: stream?.id, goawayLastStreamId: this.goawayLast.get(session) });
      };
      try {
        stream = session.request({ ':path': path, ...this.o.headers, 'x-load-id': id });
      } catch (e) {
        // ERR_HTTP2_GOAWAY_SESSION / ERR_HTTP2_INVALID_SESSION: never sent.
        this.usable = false;
        return finish({ outcome: 'conn-error', error: (e as NodeJS.ErrnoException).code ?? String(e) });
      }
      timer = setTimeout(() => {
        finish({ outcome: 'timeout', status, error: 'timeout' });
        stream!.close(http2.constants.NGHTTP2_CANCEL);
      }, this.o.timeoutMs ?? 15_000);
      stream.on('response', (h) => {
        headers = h;
        status = Number(h[':status']);
      });
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (status === undefined) return;
        finish({
          outcome: status >= 200 && status < 300 ? 'ok' : 'status',
          status,
          servedBy: header(headers?.['x-served-by']),
          retryAfter: header(headers?.['retry-after']),
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
      const failed = (code: string) => {
        // A stream that never went out fails with the session's error (ECONNREFUSED …).
        if (stream?.id === undefined) code = this.sessionError.get(session) ?? code;
        if (status !== undefined) finish({ outcome: 'aborted', status, error: code });
        else finish({ outcome: 'conn-error', error: code });
      };
      stream.on('error', (e: NodeJS.ErrnoException) => {
        const rst = stream!.rstCode;
        const code = rst === http2.constants.NGHTTP2_REFUSED_STREAM ? 'NGHTTP2_REFUSED_STREAM' : (e.code ?? e.message);
        // The session's own error (why the stream never went out) is emitted after its streams'.
        if (stream!.id === undefined) setImmediate(() => failed(code));
        else failed(code);
      });
      stream.on('close', () => {
        // Closed without an error event: reset (NO_ERROR/CANCEL) or the session went away.
        if (!settled) failed(stream!.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM ? 'NGHTTP2_REFUSED_STREAM' : `closed:${stream!.rstCode}`);
      });
      stream.end();
    });
  }
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Runs the load until `signal` aborts (or every worker stopped); resolves with every record. */
export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const records: RequestRecord[] = [];
  const stats = { opened: 0, goaways: 0 };
  const max = o.maxRequestsPerWorker ?? 100_000;
  const stopOnRefused = o.stopOnRefused ?? true;
  const worker = async (w: number) => {
    const conn = new Connection(o, stats);
    try {
      for (let n = 0; n < max && !o.signal.aborted; n++) {
        const path = o.path(w, n);
        const id = `${o.idPrefix ?? 'load'}-${w}-${n}`;
        const start = now();
        const attempts: Attempt[] = [];
        let a = await conn.send(path, id, false);
        attempts.push(a);
        if (o.retry && a.outcome === 'conn-error') {
          a = await conn.send(path, id, true);
          attempts.push(a);
        } else if (o.retry && (a.status === 429 || a.status === 503) && a.retryAfter) {
          await sleep(Math.min(Number(a.retryAfter) * 1000 || 0, o.retryAfterCapMs ?? 1000));
          a = await conn.send(path, id, false);
          attempts.push(a);
        }
        const end = now();
        records.push({
          id,
          worker: w,
          protocol: o.protocol,
          path,
          start,
          end,
          latencyMs: end - start,
          outcome: a.outcome,
          status: a.status,
          error: a.error,
          attempts,
          servedBy: a.servedBy,
          body: a.body,
        });
        if (a.outcome === 'conn-error') conn.reset();
        if (!o.retry && stopOnRefused && a.error === 'ECONNREFUSED') break;
        if (o.thinkMs) await sleep(o.thinkMs);
      }
    } finally {
      conn.reset();
    }
  };
  await Promise.all(Array.from({ length: o.connections }, (_, w) => worker(w)));
  return { records, connectionsOpened: stats.opened, goaways: stats.goaways };
}

/** The p-th percentile (0–100) of `values`, nearest-rank. */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Counts by outcome (and status / error code) for a readable failure message. */
export function summarize(records: readonly RequestRecord[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) {
    const key = r.outcome === 'ok' ? 'ok' : `${r.outcome}:${r.status ?? r.error}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

// --- idle and slow connections (the 1,000-connection case) ---

/**
 * - tls-fresh: TLS (ALPN http/1.1) and then nothing (Go: closed after ReadHeaderTimeout).
 * - tls-keepalive: one HTTP/1.1 request, then idle (Go: closed after IdleTimeout).
 * - h2-idle: an HTTP/2 session with one finished stream, then idle (Go: GOAWAY after IdleTimeout;
 *   at once after an anonymous request, so pass `headers` with a credential).
 * - slowloris: HTTP/1.1 headers that never end, one header line every `trickleMs` (Go: closed
 *   after ReadHeaderTimeout, however steadily the bytes come).
 * - tcp-silent: a TCP connection that never starts TLS (Go: the handshake is bounded by
 *   ReadHeaderTimeout).
 */
export type IdleKind = 'tls-fresh' | 'tls-keepalive' | 'h2-idle' | 'slowloris' | 'tcp-silent';

export interface IdleConnection {
  kind: IdleKind;
  /** Epoch ms when the connection was ready (TLS done, first response read …). */
  openedAt: number;
  /** Epoch ms when the server closed it (undefined while open or when closed by us). */
  closedByServerAt?: number;
  close(): void;
}

export interface IdleOptions {
  host?: string;
  port: number;
  /** For slowloris: ms between header lines. Default 500. */
  trickleMs?: number;
  /** Resume TLS sessions (cheaper handshakes; the server-side state is the same). Default true. */
  resume?: boolean;
  /**
   * Headers of the first request (tls-keepalive, h2-idle): an authenticated one, since upstream
   * closes an HTTP/2 connection after an anonymous request (UnauthenticatedHTTP2DOSMitigation).
   */
  headers?: Record<string, string>;
}

/** Opens `count` connections of one kind, `parallel` at a time; resolves when all are ready. */
export async function openIdleConnections(kind: IdleKind, count: number, o: IdleOptions, parallel = 50): Promise<IdleConnection[]> {
  const out: IdleConnection[] = [];
  let session: Buffer | undefined;
  let next = 0;
  // The first connection alone, so that the others can resume its TLS session.
  if (count > 0 && o.resume !== false) {
    next++;
    out.push(await openIdle(kind, o, undefined, (s) => (session ??= s)));
  }
  const one = async () => {
    while (next < count) {
      next++;
      const c = await openIdle(kind, o, o.resume === false ? undefined : session, (s) => (session ??= s));
      out.push(c);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, one));
  return out;
}

async function openIdle(kind: IdleKind, o: IdleOptions, session: Buffer | undefined, onSession: (s: Buffer) => void): Promise<IdleConnection> {
  const host = o.host ?? '127.0.0.1';
  const c: IdleConnection = { kind, openedAt: 0, close: () => {} };
  let ours = false;
  const serverClosed = () => {
    if (!ours && c.closedByServerAt === undefined) c.closedByServerAt = now();
  };
  if (kind === 'tcp-silent') {
    const s = netConnect(o.port, host);
    await new Promise<void>((resolve, reject) => s.once('connect', resolve).once('error', reject));
    s.on('error', () => {});
    s.on('close', serverClosed);
    c.openedAt = now();
    c.close = () => ((ours = true), s.destroy());
    return c;
  }
  if (kind === 'h2-idle') {
    const s = http2.connect(`https://${host}:${o.port}`, {
      createConnection: () => {
        const sock = tls.connect({ host, port: o.port, rejectUnauthorized: false, ALPNProtocols: ['h2'], ...(session ? { session } : {}) });
        sock.on('session', onSession);
        return sock;
      },
    });
    s.on('error', () => {});
    await new Promise<void>((resolve, reject) => {
      const r = s.request({ ':path': '/healthz', ...o.headers });
      r.on('error', reject);
      r.resume();
      r.on('end', resolve);
      r.end();
    });
    s.on('goaway', serverClosed);
    s.on('close', serverClosed);
    c.openedAt = now();
    c.close = () => ((ours = true), s.destroy());
    return c;
  }
  const s = tls.connect({ host, port: o.port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'], ...(session ? { session } : {}) });
  s.on('session', onSession);
  await new Promise<void>((resolve, reject) => s.once('secureConnect', resolve).once('error', reject));
  s.on('error', () => {});
  if (kind === 'tls-keepalive') {
    await new Promise<void>((resolve) => {
      let got = '';
      const onData = (d: Buffer) => {
        got += d.toString('latin1');
        // /healthz answers `ok` with a Content-Length: the whole response is in once the body is.
        if (/\r\n\r\nok$/.test(got)) {
          s.off('data', onData);
          resolve();
        }
      };
      s.on('data', onData);
      const extra = Object.entries(o.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join('');
      s.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n${extra}\r\n`);
    });
  }
  let trickle: ReturnType<typeof setInterval> | undefined;
  if (kind === 'slowloris') {
    s.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n`);
    let i = 0;
    trickle = setInterval(() => s.writable && s.write(`x-slow-${i++}: 1\r\n`), o.trickleMs ?? 500);
  }
  s.on('close', () => {
    clearInterval(trickle);
    serverClosed();
  });
  s.on('end', serverClosed);
  s.resume();
  c.openedAt = now();
  c.close = () => {
    ours = true;
    clearInterval(trickle);
    s.destroy();
  };
  return c;
}
