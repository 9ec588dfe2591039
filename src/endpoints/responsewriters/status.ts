// Status bodies and the three kinds of error responses the chain writes, byte-for-byte as
// upstream (endpoints/handlers/responsewriters): negotiated Status objects, Go's http.Error text,
// and responsewriters.InternalError.

import { goQuote, parseGoBool } from '../../util/go.ts';

/** @deprecated Import goQuote and parseGoBool from src/util/go.ts (kept for branches in flight). */
export { goQuote, parseGoBool };
import { stringify } from 'yaml';

/** metav1.StatusDetails; field order is the wire order. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** metav1.Status without TypeMeta; `encodeStatus` adds kind/apiVersion unless told not to. */
export interface Status {
  /** metav1.ListMeta: a 410 for a compacted paged list carries a fresh continue token here. */
  metadata?: { resourceVersion?: string; continue?: string };
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  /** Present (even empty) means `"details":{…}` is written; absent means omitted. */
  details?: StatusDetails;
  code?: number;
}

/** An error carrying the Status an API handler wants returned (apierrors.StatusError). */
export class StatusError extends Error {
  readonly status: Status;
  constructor(status: Status) {
    super(status.message ?? status.reason ?? 'unknown error');
    this.name = 'StatusError';
    this.status = status;
  }
}

export function newNotFound(): Status {
  return {
    status: 'Failure',
    message: 'the server could not find the requested resource',
    reason: 'NotFound',
    details: {},
    code: 404,
  };
}

export function newMethodNotSupported(): Status {
  return {
    status: 'Failure',
    message: 'the server does not allow this method on the requested resource',
    reason: 'MethodNotAllowed',
    details: {},
    code: 405,
  };
}

export function newBadRequest(message: string): Status {
  return { status: 'Failure', message, reason: 'BadRequest', code: 400 };
}

export function newServiceUnavailable(message: string): Status {
  return { status: 'Failure', message, reason: 'ServiceUnavailable', code: 503 };
}

export function newUnauthorized(message = 'Unauthorized'): Status {
  return { status: 'Failure', message, reason: 'Unauthorized', code: 401 };
}

export function newInternalError(err: unknown): Status {
  return {
    status: 'Failure',
    message: `Internal error occurred: ${errorMessage(err)}`,
    reason: 'InternalError',
    details: { causes: [{ message: errorMessage(err) }] },
    code: 500,
  };
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// Go's encoding/json HTML-escapes these inside strings (they only occur inside strings in
// JSON.stringify output, so a global replace is safe).
const htmlUnsafe = /[<>&\u2028\u2029]/g;
const htmlEscapes: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** JSON.stringify with Go encoding/json's HTML escaping. */
export function goJSON(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(htmlUnsafe, (c) => htmlEscapes[c]!);
}

/** Orders a Status as metav1.Status serialises, dropping empty (omitempty) fields. */
export function statusObject(status: Status, typeMeta = true): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeMeta) {
    out.kind = 'Status';
    out.apiVersion = 'v1';
  }
  const meta: Record<string, unknown> = {};
  if (status.metadata?.resourceVersion) meta.resourceVersion = status.metadata.resourceVersion;
  if (status.metadata?.continue) meta.continue = status.metadata.continue;
  out.metadata = meta;
  if (status.status) out.status = status.status;
  if (status.message) out.message = status.message;
  if (status.reason) out.reason = status.reason;
  if (status.details) {
    const d = status.details;
    const details: Record<string, unknown> = {};
    if (d.name) details.name = d.name;
    if (d.group) details.group = d.group;
    if (d.kind) details.kind = d.kind;
    if (d.uid) details.uid = d.uid;
    if (d.causes?.length) {
      details.causes = d.causes.map((c) => {
        const cause: Record<string, unknown> = {};
        if (c.reason) cause.reason = c.reason;
        if (c.message) cause.message = c.message;
        if (c.field) cause.field = c.field;
        return cause;
      });
    }
    if (d.retryAfterSeconds) details.retryAfterSeconds = d.retryAfterSeconds;
    out.details = details;
  }
  if (status.code) out.code = status.code;
  return out;
}

/**
 * Compact form: json.Encoder output with a trailing newline. Pretty form: json.MarshalIndent
 * with two spaces and no trailing newline.
 */
export function encodeStatus(status: Status, pretty = false, typeMeta = true): string {
  const obj = statusObject(status, typeMeta);
  return pretty ? goJSON(obj, 2) : goJSON(obj) + '\n';
}

/** negotiation.isPrettyPrint: `?pretty=` decides alone when non-empty, else curl/Wget/browser agents. */
export function isPrettyPrint(request: Request, url?: URL): boolean {
  const u = url ?? new URL(request.url);
  if (u.search.includes('pretty')) {
    const pp = u.searchParams.get('pretty');
    if (pp) return parseGoBool(pp) === true;
  }
  const ua = request.headers.get('user-agent') ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

interface AcceptClause {
  type: string;
  subType: string;
  q: number;
  params: Record<string, string>;
}

/** goautoneg.ParseAccept: clauses sorted by q (desc), then specificity. */
export function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const part of header.split(',')) {
    const pieces = part.split(';');
    const mt = pieces[0]!.trim();
    if (!mt) continue;
    const slash = mt.indexOf('/');
    const type = slash < 0 ? mt : mt.slice(0, slash);
    const subType = slash < 0 ? '*' : mt.slice(slash + 1);
    let q = 1;
    const params: Record<string, string> = {};
    for (const p of pieces.slice(1)) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const k = p.slice(0, eq).trim();
      const v = p.slice(eq + 1).trim();
      if (k === 'q') q = Number.parseFloat(v) || 0;
      else params[k] = v;
    }
    clauses.push({ type, subType, q, params });
  }
  const specificity = (c: AcceptClause) => (c.type === '*' ? 0 : c.subType === '*' ? 1 : 2);
  return clauses
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.q - a.c.q || specificity(b.c) - specificity(a.c) || a.i - b.i)
    .map(({ c }) => c);
}

export interface NegotiatedStatusOutput {
  /** Whether an acceptable clause was found (otherwise upstream falls back to pretty JSON). */
  acceptable: boolean;
  pretty: boolean;
  /** `application/yaml` was negotiated. */
  yaml?: boolean;
}

/**
 * The part of NegotiateOutputMediaType that matters for Status bodies: JSON or YAML. Protobuf
 * clauses are skipped (docs/differences-parity.md), so `protobuf, json` answers JSON.
 */
export function negotiateStatusOutput(request: Request, url?: URL): NegotiatedStatusOutput {
  const accept = request.headers.get('accept');
  if (!accept) return { acceptable: true, pretty: isPrettyPrint(request, url) };
  for (const c of parseAccept(accept)) {
    if (c.q <= 0) continue;
    const typeOK = c.type === '*' || c.type === 'application';
    const yaml = c.type === 'application' && c.subType === 'yaml';
    const subOK = c.subType === '*' || c.subType === 'json' || yaml;
    if (!typeOK || !subOK) continue;
    // DefaultEndpointRestrictions: no conversion (as/g/v) and no server-version output.
    if (c.params.as || c.params.sv) continue;
    // YAML has no stream serializer.
    if (c.params.stream && (c.params.stream !== 'watch' || yaml)) continue;
    return { acceptable: true, pretty: c.params.pretty === '1' || isPrettyPrint(request, url), yaml };
  }
  return { acceptable: false, pretty: true };
}

/**
 * kube's YAML serializer: sigs.k8s.io/yaml JSONToYAML of the JSON encoding (keys sorted,
 * sequences not indented, no line folding).
 */
export function toKubeYAML(value: unknown): string {
  return stringify(JSON.parse(goJSON(value)), {
    sortMapEntries: true,
    indentSeq: false,
    lineWidth: 0,
    minContentWidth: 0,
    aliasDuplicateObjects: false,
  });
}

/** responsewriters.ErrorNegotiated: a negotiated Status with the Status code. */
export function errorNegotiated(status: Status, request: Request, url?: URL): Response {
  const { pretty, yaml } = negotiateStatusOutput(request, url);
  const headers = new Headers({ 'content-type': yaml ? 'application/yaml' : 'application/json' });
  const retry = status.details?.retryAfterSeconds;
  if (retry && retry > 0) headers.set('retry-after', String(retry));
  const body = yaml ? toKubeYAML(statusObject(status)) : encodeStatus(status, pretty);
  return new Response(body, { status: status.code || 500, headers });
}

/** responsewriters.RespondWithError / WriteObjectNegotiated for errors: ErrorNegotiated plus nosniff. */
export function respondWithError(status: Status, request: Request, url?: URL): Response {
  const response = errorNegotiated(status, request, url);
  response.headers.set('x-content-type-options', 'nosniff');
  return response;
}

/** Go's http.Error: text/plain, nosniff, message plus newline. */
export function httpError(message: string, code: number, extraHeaders?: Record<string, string>): Response {
  const headers = new Headers({
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
  });
  if (extraHeaders) for (const [k, v] of Object.entries(extraHeaders)) headers.set(k, v);
  return new Response(message + '\n', { status: code, headers });
}

/** Go's http.NotFound. */
export function notFoundText(): Response {
  return httpError('404 page not found', 404);
}

/** responsewriters.InternalError: `Internal Server Error: "<uri>": <err>` with HTML entities escaped. */
export function internalError(request: Request, err: unknown, url?: URL): Response {
  const u = url ?? new URL(request.url);
  const requestURI = u.pathname + u.search;
  const message = `Internal Server Error: ${goQuote(requestURI)}: ${errorMessage(err)}`;
  return httpError(htmlSanitize(message), 500);
}

/** The sanitiser upstream applies before writing messages into error text. */
export function htmlSanitize(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
