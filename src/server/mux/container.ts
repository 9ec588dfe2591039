// What route installers get: the server's two route tables (upstream: GenericAPIServer.Handler's
// GoRestfulContainer and NonGoRestfulMux, k8s.io/apiserver/pkg/server/handler.go). Here, below
// the server, so packages that install routes (metrics, flow control, OpenID, API groups) need
// not import the server.

import type { Hono } from 'hono';
import type { RequestContext } from '../../endpoints/request/context.ts';
import type { PathRecorderMux } from './pathrecorder.ts';

/** Hono environment of the API routes: `c.env.ctx` is the request context the chain built. */
export interface APIEnv {
  Bindings: { ctx: RequestContext };
}

/** The API routes (a Hono app) and the non-API mux; APIServerHandler implements it. */
export interface RouteContainer {
  /** The API routes (upstream's GoRestfulContainer). */
  readonly goRestfulContainer: Hono<APIEnv>;
  /** Health, metrics, debug and other non-API paths. */
  readonly nonGoRestfulMux: PathRecorderMux;
  /**
   * Claims a web service root (`/apis/<group>` …) for the API routes, merging `routes` in; with
   * `produces`, Accept is checked against those media types first (go-restful's Produces).
   */
  registerWebService(rootPath: string, routes?: Hono<APIEnv>, produces?: readonly string[]): void;
}

/**
 * What a Config.routeInstallers entry receives: the route tables, the settings `C` it reads and a
 * place for clean-up (a GenericAPIServer fits, with its completed config).
 */
export interface RouteTarget<C = unknown> {
  readonly handler: RouteContainer;
  readonly config: C;
  /** Runs `fn` when the server is destroyed (GenericAPIServer.AddDestroyFunc). */
  addDestroyFunc(fn: () => void): void;
}
