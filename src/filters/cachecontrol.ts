// WithCacheControl (endpoints/filters/cachecontrol.go): `Cache-Control: no-cache, private`
// on every response unless a handler sets its own. Set before next, as upstream.

import type { Handler } from '../endpoints/request/context.ts';

/**
 * Sets `Cache-Control: no-cache, private` unless the handler set one (the OpenAPI documents keep theirs).
 *
 * @example
 * ```ts
 * app.use(honoMiddleware(withCacheControl, {}));
 * ```
 */
export function withCacheControl(next: Handler, _c?: unknown): Handler {
  return (ctx) => {
    if (!ctx.responseHeaders.has('cache-control')) ctx.responseHeaders.set('Cache-Control', 'no-cache, private');
    return next(ctx);
  };
}
