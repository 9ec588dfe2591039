// WithRequestInfo (endpoints/filters/requestinfo.go): resolves RequestInfo once for every later
// filter; a resolver error is upstream's InternalError 500.

import type { Handler } from '../endpoints/request/context.ts';
import { RequestInfoFactory } from '../endpoints/request/requestinfo.ts';
import { errorMessage, internalError } from '../endpoints/responsewriters/status.ts';

/** NewRequestInfoResolver: `apis` plus the legacy prefixes; the legacy ones are groupless. */
export function newRequestInfoResolver(c: { legacyAPIGroupPrefixes: readonly string[] }): RequestInfoFactory {
  const legacy = c.legacyAPIGroupPrefixes.map((p) => p.replace(/^\/+|\/+$/g, ''));
  return new RequestInfoFactory({ apiPrefixes: ['apis', ...legacy], grouplessAPIPrefixes: legacy });
}

/**
 * Resolves the request's RequestInfo (verb, API group, resource, namespace, name …) into
 * `ctx.requestInfo`; authorization, APF, audit and the timeout filters read it.
 *
 * @example
 * ```ts
 * app.use(honoMiddleware(withRequestInfo, { legacyAPIGroupPrefixes: ['/api'] }));
 * ```
 */
export function withRequestInfo(next: Handler, c: { legacyAPIGroupPrefixes: readonly string[] }): Handler {
  const resolver = newRequestInfoResolver(c);
  return (ctx) => {
    try {
      ctx.requestInfo = resolver.newRequestInfo(ctx.request, ctx.url);
    } catch (err) {
      return internalError(ctx.request, `failed to create RequestInfo: ${errorMessage(err)}`, ctx.url);
    }
    return next(ctx);
  };
}
