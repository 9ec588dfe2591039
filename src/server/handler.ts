// APIServerHandler (k8s.io/apiserver/pkg/server/handler.go): the full handler chain around a
// director that sends each request to the API routes (upstream's go-restful container, here a
// Hono app) or to the non-API PathRecorderMux, whose not-found handler is the delegate.

import { Hono } from 'hono';
import type { Handler, RequestContext } from '../endpoints/request/context.ts';
import { decodedPath } from '../endpoints/request/path.ts';
import {
  errorNegotiated,
  newMethodNotSupported,
  newNotFound,
  StatusError,
  newInternalError,
} from '../endpoints/responsewriters/status.ts';
import { PathRecorderMux } from './mux/pathrecorder.ts';
import type { APIEnv, RouteContainer } from './mux/container.ts';
import { newRestfulNotAcceptable, restfulMatchesAccept } from '../endpoints/responsewriters/negotiation.ts';

/** @deprecated Import APIEnv from src/server/mux/container.ts (kept for branches in flight). */
export type { APIEnv };

const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export class APIServerHandler implements RouteContainer {
  /** The filter chain around the director; what the server serves. */
  fullHandlerChain: Handler;
  /** The API routes (upstream's GoRestfulContainer). Trailing slashes are trimmed like go-restful. */
  readonly goRestfulContainer = new Hono<APIEnv>({ strict: false });
  /** Root paths of registered web services, in registration order. */
  private readonly webServiceRoots: string[] = [];
  /** go-restful Produces of a web service's routes; checked against Accept before the route runs. */
  private readonly produces = new Map<string, readonly string[]>();
  readonly nonGoRestfulMux: PathRecorderMux;
  /** The unfiltered entry point (UnprotectedHandler for outer servers). */
  readonly director: Handler;

  constructor(name: string, buildChain: (director: Handler) => Handler, notFoundHandler?: Handler) {
    this.nonGoRestfulMux = new PathRecorderMux(name);
    if (notFoundHandler) this.nonGoRestfulMux.notFoundHandler(notFoundHandler);
    const container = this.goRestfulContainer;
    container.notFound((c) => {
      const ctx = c.env.ctx;
      const path = decodedPath(ctx.url) ?? ctx.url.pathname;
      const allowed = methods.some(
        (m) => m !== c.req.method && container.router.match(m, trimRightSlash(path))[0].length > 0,
      );
      return errorNegotiated(allowed ? newMethodNotSupported() : newNotFound(), ctx.request, ctx.url);
    });
    container.onError((err, c) => {
      const ctx = c.env.ctx;
      if (err instanceof StatusError) return errorNegotiated(err.status, ctx.request, ctx.url);
      throw err; // a panic: the chain's panic recovery answers it
    });
    this.director = (ctx) => this.direct(ctx);
    this.fullHandlerChain = buildChain(this.director);
  }

  /**
   * Registers a web service root (`/version`, `/apis`, `/api/v1` …). Routes are added to
   * `goRestfulContainer` (or given as a Hono app, merged in).
   */
  registerWebService(rootPath: string, routes?: Hono<APIEnv>, produces?: readonly string[]): void {
    if (!this.webServiceRoots.includes(rootPath)) this.webServiceRoots.push(rootPath);
    if (produces) this.produces.set(rootPath, produces);
    if (routes) this.goRestfulContainer.route('/', routes);
  }

  /** Root paths of the registered web services (for the index). */
  registeredWebServices(): readonly string[] {
    return this.webServiceRoots;
  }

  /** Whether a web service claims the path (director rules, k8s.io/apiserver/pkg/server/handler.go). */
  claims(path: string): boolean {
    return this.claimingRoot(path) !== undefined;
  }

  /** The root of the first web service claiming the path. */
  private claimingRoot(path: string): string | undefined {
    for (const root of this.webServiceRoots) {
      if (root === '/apis') {
        if (path === '/apis' || path === '/apis/') return root;
        continue;
      }
      if (path.startsWith(root) && (path.length === root.length || path[root.length] === '/')) return root;
    }
    return undefined;
  }

  /** The Produces of the most specific web service root with one that claims the path (go-restful picks the longest root). */
  private producesFor(path: string): readonly string[] | undefined {
    let best: string | undefined;
    for (const root of this.produces.keys()) {
      if (
        path.startsWith(root) &&
        (path.length === root.length || path[root.length] === '/') &&
        (!best || root.length > best.length)
      )
        best = root;
    }
    return best === undefined ? undefined : this.produces.get(best);
  }

  private direct(ctx: RequestContext): Response | Promise<Response> {
    const path = decodedPath(ctx.url) ?? ctx.url.pathname;
    const root = this.claimingRoot(path);
    if (root === undefined) return this.nonGoRestfulMux.serve(ctx, path);
    // go-restful's route selection: no route producing an accepted type is a 406 (jsr311.go).
    const produces = this.producesFor(path);
    if (produces && !restfulMatchesAccept(ctx.request.headers.get('accept'), produces)) {
      return errorNegotiated(newRestfulNotAcceptable(), ctx.request, ctx.url);
    }
    return this.serveContainer(ctx);
  }

  private serveContainer(ctx: RequestContext): Response | Promise<Response> {
    // Synchronous when the route is (Hono answers a sync handler without a Promise).
    let out: Response | Promise<Response>;
    try {
      out = this.goRestfulContainer.fetch(ctx.request, { ctx });
    } catch (err) {
      return containerError(ctx, err);
    }
    return out instanceof Promise ? out.catch((err: unknown) => containerError(ctx, err)) : out;
  }
}

function containerError(ctx: RequestContext, err: unknown): Response {
  if (err instanceof StatusError) return errorNegotiated(err.status, ctx.request, ctx.url);
  // go-restful renders a panic inside it as a negotiated 500 Status.
  return errorNegotiated(newInternalError(err), ctx.request, ctx.url);
}

function trimRightSlash(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.replace(/\/+$/, '') : p;
}
