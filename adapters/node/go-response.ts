// HTTP/1.1 response heads as Go's net/http writes them (net/http/server.go chunkWriter.writeHeader,
// extraHeader.Write; header.go Header.writeSubset and sortedKeyValues; textproto
// CanonicalMIMEHeaderKey): the status line with Go's status text, the handler's headers with
// canonical names sorted by name, then what the server adds, in this order: Date,
// Content-Length, Connection, Transfer-Encoding. Go sends no `Keep-Alive` header and no
// `Connection: keep-alive` to an HTTP/1.1 client. Node writes lower-case names in insertion
// order with both of those, so the head Node built is rewritten before it is sent. HTTP/2 is
// untouched (its field names are lower case by definition).

import { ServerResponse, type IncomingMessage } from 'node:http';

/** Go's StatusText where it differs from Node's STATUS_CODES. */
const goStatusText: Record<number, string> = {
  413: 'Request Entity Too Large',
  414: 'Request URI Too Long',
  416: 'Requested Range Not Satisfiable',
  509: 'status code 509',
};

const canonicalCache = new Map<string, string>();

/** textproto.CanonicalMIMEHeaderKey: `content-type` → `Content-Type`; names with invalid bytes unchanged. */
export function canonicalHeaderKey(name: string): string {
  let c = canonicalCache.get(name);
  if (c !== undefined) return c;
  c = '';
  let upper = true;
  for (let i = 0; i < name.length; i++) {
    const ch = name[i]!;
    const code = ch.charCodeAt(0);
    // Only token characters are canonicalised (validHeaderFieldByte); a space or colon: as is.
    if (code <= 0x20 || code >= 0x7f || ch === ':') {
      c = name;
      break;
    }
    c += upper ? ch.toUpperCase() : ch.toLowerCase();
    upper = ch === '-';
  }
  if (canonicalCache.size < 1024) canonicalCache.set(name, c);
  return c;
}

/**
 * Rewrites a head Node built (`HTTP/1.1 200 OK\r\nname: value\r\n…\r\n\r\n`) into Go's layout.
 * `http10`: the request was HTTP/1.0 (Go answers `HTTP/1.0` and keeps `Connection: keep-alive`).
 */
export function goResponseHead(head: string, http10 = false): string {
  let eol = head.indexOf('\r\n');
  let status = head.slice(0, eol);
  const sp = status.indexOf(' ');
  const code =
    (status.charCodeAt(sp + 1) - 48) * 100 + (status.charCodeAt(sp + 2) - 48) * 10 + (status.charCodeAt(sp + 3) - 48);
  const text = goStatusText[code];
  if (text !== undefined || http10)
    status = `${http10 ? 'HTTP/1.0' : status.slice(0, sp)} ${code} ${text ?? status.slice(sp + 5)}`;
  // Handler headers as [canonical name, "Name: value\r\n"]; the server's own kept apart.
  const names: string[] = [];
  const lines: string[] = [];
  let sorted = true;
  let date = '';
  let contentLength = '';
  let connection = '';
  let transferEncoding = '';
  for (let start = eol + 2; ; start = eol + 2) {
    eol = head.indexOf('\r\n', start);
    if (eol < 0 || eol === start) break;
    const colon = head.indexOf(':', start);
    const n = colon - start;
    // Only names of these lengths can be one the server writes (the rest is never lower-cased).
    if (n === 4 || n === 10 || n === 14 || n === 17) {
      const lower = head.slice(start, colon).toLowerCase();
      const value = head.slice(colon + 1, eol).trim();
      if (lower === 'date') {
        date = value;
        continue;
      }
      if (lower === 'content-length') {
        contentLength = value;
        continue;
      }
      if (lower === 'keep-alive') continue;
      if (lower === 'connection') {
        // Go's keep-alive on HTTP/1.1 is silent; on HTTP/1.0 it is announced, and closing is not.
        if (value.toLowerCase() === 'keep-alive') connection = http10 ? 'keep-alive' : '';
        else connection = http10 ? '' : value;
        continue;
      }
      if (lower === 'transfer-encoding') {
        transferEncoding = value;
        continue;
      }
    }
    const name = canonicalHeaderKey(head.slice(start, colon));
    if (names.length && name < names[names.length - 1]!) sorted = false;
    names.push(name);
    let v = colon + 1;
    while (head.charCodeAt(v) === 32) v++;
    lines.push(`${name}: ${head.slice(v, eol)}\r\n`);
  }
  let out = status + '\r\n';
  if (sorted) {
    for (let i = 0; i < lines.length; i++) out += lines[i];
  } else {
    // sortedKeyValues: by name, values of one name in their order (insertion sort: stable, few).
    for (let i = 1; i < names.length; i++) {
      const n = names[i]!;
      const l = lines[i]!;
      let j = i - 1;
      for (; j >= 0 && names[j]! > n; j--) {
        names[j + 1] = names[j]!;
        lines[j + 1] = lines[j]!;
      }
      names[j + 1] = n;
      lines[j + 1] = l;
    }
    for (let i = 0; i < lines.length; i++) out += lines[i];
  }
  if (date) out += `Date: ${date}\r\n`;
  if (contentLength) out += `Content-Length: ${contentLength}\r\n`;
  if (connection) out += `Connection: ${connection}\r\n`;
  if (transferEncoding) out += `Transfer-Encoding: ${transferEncoding}\r\n`;
  return out + '\r\n';
}

interface NodeOutgoingInternals {
  _header: string | null;
  _headerSent: boolean;
  req?: IncomingMessage;
  _storeHeader(firstLine: string, headers: unknown): void;
}

const storeHeader = (ServerResponse.prototype as unknown as NodeOutgoingInternals)._storeHeader;

/**
 * A ServerResponse whose head is Go's: pass it as `ServerResponse` (https.createServer) or
 * `Http1ServerResponse` (http2.createSecureServer with allowHTTP1).
 */
export class GoServerResponse extends ServerResponse {}

(GoServerResponse.prototype as unknown as NodeOutgoingInternals)._storeHeader = function (
  this: NodeOutgoingInternals,
  firstLine,
  headers,
) {
  storeHeader.call(this, firstLine, headers);
  // An `Expect: 100-continue` head may already be on its way.
  if (this._header && !this._headerSent) this._header = goResponseHead(this._header, this.req?.httpVersionMinor === 0);
};

const presetKey = Symbol('presetHeaders');
type WriteHead = (statusCode: number, reason?: unknown, headers?: unknown) => ServerResponse;
const writeHead = ServerResponse.prototype.writeHead as WriteHead;

/**
 * Hands the chain's shared header map (Transport.presetHeaders) to the response, to be merged
 * into the header object of its writeHead, where the Response's own names win (compared case-
 * insensitively). Unlike setHeader for each, this keeps Node on writeHead's fast path (no
 * progressive header map, the Response's headers not set one by one). False when `res` is no
 * GoServerResponse (the caller sets the headers itself).
 */
export function presetResponseHeaders(res: object, headers: Iterable<[string, string]>): boolean {
  if (!(res instanceof GoServerResponse)) return false;
  (res as unknown as Record<symbol, unknown>)[presetKey] = headers;
  return true;
}

(GoServerResponse.prototype as unknown as { writeHead: WriteHead }).writeHead = function (
  this: ServerResponse & Record<symbol, unknown>,
  statusCode,
  reason,
  obj,
) {
  const preset = this[presetKey] as Iterable<[string, string]> | undefined;
  if (preset !== undefined) {
    this[presetKey] = undefined;
    if (typeof reason === 'string') obj = withPreset(this, preset, obj);
    else reason = withPreset(this, preset, reason);
  }
  return writeHead.call(this, statusCode, reason, obj);
} as WriteHead;

/** The writeHead header argument with the preset headers it lacks in front. */
function withPreset(res: ServerResponse, preset: Iterable<[string, string]>, headers: unknown): unknown {
  if (headers == null) {
    const out: Record<string, string> = {};
    for (const [name, value] of preset) if (!res.hasHeader(name)) out[name] = value;
    return out;
  }
  if (typeof headers !== 'object' || Array.isArray(headers)) {
    // Raw header arrays: set the preset ones progressively (writeHead's own win, as setHeader replaces).
    for (const [name, value] of preset) res.setHeader(name, value);
    return headers;
  }
  const own = headers as Record<string, unknown>;
  const lower = new Set<string>();
  for (const k in own) lower.add(k.toLowerCase());
  const out: Record<string, unknown> = {};
  for (const [name, value] of preset) if (!lower.has(name) && !res.hasHeader(name)) out[name] = value;
  for (const k in own) out[k] = own[k];
  return out;
}
