// WithHSTS (server/filters/hsts.go): `Strict-Transport-Security` from
// `--strict-transport-security-directives`, joined with "; ", set before next unless present.
// Absent when no directives are configured.

import type { Handler } from '../endpoints/request/context.ts';

export function withHSTS(next: Handler, c: { hstsDirectives: readonly string[] }): Handler {
  if (!c.hstsDirectives.length) return next;
  const value = c.hstsDirectives.join('; ');
  return (ctx) => {
    if (!ctx.responseHeaders.has('strict-transport-security')) ctx.responseHeaders.set('Strict-Transport-Security', value);
    return next(ctx);
  };
}
