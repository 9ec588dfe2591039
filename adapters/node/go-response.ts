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
  const lines = head.split('\r\n');
  let status = lines[0]!;
  const sp = status.indexOf(' ');
  const code = Number(status.slice(sp + 1, sp + 4));
  const text = goStatusText[code];
  if (text !== undefined || http10) status = `${http10 ? 'HTTP/1.0' : status.slice(0, sp)} ${code} ${text ?? status.slice(sp + 5)}`;
  const handler: [string, string][] = [];
  let date = '';
  let contentLength = '';
  let connection = '';
  let transferEncoding = '';
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    const colon = line.indexOf(':');
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    switch (name.length === 4 || name.length === 10 || name.length === 14 || name.length === 17 ? name.toLowerCase() : '') {
      case 'date':
        date = value;
        continue;
      case 'content-length':
        contentLength = value;
        continue;
      case 'keep-alive':
        continue;
      case 'connection':
        // Go's keep-alive on HTTP/1.1 is silent; on HTTP/1.0 it is announced, and closing is not.
        if (value.toLowerCase() === 'keep-alive') connection = http10 ? 'keep-alive' : '';
        else connection = http10 ? '' : value;
        continue;
      case 'transfer-encoding':
        transferEncoding = value;
        continue;
    }
    handler.push([canonicalHeaderKey(name), value]);
  }
  // sortedKeyValues: by name, values of one name in their order (a stable sort).
  handler.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let out = status + '\r\n';
  for (const [k, v] of handler) out += `${k}: ${v}\r\n`;
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

(GoServerResponse.prototype as unknown as NodeOutgoingInternals)._storeHeader = function (this: NodeOutgoingInternals, firstLine, headers) {
  storeHeader.call(this, firstLine, headers);
  // An `Expect: 100-continue` head may already be on its way.
  if (this._header && !this._headerSent) this._header = goResponseHead(this._header, this.req?.httpVersionMinor === 0);
};
