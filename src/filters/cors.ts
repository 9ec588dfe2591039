// WithCORS (server/filters/cors.go; only with --cors-allowed-origins): origins matching one of
// the regular expressions (unanchored, as Go's MatchString: see CVE-2022-1996) get the CORS
// headers, echoing the Origin; an OPTIONS request from such an origin is answered 204 here,
// before authentication.

import type { Handler } from '../endpoints/request/context.ts';

const allowMethods = 'POST, GET, OPTIONS, PUT, DELETE, PATCH';
const allowHeaders =
  'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since';
const exposeHeaders = 'Date';

/** Compiles Go RE2-style patterns; a leading `(?flags)` group becomes JS flags. Throws on a bad one. */
export function compileOriginPatterns(patterns: readonly string[]): RegExp[] {
  return patterns.map((p) => {
    const m = /^\(\?([imsU]+)\)/.exec(p);
    let flags = '';
    let src = p;
    if (m) {
      src = p.slice(m[0].length);
      for (const f of m[1]!) if (f !== 'U' && !flags.includes(f)) flags += f;
    }
    try {
      return new RegExp(src, flags);
    } catch (err) {
      throw new Error(
        `Invalid CORS allowed origin, --cors-allowed-origins flag was set to ${p} - ${(err as Error).message}`,
      );
    }
  });
}

/**
 * Answers CORS preflights and adds the Access-Control-* headers for origins matching one of the
 * `--cors-allowed-origins` regular expressions; absent when the list is empty.
 *
 * @example
 * ```ts
 * app.use(honoMiddleware(withCORS, { corsAllowedOrigins: ['^https://dashboard\\.example\\.com$'] }));
 * ```
 */
export function withCORS(next: Handler, c: { corsAllowedOrigins: readonly string[] }): Handler {
  if (!c.corsAllowedOrigins.length) return next;
  const patterns = compileOriginPatterns(c.corsAllowedOrigins);
  return (ctx) => {
    const origin = ctx.request.headers.get('origin');
    if (!origin || !patterns.some((re) => re.test(origin))) return next(ctx);
    const h = ctx.responseHeaders;
    h.set('Access-Control-Allow-Origin', origin);
    h.set('Access-Control-Allow-Methods', allowMethods);
    h.set('Access-Control-Allow-Headers', allowHeaders);
    h.set('Access-Control-Expose-Headers', exposeHeaders);
    h.set('Access-Control-Allow-Credentials', 'true');
    if (ctx.request.method === 'OPTIONS') return new Response(null, { status: 204 });
    return next(ctx);
  };
}
