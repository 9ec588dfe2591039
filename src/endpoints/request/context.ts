// The per-request state that upstream keeps in Go's request context.Context and on the
// shared http.ResponseWriter header map, made explicit for Web-standard handlers.

import type { RequestInfo } from './requestinfo.ts';
import { HeaderMap } from './header-map.ts';
import { parseRequestURL } from './request-url.ts';

/** What only the listener knows about the connection (the adapters fill it in). */
export interface Transport {
  /** Peer certificate chain as DER bytes, leaf first; empty or absent when none was presented. */
  peerCertificates?: Uint8Array[];
  /**
   * Request header lines as received, `[name, value, name, value …]` (Node's rawHeaders), so
   * repeated headers stay separate values (X-Remote-Group, Impersonate-Group, as Go's http.Header).
   * Absent: readers fall back to the Fetch Headers (repeated lines arrive comma-joined).
   */
  rawHeaders?: readonly string[];
  /** Remote (client) IP address, without port. */
  remoteAddress?: string;
  remotePort?: number;
  /** Local IP the connection arrived on (used for SNI-less certificate selection on Node). */
  localAddress?: string;
  /** `h2`, `http/1.1`, or undefined when the platform does not say. */
  protocol?: 'h2' | 'http/1.1' | string;
  /**
   * The runtime delivers no more body than a request's Content-Length declares (HTTP/1.1's
   * framing): a body declared within the size limit may be read whole, without a stream and a
   * limit check per chunk.
   */
  bodyWithinContentLength?: boolean;
  /** Negotiated TLS version such as `TLSv1.3`; undefined behind platform TLS. */
  tlsVersion?: string;
  /** Ask the listener to send HTTP/2 GOAWAY on this request's connection (probabilistic GOAWAY). */
  goaway?: () => void;
  /** Keep work running after the response (Workers' ctx.waitUntil); defaults to fire-and-forget. */
  waitUntil?: (promise: Promise<unknown>) => void;
  /**
   * Takes the shared response header map (Go's w.Header()) for the listener to write under the
   * Response's own headers, instead of the server copying it into the Response. On Node this
   * keeps @hono/node-server on its fast path (the Response's headers are never materialised).
   */
  presetHeaders?: (headers: Headers) => void;
  /**
   * `response.headers.get(name)` (name in lower case), answered where the runtime can without
   * materialising the Response's headers (on Node that keeps @hono/node-server's fast path).
   */
  responseHeader?: (response: Response, name: string) => string | null;
}

/** user.Info as in k8s.io/apiserver/pkg/authentication/user. */
export interface UserInfo {
  name: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** Authentication outcome details that the audit and metrics filters read. */
export interface AuthenticationInfo {
  /** Audiences the credential was valid for (authenticator.Audiences). */
  audiences?: string[];
}

/**
 * Request-scoped state. Filters read and write it; it replaces Go's context values.
 * `responseHeaders` plays the role of the ResponseWriter header map: filters that set a header
 * "before calling next" put it here, and whoever finally answers gets them merged into its
 * Response (see `finalizeResponse`). A filter that needs upstream's cloned header map (the
 * timeout filter) hands its inner handler a child context with a copy.
 */
export interface RequestContext {
  /** The request as downstream handlers should see it (authentication may strip headers). */
  request: Request;
  /** Parsed `request.url`, parsed once. */
  url: URL;
  transport: Transport;
  /** Shared response header map (Go's w.Header()). */
  responseHeaders: Headers;
  /** Milliseconds since the epoch when the request was received (WithRequestReceivedTimestamp). */
  receivedTimestamp: number;
  /** Aborted when the request deadline passes or the client goes away. */
  signal: AbortSignal;
  /** Set by WithAuditInit; echoed as the Audit-Id response header. */
  auditID?: string;
  /** Set by WithRequestInfo. */
  requestInfo?: RequestInfo;
  /** Set by authentication (and replaced by impersonation). */
  user?: UserInfo;
  authenticationInfo?: AuthenticationInfo;
  /** True when the request arrived before MuxAndDiscoveryComplete (WithMuxAndDiscoveryComplete). */
  muxAndDiscoveryIncomplete?: boolean;
  /** Free slots for filters that add request-scoped state (audit event, warnings, APF …). */
  values: Map<symbol | string, unknown>;
}

/** A handler in the chain: Go's http.Handler, Web-standard. */
export type Handler = (ctx: RequestContext) => Response | Promise<Response>;

/** A filter wraps a handler, like upstream's `WithX(handler, ...) http.Handler`. */
export type Filter = (next: Handler) => Handler;

const emptyTransport: Transport = Object.freeze({});
const neverAborted = new AbortController().signal;

/**
 * Whether `ctx.signal` has fired, without making it: a context that creates its signal lazily
 * (the timeout filter's child) answers through `signalAborted`.
 */
export function signalAborted(ctx: RequestContext): boolean {
  return (ctx as { signalAborted?: boolean }).signalAborted ?? ctx.signal.aborted;
}

/** Builds the context for a request entering the chain. */
export function newRequestContext(request: Request, transport?: Transport): RequestContext {
  return {
    request,
    url: parseRequestURL(request.url),
    transport: transport ?? emptyTransport,
    // A Headers over a plain Map: filters write a few headers per request (see header-map.ts).
    responseHeaders: new HeaderMap(),
    receivedTimestamp: Date.now(),
    signal: request.signal ?? neverAborted,
    values: new Map(),
  };
}

/**
 * Merges the shared header map into a Response, the way Go writes w.Header() with the first
 * WriteHeader: values the responder set itself win. When it adds any, the returned Response has
 * mutable headers (a copy if the given one's were immutable).
 */
export function finalizeResponse(ctx: RequestContext, response: Response): Response {
  const shared = ctx.responseHeaders;
  // The usual map is walked as it is (its keys, no entry pairs), not sorted first: each name is
  // set only if absent, so the order does not change the result.
  const map = shared instanceof HeaderMap ? shared.unsorted() : undefined;
  // `response.headers` is read once (each read is a brand check), again only after a copy.
  let headers = response.headers;
  let mutable = false;
  if (map) {
    for (const name of map.keys()) {
      if (headers.has(name)) continue;
      if (mutable) headers.set(name, map.get(name)!);
      else {
        mutable = true;
        response = setFirst(response, name, map.get(name)!);
        headers = response.headers;
      }
    }
    return response;
  }
  // Each Set-Cookie line is its own entry: all of them go out unless the responder set its own.
  // A name that gets here is absent from the response or another cookie line, so it is appended.
  const responderCookies = headers.has('set-cookie');
  for (const [name, value] of shared) {
    if (name === 'set-cookie' ? responderCookies : headers.has(name)) continue;
    if (mutable) headers.append(name, value);
    else {
      mutable = true;
      response = setFirst(response, name, value);
      headers = response.headers;
    }
  }
  return response;
}

/** The first header added: tried on the Response itself, probing its headers for immutability only then. */
function setFirst(response: Response, name: string, value: string): Response {
  try {
    response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set(name, value);
    return copy;
  }
}

/** Responses from fetch() (or another realm) have immutable headers; copy them when needed. */
export function ensureMutable(response: Response): Response {
  try {
    // Setting and deleting a private header probes the guard without changing anything.
    response.headers.set('x-edge-apiserver-probe', '1');
    response.headers.delete('x-edge-apiserver-probe');
    return response;
  } catch {
    return new Response(response.body, response);
  }
}
