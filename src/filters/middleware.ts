// Any chain filter `withX(next, config)` as a Hono middleware, so each filter is usable alone
// (or several in a row) in a plain Hono app. The first such middleware creates the request's
// RequestContext (`c.var.requestContext`) and finally merges the shared header map into the
// answer; later ones and the route handlers read the same context.
//
// @example
//   const app = new Hono()
//   app.use(honoMiddleware(withAuditInit, {}))
//   app.use(honoMiddleware(withCacheControl, {}))
//   app.get('/x', (c) => c.text(c.var.requestContext.auditID!))

import type { MiddlewareHandler, Context as HonoContext, Next } from 'hono';
import {
  finalizeResponse,
  newRequestContext,
  type Handler,
  type RequestContext,
  type Transport,
} from '../endpoints/request/context.ts';

/** Hono variables the adapter uses: the shared request context. */
export interface FilterEnv {
  Variables: { requestContext: RequestContext };
  Bindings: { transport?: Transport };
}

const honoKey = Symbol('honoContinuation');

interface Continuation {
  c: HonoContext<FilterEnv>;
  next: Next;
}

/** Turns `withX(next, config)` into a Hono middleware, building the filter once. */
export function honoMiddleware<C>(filter: (next: Handler, c: C) => Handler, config: C): MiddlewareHandler<FilterEnv> {
  // The filter's `next` continues the Hono middleware chain with the (possibly child) context.
  const inner: Handler = async (ctx) => {
    const k = ctx.values.get(honoKey) as Continuation;
    k.c.set('requestContext', ctx);
    await k.next();
    return k.c.res;
  };
  const handler = filter(inner, config);
  return async (c, next) => {
    let ctx = c.get('requestContext') as RequestContext | undefined;
    const outermost = ctx === undefined;
    if (!ctx) {
      const env = c.env as { transport?: Transport } | undefined;
      ctx = newRequestContext(c.req.raw, env?.transport);
      c.set('requestContext', ctx);
    }
    const saved = ctx.values.get(honoKey);
    ctx.values.set(honoKey, { c, next } satisfies Continuation);
    let res = await handler(ctx);
    ctx.values.set(honoKey, saved);
    c.set('requestContext', ctx);
    if (outermost) res = finalizeResponse(ctx, res);
    if (res !== c.res) {
      // Hono copies the previous response's headers onto a replacement; start clean.
      c.res = undefined as unknown as Response;
      c.res = res;
    }
  };
}
