// PathRecorderMux (k8s.io/apiserver/pkg/server/mux/pathrecorder.go): exact paths, then
// prefixes (most slashes, then longest, then reverse lexical), then the not-found handler.
// Method-agnostic. Every mutation swaps in a fresh immutable table, so serving never locks.

import type { Handler, RequestContext } from '../../endpoints/request/context.ts';
import { notFoundText } from '../../endpoints/responsewriters/status.ts';

interface PrefixEntry {
  prefix: string;
  handler: Handler;
}

interface MuxTable {
  exact: Map<string, Handler>;
  prefixes: PrefixEntry[];
  notFound: Handler;
}

export class PathRecorderMux {
  readonly name: string;
  private exact = new Map<string, Handler>();
  private prefixes = new Map<string, Handler>();
  private listed: string[] = [];
  private notFound: Handler = () => notFoundText();
  private table: MuxTable;
  /** Reports duplicate registrations (upstream logs them and lets the last one win). */
  onDuplicate?: (path: string) => void;

  constructor(name: string) {
    this.name = name;
    this.table = this.build();
  }

  /** Exact, listed path. */
  handle(path: string, handler: Handler): void {
    this.listed.push(path);
    this.registerExact(path, handler);
  }

  /** Exact, unlisted path. */
  unlistedHandle(path: string, handler: Handler): void {
    this.registerExact(path, handler);
  }

  /** Prefix (must end in `/`), listed. Throws like upstream's panic otherwise. */
  handlePrefix(path: string, handler: Handler): void {
    this.requireTrailingSlash(path);
    this.listed.push(path);
    this.registerPrefix(path, handler);
  }

  unlistedHandlePrefix(path: string, handler: Handler): void {
    this.requireTrailingSlash(path);
    this.registerPrefix(path, handler);
  }

  unregister(path: string): void {
    this.exact.delete(path);
    this.prefixes.delete(path);
    this.listed = this.listed.filter((p) => p !== path);
    this.table = this.build();
  }

  notFoundHandler(handler: Handler): void {
    this.notFound = handler;
    this.table = this.build();
  }

  /** Listed paths, sorted (may contain duplicates, as upstream's). */
  listedPaths(): string[] {
    return [...this.listed].sort();
  }

  /** Whether `path` matches an exact or prefix registration (the not-found handler excluded). */
  matches(path: string): boolean {
    const t = this.table;
    return t.exact.has(path) || t.prefixes.some((p) => path.startsWith(p.prefix));
  }

  serve(ctx: RequestContext, path = ctx.url.pathname): Response | Promise<Response> {
    const t = this.table;
    const exact = t.exact.get(path);
    if (exact) return exact(ctx);
    for (const p of t.prefixes) if (path.startsWith(p.prefix)) return p.handler(ctx);
    return t.notFound(ctx);
  }

  private requireTrailingSlash(path: string): void {
    if (!path.endsWith('/')) throw new Error(`${JSON.stringify(path)} must end in a trailing slash`);
  }

  private registerExact(path: string, handler: Handler): void {
    if (this.exact.has(path)) this.onDuplicate?.(path);
    this.exact.set(path, handler);
    this.table = this.build();
  }

  private registerPrefix(path: string, handler: Handler): void {
    if (this.prefixes.has(path)) this.onDuplicate?.(path);
    this.prefixes.set(path, handler);
    this.table = this.build();
  }

  private build(): MuxTable {
    const slashes = (s: string) => s.split('/').length;
    const prefixes = [...this.prefixes].map(([prefix, handler]) => ({ prefix, handler }));
    prefixes.sort(
      (a, b) =>
        slashes(b.prefix) - slashes(a.prefix) ||
        b.prefix.length - a.prefix.length ||
        (a.prefix < b.prefix ? 1 : a.prefix > b.prefix ? -1 : 0),
    );
    return { exact: new Map(this.exact), prefixes, notFound: this.notFound };
  }
}
