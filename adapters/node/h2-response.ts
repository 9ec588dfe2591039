// Writes a handler's Response on an HTTP/2 stream with the core API (stream.respond + write/end),
// with the frames and header fields Node's compatibility API and @hono/node-server 2.x
// (src/listener.ts responseViaCache, responseViaResponseObject; src/utils.ts
// writeFromReadableStream) produce: the filters' preset headers first, the Response's over
// them, the default content type and Content-Length where @hono/node-server adds them, Date from
// Node, END_STREAM on the last DATA frame. HTTP/1 hop-by-hop headers are invalid on HTTP/2 and are
// dropped; `Connection: close` becomes GOAWAY (Go's http2 server does both).

import http2 from 'node:http2';
import type { Logger } from '../../src/util/logger.ts';
import { remoteEnded, type StreamRequest } from './h2-request.ts';

type Head = http2.OutgoingHttpHeaders;

const defaultContentType = 'text/plain; charset=UTF-8';
/** @hono/node-server's marker of a response the handler wrote itself (src/utils/response/constants.ts). */
const alreadySent = 'x-hono-already-sent';
const { NGHTTP2_NO_ERROR } = http2.constants;

/** HTTP/1 hop-by-hop headers, invalid on HTTP/2 (Node throws ERR_HTTP2_INVALID_CONNECTION_HEADERS). */
export const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

/** Go turns `Connection: close` on HTTP/2 into GOAWAY; in-flight streams still finish. */
export function closeOnClose(value: unknown, session: http2.Http2Session | undefined): void {
  if (session && !session.closed && /(^|,)\s*close\s*(,|$)/i.test(String(value))) session.close();
}

// @hono/node-server's lightweight Response keeps [status, body, headers init] under a private
// symbol until something reads `.headers`; reading it builds a Headers object and sends the
// write down the slower Headers path (measured ~5–8 µs per request). The symbol is found once.
let cacheSymbol: symbol | null | undefined;
type Cache = [number, BodyInit | null, HeadersInit | undefined];
/** The lightweight Response's [status, body, headers init]; undefined for any other Response. */
export function lightResponseCache(response: Response): Cache | undefined {
  if (cacheSymbol === undefined) {
    const sym = Object.getOwnPropertySymbols(response).find((s) => s.description === 'cache');
    if (sym) cacheSymbol = sym;
  }
  const cache = cacheSymbol ? (response as unknown as Record<symbol, unknown>)[cacheSymbol] : undefined;
  return Array.isArray(cache) && cache.length === 3 ? (cache as Cache) : undefined;
}

/** handleFetchError: a handler that threw or rejected is 500 (504 for a TimeoutError), no body. */
function fetchError(e: unknown): Response {
  const timeout = e instanceof Error && (e.name === 'TimeoutError' || e.constructor.name === 'TimeoutError');
  return new Response(null, { status: timeout ? 504 : 500 });
}

function isStream(body: unknown): body is ReadableStream<Uint8Array> {
  return typeof (body as ReadableStream | null)?.getReader === 'function';
}

/**
 * buildOutgoingHttpHeaders into `head` (over the preset headers): Headers' lower-case names,
 * set-cookie as a list, the default content type when the Response has none; hop-by-hop dropped.
 */
function addHeaders(
  head: Head,
  headers: Headers,
  contentType: string | undefined,
  session: http2.Http2Session | undefined,
  dropHopByHop = true,
): void {
  let cookies: string[] | undefined;
  let typed = false;
  for (const [k, v] of headers) {
    if (k === 'set-cookie') (cookies ??= []).push(v);
    else if (dropHopByHop && hopByHop.has(k)) {
      if (k === 'connection') closeOnClose(v, session);
    } else {
      if (k === 'content-type') typed = true;
      head[k] = v;
    }
  }
  if (cookies) head['set-cookie'] = cookies;
  if (contentType && !typed) head['content-type'] = contentType;
}

/**
 * One stream's response. `preset` collects the filters' headers (Transport.presetHeaders);
 * `send` writes the handler's Response (or its failure) once.
 */
export class StreamResponse {
  readonly stream: http2.ServerHttp2Stream;
  request: StreamRequest | undefined;
  private head: Head | undefined;
  private readonly logger: Logger;

  constructor(stream: http2.ServerHttp2Stream, logger: Logger) {
    this.stream = stream;
    this.logger = logger;
  }

  /** Go's w.Header() set by the filters: under the Response's own headers, hop-by-hop dropped. */
  preset(headers: Headers): void {
    const head = (this.head ??= {});
    for (const [name, value] of headers) {
      if (hopByHop.has(name)) {
        if (name === 'connection') closeOnClose(value, this.stream.session);
        continue;
      }
      head[name] = value;
    }
  }

  /** An answer without body or headers of its own (400 for a request the listener cannot build). */
  empty(status: number): void {
    this.respond(status, undefined, true);
  }

  /** Writes the handler's result; a rejection is answered as @hono/node-server answers it. */
  send(result: Response | Promise<Response>): void {
    if (result instanceof Promise) {
      this.watchClose();
      result.then(
        (r) => this.write(r, false),
        (e: unknown) => this.write(fetchError(e), false),
      );
      return;
    }
    this.write(result, true);
  }

  /** makeCloseHandler: the stream closed before the response finished (or was reset): abort the request. */
  private watchClose(): void {
    const req = this.request;
    if (!req) return;
    const stream = this.stream;
    stream.once('close', () => {
      if (!stream.writableFinished || stream.aborted) req.abort('Client connection prematurely closed.');
    });
  }

  private write(response: Response, immediate: boolean): void {
    let done: void | Promise<void>;
    try {
      const cache = lightResponseCache(response);
      if (cache) {
        const body = cache[1];
        // A Response written at once needs no close watch (@hono/node-server's isImmediateCacheableResponse).
        if (immediate && !(body === null || typeof body === 'string' || body instanceof Uint8Array)) this.watchClose();
        done = this.viaCache(cache);
      } else {
        if (immediate) this.watchClose();
        done = this.viaResponse(response);
      }
    } catch (e) {
      return this.failed(e);
    }
    if (done)
      done.then(
        () => this.ended(),
        (e: unknown) => this.failed(e),
      );
    else this.ended();
  }

  /** responseViaCache: status, body and headers init without a Headers object where the init is plain. */
  private viaCache([status, body, init]: Cache): void | Promise<void> {
    const head = (this.head ??= {});
    let hasLength = false;
    if (init == null) {
      if (body !== null) head['content-type'] = defaultContentType;
    } else if (init instanceof Headers || Array.isArray(init)) {
      const headers = init instanceof Headers ? init : new Headers(init);
      hasLength = headers.has('content-length');
      addHeaders(head, headers, body === null ? undefined : defaultContentType, this.stream.session);
    } else {
      const record = init as Record<string, string | string[]>;
      for (const key in record) {
        const name = key.trim().toLowerCase();
        const value = record[key]!;
        if (hopByHop.has(name)) {
          if (name === 'connection') closeOnClose(value, this.stream.session);
          continue;
        }
        if (name === 'content-length') hasLength = true;
        head[name] = value;
      }
    }
    if (body === null) return this.respond(status, undefined, true);
    if (typeof body === 'string') {
      if (!hasLength) head['content-length'] = Buffer.byteLength(body);
      return this.respond(status, body, false);
    }
    if (body instanceof Uint8Array) {
      if (!hasLength) head['content-length'] = body.byteLength;
      return this.respond(status, body, false);
    }
    if (body instanceof Blob) {
      if (!hasLength) head['content-length'] = body.size;
      return body.arrayBuffer().then((b) => this.respond(status, new Uint8Array(b), false));
    }
    return this.pipe(status, body as ReadableStream<Uint8Array>, undefined, undefined);
  }

  /**
   * responseViaResponseObject (a Response whose body was read, or not built by @hono/node-server):
   * a body that ends within the first reads (without waiting) gets a Content-Length.
   */
  private async viaResponse(res: Response): Promise<void> {
    const body = res.body;
    const own: Head = {};
    // Hop-by-hop headers stay until merge: transfer-encoding: chunked means no Content-Length.
    addHeaders(own, res.headers, body === null ? undefined : defaultContentType, undefined, false);
    if (!body) {
      if (own[alreadySent]) return;
      this.merge(own);
      return this.respond(res.status, undefined, true);
    }
    const reader = body.getReader();
    const values: Uint8Array[] = [];
    let done = false;
    let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
    if (own['transfer-encoding'] !== 'chunked') {
      let maxReads = 2;
      for (let i = 0; i < maxReads; i++) {
        pending ||= reader.read();
        const chunk = await Promise.race([pending, Promise.resolve().then(() => Promise.resolve(undefined))]);
        if (!chunk) {
          if (i === 1) {
            await new Promise((resolve) => setTimeout(resolve));
            maxReads = 3;
            continue;
          }
          break;
        }
        pending = undefined;
        if (chunk.value) values.push(chunk.value);
        if (chunk.done) {
          done = true;
          break;
        }
      }
      if (done && !('content-length' in own)) own['content-length'] = values.reduce((n, v) => n + v.length, 0);
    }
    this.merge(own);
    return this.pipe(res.status, reader, values, done ? true : pending);
  }

  /** The Response's own headers over the preset ones, hop-by-hop dropped. */
  private merge(own: Head): void {
    const head = (this.head ??= {});
    for (const name in own) {
      if (hopByHop.has(name)) {
        if (name === 'connection') closeOnClose(own[name], this.stream.session);
        continue;
      }
      head[name] = own[name];
    }
  }

  /** HEADERS (END_STREAM when there is no body to send), then the body in one DATA write. */
  private respond(status: number, body: string | Uint8Array | undefined, empty: boolean): void {
    const stream = this.stream;
    if (stream.destroyed || stream.closed) return;
    const head = this.head ?? {};
    head[':status'] = status;
    const end = empty || noBody(stream, status);
    stream.respond(head, { endStream: end, waitForTrailers: false });
    if (!end) stream.end(body);
  }

  /**
   * writeFromReadableStream: HEADERS at once, each chunk as written, waiting for 'drain' when the
   * stream's buffer is full; the reader is cancelled when the stream closes or fails first.
   */
  private pipe(
    status: number,
    source: ReadableStream<Uint8Array> | ReadableStreamDefaultReader<Uint8Array>,
    first: Uint8Array[] | undefined,
    pendingOrDone: Promise<ReadableStreamReadResult<Uint8Array>> | true | undefined,
  ): Promise<void> | void {
    const stream = this.stream;
    const reader = isStream(source) ? source.getReader() : source;
    const cancel = (err?: unknown) => void reader.cancel(err).catch(() => {});
    if (stream.destroyed || stream.closed) return cancel();
    const head = this.head ?? {};
    head[':status'] = status;
    const end = noBody(stream, status);
    stream.respond(head, { endStream: end, waitForTrailers: false });
    // HEAD, 204, 304: nothing of the body is sent.
    if (end) return cancel();
    if (first) for (const v of first) stream.write(v);
    if (pendingOrDone === true) return void stream.end();
    stream.on('close', cancel);
    stream.on('error', cancel);
    const flow = ({ done, value }: ReadableStreamReadResult<Uint8Array>): void => {
      try {
        if (done) stream.end();
        else if (!stream.write(value)) stream.once('drain', onDrain);
        else reader.read().then(flow, fail);
      } catch (e) {
        fail(e);
      }
    };
    const fail = (e: unknown) => {
      if (e) stream.destroy(e as Error);
    };
    const onDrain = () => void reader.read().then(flow, fail);
    (pendingOrDone ?? reader.read()).then(flow, fail);
    return reader.closed.finally(() => {
      stream.off('close', cancel);
      stream.off('error', cancel);
    });
  }

  /**
   * handleResponseError: before HEADERS a 500 text/plain with the message, then the stream is
   * reset. Logged by the listener's logger (the chain answers its own failures; this is a body
   * that failed while being written), a client that went away at verbosity 4 only.
   */
  private failed(e: unknown): void {
    const err = e instanceof Error ? e : new Error('unknown error', { cause: e });
    if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') {
      this.logger.info('The user aborted a request', undefined, 4);
      return;
    }
    this.logger.error('Failed to write the response', { err: err.message });
    const stream = this.stream;
    if (!stream.destroyed && !stream.closed) {
      if (!stream.headersSent)
        stream.respond({ ':status': 500, 'content-type': 'text/plain' }, { waitForTrailers: false });
      if (!stream.writableEnded) stream.end(`Error: ${err.message}`);
    }
    stream.destroy(err);
  }

  /**
   * The response is written while the client may still be sending its body: RFC 9113 section
   * 8.1 lets a server answer first and then reset the stream with NO_ERROR so the client stops
   * (Go: http2 serverConn.wroteFrame). close(NO_ERROR) waits for the response's last write; one
   * timer turn more lets a response without DATA (HEADERS with END_STREAM, written on Node's
   * next check phase) reach the wire first, or nghttp2 drops it for the reset.
   */
  private ended(): void {
    const stream = this.stream;
    if (!this.request || remoteEnded(stream)) return;
    setTimeout(() => {
      if (!remoteEnded(stream) && !stream.destroyed && !stream.closed) stream.close(NGHTTP2_NO_ERROR);
    });
  }
}

/** Node ends these itself in respond(): a HEAD request, 204, 205, 304. */
function noBody(stream: http2.ServerHttp2Stream, status: number): boolean {
  return (
    (stream as { headRequest?: boolean }).headRequest === true || status === 204 || status === 205 || status === 304
  );
}
