// The OpenAPI handlers (kube-openapi pkg/handler for `/openapi/v2`, pkg/handler3 for `/openapi/v3`
// and `/openapi/v3/<group-version>`): documents built from what the server serves, rebuilt when
// that changes (a CRD added or removed), each with the SHA-512 ETag upstream computes; 304 on a
// matching If-None-Match (http.ServeContent), a hash-addressed group version with
// `Cache-Control: public, immutable` and a year's Expires, a stale hash redirected (301) to the
// current one, v2 also in gnostic's protobuf, and 406 for a media type not offered.

import { parseAccept } from '../responsewriters/status.ts';
import { buildV2Document, buildV3Document, groupVersionPath, type OpenAPIGroupVersion } from './builder.ts';
import { encodeV2Protobuf } from './protobuf.ts';

/** What the documents describe, read on every request (cheap: discovery's lists). */
export interface OpenAPISource {
  /** The served group versions with their resources. */
  groupVersions(): readonly OpenAPIGroupVersion[];
  /** A value that changes whenever groupVersions() (or a resource's schema) does. */
  fingerprint(): string;
}

interface Doc {
  body: string | Uint8Array;
  /** Upper-case hex SHA-512 of the body (kube-openapi computeETag), unquoted. */
  etag: string;
  lastModified: Date;
}

const v2ProtobufDeprecated = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const v2Protobuf = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const v3ProtobufSubTypes = [
  'com.github.proto-openapi.spec.v3.v1.0+protobuf',
  'com.github.proto-openapi.spec.v3@v1.0+protobuf',
];

async function sha512Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-512', new TextEncoder().encode(text)));
  let out = '';
  for (const b of digest) out += b.toString(16).padStart(2, '0');
  return out.toUpperCase();
}

async function newDoc(obj: unknown): Promise<Doc> {
  const body = JSON.stringify(obj);
  return { body, etag: await sha512Hex(body), lastModified: new Date(Math.floor(Date.now() / 1000) * 1000) };
}

/** `/openapi/v3/<gv>?hash=<etag>` (handler3 constructServerRelativeURL). */
export function serverRelativeURL(gvPath: string, etag: string): string {
  return `/openapi/v3/${gvPath}?hash=${encodeURIComponent(etag)}`;
}

/**
 * The first media type the Accept header allows among those offered, in Accept order (goautoneg
 * clauses sorted by q and specificity, each tried against the offered list); undefined means 406.
 */
export function negotiateOpenAPI(accept: string | null, offered: readonly string[]): string | undefined {
  for (const c of parseAccept(accept || '*/*')) {
    for (const o of offered) {
      const [type, subType] = o.split('/') as [string, string];
      if ((c.type === type || c.type === '*') && (c.subType === subType || c.subType === '*')) return o;
    }
  }
  return undefined;
}

/** http.ServeContent's If-None-Match check (weak comparison, lists, `*`). */
function noneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  for (const part of header.split(',')) {
    const t = part.trim();
    if (t === '*' || t.replace(/^W\//, '') === etag) return true;
  }
  return false;
}

/** A document (or its 304) with the headers http.ServeContent writes. */
function serveContent(request: Request, headers: Headers, doc: Doc): Response {
  const etag = JSON.stringify(doc.etag);
  headers.set('etag', etag);
  if (noneMatch(request.headers.get('if-none-match'), etag)) {
    headers.delete('content-type');
    return new Response(null, { status: 304, headers });
  }
  headers.set('last-modified', doc.lastModified.toUTCString());
  headers.set('accept-ranges', 'bytes');
  return new Response(request.method === 'HEAD' ? null : (doc.body as BodyInit), { status: 200, headers });
}

/** Serves the v2 and v3 documents of one server; documents are built on first request and kept until the fingerprint changes. */
export class OpenAPIService {
  private key?: string;
  /** The v2 document: JSON, and its protobuf form once asked for. */
  private v2?: Promise<{ json: Doc; protobuf?: Doc }>;
  private v3 = new Map<string, Promise<Doc>>();
  private gvs = new Map<string, OpenAPIGroupVersion>();
  private root?: Promise<Doc>;

  private readonly source: OpenAPISource;
  private readonly info: { version: string };

  constructor(source: OpenAPISource, info: { version: string }) {
    this.source = source;
    this.info = info;
  }

  private refresh(): void {
    const key = this.source.fingerprint();
    if (key === this.key) return;
    this.key = key;
    this.v2 = undefined;
    this.root = undefined;
    this.v3.clear();
    this.gvs.clear();
    for (const gv of this.source.groupVersions())
      if (gv.resources.length > 0) this.gvs.set(groupVersionPath(gv.group, gv.version), gv);
  }

  private groupDoc(gvPath: string): Promise<Doc> | undefined {
    const gv = this.gvs.get(gvPath);
    if (!gv) return undefined;
    let d = this.v3.get(gvPath);
    if (!d) this.v3.set(gvPath, (d = newDoc(buildV3Document(gv, this.info))));
    return d;
  }

  /** The v3 group-version paths served, sorted. */
  groupVersionPaths(): string[] {
    this.refresh();
    return [...this.gvs.keys()].sort();
  }

  /** `GET /openapi/v3`: `{"paths": {"<gv>": {"serverRelativeURL": …?hash=<etag>}}}` (HandleDiscovery). */
  async handleDiscovery(request: Request): Promise<Response> {
    this.refresh();
    if (!this.root) {
      const keys = [...this.gvs.keys()].sort();
      this.root = Promise.all(keys.map((k) => this.groupDoc(k)!)).then((docs) => {
        const paths: Record<string, { serverRelativeURL: string }> = {};
        keys.forEach((k, i) => (paths[k] = { serverRelativeURL: serverRelativeURL(k, docs[i]!.etag) }));
        return newDoc({ paths });
      });
    }
    const doc = await this.root;
    return serveContent(request, new Headers({ 'content-type': 'application/json' }), doc);
  }

  /** `GET /openapi/v3/<gv>` (HandleGroupVersion). */
  async handleGroupVersion(request: Request, url: URL, gvPath: string): Promise<Response> {
    this.refresh();
    const headers = new Headers({ vary: 'Accept' });
    const type = negotiateOpenAPI(request.headers.get('accept'), [
      'application/json',
      ...v3ProtobufSubTypes.map((s) => `application/${s}`),
    ]);
    if (!type) return new Response(null, { status: 406, headers });
    // The protobuf form (gnostic's OpenAPI v3 message) is not offered here: 406, what upstream
    // answers a type it does not serve.
    if (type !== 'application/json') return new Response(null, { status: 406, headers });
    const pending = this.groupDoc(gvPath);
    // Upstream writes nothing for a group version it does not know: an empty 200.
    if (!pending) return new Response(null, { status: 200, headers });
    const doc = await pending;
    headers.set('content-type', 'application/json');
    const hash = url.searchParams.get('hash');
    if (hash) {
      if (hash !== doc.etag) {
        const location = serverRelativeURL(gvPath, doc.etag);
        headers.set('location', location);
        headers.set('content-type', 'text/html; charset=utf-8');
        const body = request.method === 'GET' ? `<a href="${location}">Moved Permanently</a>.\n\n` : null;
        return new Response(body, { status: 301, headers });
      }
      headers.set('cache-control', 'public, immutable');
      headers.set('expires', new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString());
    }
    return serveContent(request, headers, doc);
  }

  /** `GET /openapi/v2`: the swagger 2.0 document of everything served. */
  async handleV2(request: Request): Promise<Response> {
    this.refresh();
    const headers = new Headers({ vary: 'Accept' });
    const type = negotiateOpenAPI(request.headers.get('accept'), [
      'application/json',
      v2ProtobufDeprecated,
      v2Protobuf,
    ]);
    if (!type) return new Response(null, { status: 406, headers });
    this.v2 ??= newDoc(buildV2Document([...this.gvs.values()], this.info)).then((json) => ({ json }));
    const docs = await this.v2;
    if (type === 'application/json') {
      headers.set('content-type', 'application/json');
      return serveContent(request, headers, docs.json);
    }
    // The protobuf form shares the JSON document's ETag (kube-openapi derives both from one spec).
    docs.protobuf ??= {
      body: encodeV2Protobuf(JSON.parse(docs.json.body as string) as Record<string, unknown>),
      etag: docs.json.etag,
      lastModified: docs.json.lastModified,
    };
    headers.set('content-type', v2Protobuf);
    return serveContent(request, headers, docs.protobuf);
  }
}
