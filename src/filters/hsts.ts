// WithHSTS (server/filters/hsts.go): `Strict-Transport-Security` from
// `--strict-transport-security-directives`, joined with "; ", set before next unless present.
// Absent when no directives are configured.

import type { Handler } from '../endpoints/request/context.ts';

/**
 * Adds `Strict-Transport-Security` built from `--strict-transport-security-directives`; absent when empty.
 *
 * @example
 * ```ts
 * app.use(honoMiddleware(withHSTS, { hstsDirectives: ['max-age=31536000', 'includeSubDomains'] }));
 * ```
 */
export function withHSTS(next: Handler, c: { hstsDirectives: readonly string[] }): Handler {
  if (!c.hstsDirectives.length) return next;
  const value = c.hstsDirectives.join('; ');
  return (ctx) => {
    if (!ctx.responseHeaders.has('strict-transport-security'))
      ctx.responseHeaders.set('Strict-Transport-Security', value);
    return next(ctx);
  };
}
