// WithAuditInit (endpoints/filters/audit_init.go): the audit ID of the request, honouring a
// client-supplied `Audit-ID` verbatim (upstream neither validates nor truncates it), else a
// random UUID; echoed as `Audit-Id` on every response.

import type { Handler } from '../endpoints/request/context.ts';
import { firstHeaderValue } from '../authentication/headers.ts';

/**
 * Gives the request its audit ID (the client's `Audit-ID`, else a UUID) and echoes it as `Audit-Id`.
 *
 * @example
 * ```ts
 * app.use(honoMiddleware(withAuditInit, {}));
 * ```
 */
export function withAuditInit(next: Handler, _c?: unknown): Handler {
  return (ctx) => {
    // Go's Header.Get: the first line's value. From the raw header list where the runtime gives
    // one, which also spares building a Fetch Headers object on the hot path.
    const id = firstHeaderValue(ctx, 'audit-id') || crypto.randomUUID();
    ctx.auditID = id;
    // The audit context itself is created on first use (auditContextFrom), not per request.
    // Set before next (Go's shared header map), so even panics and 429s carry it; a value a
    // responder set itself (an aggregated server's) wins.
    if (!ctx.responseHeaders.has('audit-id')) ctx.responseHeaders.set('Audit-Id', id);
    return next(ctx);
  };
}
