// The handler's Request for an HTTP/2 stream, built from the core 'stream' event (no
// compatibility objects): method, url and header lookups come straight from the stream's
// headers; a real Request is made only when something asks for more (body methods, clone, cache
// mode …). Method, URL and header handling follow @hono/node-server 2.x (src/request.ts
// newRequest, src/url.ts buildUrl, src/headers.ts RequestHeaders), so the handler sees the same
// values it sees over Node's compatibility API.

import type http2 from 'node:http2';

/** A request the listener cannot turn into a Request: answered 400 without a body, as @hono/node-server does. */
export class RequestError extends Error {
  override name = 'RequestError';
}

// src/url.ts
const reValidRequestUrl = /^\/[!#$&-;=?-[\]_a-z~]*$/;
const reDotSegment = /\/\.\.?(?:[/?#]|$)/;
const reValidHost = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

function validateRequestTarget(target: string): void {
  const backslash = target.indexOf('\\');
  if (backslash !== -1) {
    const query = target.indexOf('?');
    if (query === -1 || backslash < query) throw new RequestError('Backslash in request path');
  }
}

/** buildUrl: the fast path keeps the string; anything unusual goes through URL (normalised, or refused). */
export function buildUrl(scheme: string, host: string, path: string): string {
  const url = `${scheme}://${host}${path}`;
  if (!reValidHost.test(host)) {
    validateRequestTarget(path);
    const u = new URL(url);
    if (
      u.hostname.length !== host.length &&
      u.hostname !== (host.includes(':') ? host.replace(/:\d+$/, '') : host).toLowerCase()
    )
      throw new RequestError('Invalid host header');
    return u.href;
  }
  if (path.length === 0) return url + '/';
  if (path.charCodeAt(0) !== 47) throw new RequestError('Invalid URL');
  if (!reValidRequestUrl.test(path) || reDotSegment.test(path)) {
    validateRequestTarget(path);
    return new URL(url).href;
  }
  return url;
}

/** normalizeIncomingMethod: the methods fetch normalises, upper-cased; others as sent. */
function normalizeMethod(method: string | undefined): string {
  if (typeof method !== 'string' || method.length === 0) return 'GET';
  switch (method) {
    case 'DELETE':
    case 'GET':
    case 'HEAD':
    case 'OPTIONS':
    case 'PATCH':
    case 'POST':
    case 'PUT':
    case 'QUERY':
      return method;
  }
  const upper = method.toUpperCase();
  switch (upper) {
    case 'DELETE':
    case 'GET':
    case 'HEAD':
    case 'OPTIONS':
    case 'POST':
    case 'PUT':
      return upper;
  }
  return method;
}

/** newRequest for an Http2ServerRequest: `:path` relative, `:authority` (or Host), `:scheme` http(s). */
function requestURL(headers: http2.IncomingHttpHeaders): string {
  const path = headers[':path'] || '';
  if (path[0] !== '/' && (path.startsWith('http://') || path.startsWith('https://')))
    throw new RequestError('Absolute URL for :path is not allowed in HTTP/2');
  // getAuthority (lib/internal/http2/util.js): :authority, else Host.
  const host = (headers[':authority'] ?? headers.host) as string | undefined;
  if (!host) throw new RequestError('Missing host header');
  const scheme = headers[':scheme'];
  if (!(scheme === 'http' || scheme === 'https')) throw new RequestError('Unsupported scheme');
  try {
    return buildUrl(scheme, host, path);
  } catch (e) {
    if (e instanceof RequestError) throw e;
    throw new RequestError('Invalid URL', { cause: e });
  }
}

// src/headers.ts
const validHeaderName = /^[!#$%&'*+\-.^_`|~\dA-Za-z]+$/;
const forbiddenHeaderValue = /[\0\r\n]/;
const isHttpWhitespace = (c: number) => c === 9 || c === 10 || c === 13 || c === 32;
function normalizeHeaderValue(value: string): string {
  if (!isHttpWhitespace(value.charCodeAt(0)) && !isHttpWhitespace(value.charCodeAt(value.length - 1))) return value;
  let start = 0;
  let end = value.length;
  while (start < end && isHttpWhitespace(value.charCodeAt(start))) start++;
  while (end > start && isHttpWhitespace(value.charCodeAt(end - 1))) end--;
  return value.slice(start, end);
}

const GlobalHeaders = globalThis.Headers;

/**
 * The request's Headers: get/has scan the stream's raw header list (pseudo-headers never match a
 * valid name); anything else builds a real Headers once and answers from it. HTTP/1.1 requests
 * use it too (h1-request.ts), over IncomingMessage.rawHeaders.
 */
export class StreamHeaders {
  #raw: string[];
  #native: Headers | undefined;
  #invalid = false;
  constructor(raw: string[]) {
    this.#raw = raw;
  }
  get #headers(): Headers {
    if (!this.#native) {
      const h = new GlobalHeaders();
      const raw = this.#raw;
      for (let i = 0; i < raw.length; i += 2) if (!raw[i]!.startsWith(':')) h.append(raw[i]!, raw[i + 1]!);
      this.#native = h;
    }
    return this.#native;
  }
  /** The joined value; undefined when only Headers can answer (a forbidden byte: it throws as Headers would). */
  #lookup(name: unknown): string | null | undefined {
    if (typeof name !== 'string' || this.#native || this.#invalid) return undefined;
    if (!validHeaderName.test(name)) throw new TypeError(`Invalid header name: ${name}`);
    const lower = name.toLowerCase();
    const separator = lower === 'cookie' ? '; ' : ', ';
    const raw = this.#raw;
    let value: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      const n = raw[i]!;
      if (n.length === lower.length && n.toLowerCase() === lower) {
        const v = normalizeHeaderValue(raw[i + 1]!);
        if (forbiddenHeaderValue.test(v)) {
          this.#invalid = true;
          return undefined;
        }
        value = value === null ? v : value + separator + v;
      }
    }
    return value;
  }
  get(name: string): string | null {
    const v = this.#lookup(name);
    return v !== undefined ? v : this.#headers.get(name);
  }
  has(name: string): boolean {
    const v = this.#lookup(name);
    return v !== undefined ? v !== null : this.#headers.has(name);
  }
  append(name: string, value: string): void {
    this.#headers.append(name, value);
  }
  /** Without building Headers while only get/has were asked (the authentication filter strips Authorization). */
  delete(name: string): void {
    if (this.#native || this.#invalid || typeof name !== 'string') return this.#headers.delete(name);
    if (!validHeaderName.test(name)) throw new TypeError(`Invalid header name: ${name}`);
    const lower = name.toLowerCase();
    const raw = this.#raw;
    let kept: string[] | undefined;
    for (let i = 0; i < raw.length; i += 2) {
      const n = raw[i]!;
      const match = n.length === lower.length && n.toLowerCase() === lower;
      if (match && !kept) kept = raw.slice(0, i);
      else if (!match && kept) kept.push(n, raw[i + 1]!);
    }
    // A new list: the stream's own stays as received (Transport.rawHeaders).
    if (kept) this.#raw = kept;
  }
  set(name: string, value: string): void {
    this.#headers.set(name, value);
  }
  getSetCookie(): string[] {
    return this.#headers.getSetCookie();
  }
  keys(): HeadersIterator<string> {
    return this.#headers.keys();
  }
  values(): HeadersIterator<string> {
    return this.#headers.values();
  }
  entries(): HeadersIterator<[string, string]> {
    return this.#headers.entries();
  }
  forEach(cb: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    this.#headers.forEach((v, k) => cb.call(thisArg, v, k, this as unknown as Headers));
  }
  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }
}
Object.setPrototypeOf(StreamHeaders.prototype, GlobalHeaders.prototype);

/** The client's END_STREAM arrived: Node ended the stream's readable side (read to the end or not). */
export function remoteEnded(stream: http2.ServerHttp2Stream): boolean {
  return stream.readableEnded || (stream as unknown as { _readableState: { ended: boolean } })._readableState.ended;
}

/**
 * The request body as a byte stream read from the HTTP/2 stream with backpressure (paused while
 * the reader has a chunk waiting, so Node stops returning flow-control window). A cancel stops
 * reading; the listener ends the stream after its response.
 */
function bodyFrom(stream: http2.ServerHttp2Stream): ReadableStream<Uint8Array> {
  let done = false;
  let onData: ((chunk: Buffer) => void) | undefined;
  return new ReadableStream<Uint8Array>({
    start(c) {
      if (stream.readableEnded) {
        done = true;
        return c.close();
      }
      onData = (chunk) => {
        if (done) return;
        c.enqueue(chunk);
        if ((c.desiredSize ?? 0) <= 0) stream.pause();
      };
      stream.on('data', onData);
      stream.pause();
      stream.once('end', () => {
        if (done) return;
        done = true;
        c.close();
      });
      // A stream closed (reset, or its connection gone) before the client's END_STREAM: Node
      // emits 'aborted', then ends the readable side as if the body were complete. The body is
      // an error, as in Go (net/http h2_bundle.go errClientDisconnected), never a short body.
      const fail = () => {
        if (done) return;
        done = true;
        c.error(stream.errored ?? new Error('Client connection prematurely closed.'));
      };
      stream.once('aborted', () => {
        if (!remoteEnded(stream)) fail();
      });
      stream.once('close', fail);
    },
    pull() {
      stream.resume();
    },
    cancel() {
      done = true;
      if (onData) stream.removeListener('data', onData);
      stream.pause();
    },
  });
}

/** Request members that need a real Request: forwarded to the one made on first use. */
export const materialised = [
  'cache',
  'credentials',
  'destination',
  'duplex',
  'integrity',
  'mode',
  'redirect',
  'referrer',
  'referrerPolicy',
  'keepalive',
  'bodyUsed',
] as const;
const materialisedMethods = ['arrayBuffer', 'blob', 'bytes', 'clone', 'formData', 'json', 'text'] as const;

/**
 * A Request for one HTTP/2 stream (`instanceof Request` holds). method, url, headers and signal
 * are its own; body is a stream over the HTTP/2 stream (null for GET and HEAD); everything else
 * builds a real Request on first use and asks it.
 */
export class StreamRequest {
  readonly method: string;
  readonly url: string;
  readonly stream: http2.ServerHttp2Stream;
  #raw: string[];
  #headers: StreamHeaders | undefined;
  #controller: AbortController | undefined;
  #abortReason: unknown;
  #real: Request | undefined;
  #body: ReadableStream<Uint8Array> | null | undefined;

  /** Throws RequestError for what @hono/node-server refuses (answered 400). */
  constructor(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, rawHeaders: string[]) {
    this.stream = stream;
    this.#raw = rawHeaders;
    this.method = normalizeMethod(headers[':method']);
    this.url = requestURL(headers);
  }

  get headers(): Headers {
    return (this.#headers ??= new StreamHeaders(this.#raw)) as unknown as Headers;
  }

  get signal(): AbortSignal {
    const c = (this.#controller ??= new AbortController());
    if (this.#abortReason !== undefined && !c.signal.aborted) c.abort(this.#abortReason);
    return c.signal;
  }

  /** abortRequest: the client went away before the response finished. */
  abort(reason: unknown): void {
    if (this.#abortReason === undefined) this.#abortReason = reason;
    const c = this.#controller;
    if (c && !c.signal.aborted) c.abort(reason);
  }

  /** GET, HEAD and TRACE have no body (fetch refuses one); TRACE is sent to fetch as GET. */
  get #hasBody(): boolean {
    const m = this.method;
    return !(m === 'GET' || m === 'HEAD' || m === 'TRACE');
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.#real) return this.#real.body;
    if (this.#body === undefined) this.#body = this.#hasBody ? bodyFrom(this.stream) : null;
    return this.#body;
  }

  /** Whether the handler took the body (the listener then leaves the stream's end to it). */
  get bodyTaken(): boolean {
    return this.#body != null || this.#real !== undefined;
  }

  /** newRequestFromIncoming: the real Request, with the same body stream and signal. */
  real(): Request {
    if (this.#real) return this.#real;
    const init: RequestInit & { duplex?: 'half' } = { method: this.method, headers: this.headers, signal: this.signal };
    if (this.method === 'TRACE') {
      init.method = 'GET';
      const req = new Request(this.url, init);
      Object.defineProperty(req, 'method', { get: () => 'TRACE' });
      return (this.#real = req);
    }
    const body = this.body;
    if (body) {
      init.body = body;
      init.duplex = 'half';
    }
    return (this.#real = new Request(this.url, init));
  }
}
for (const k of materialised) {
  Object.defineProperty(StreamRequest.prototype, k, {
    get(this: StreamRequest) {
      return (this.real() as unknown as Record<string, unknown>)[k];
    },
  });
}
for (const k of materialisedMethods) {
  Object.defineProperty(StreamRequest.prototype, k, {
    value: function (this: StreamRequest) {
      return (this.real()[k] as () => unknown)();
    },
  });
}
Object.setPrototypeOf(StreamRequest.prototype, Request.prototype);
