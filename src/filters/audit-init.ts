// WithAuditInit (endpoints/filters/audit_init.go): the audit ID of the request, honouring a
// client-supplied `Audit-ID` verbatim (upstream neither validates nor truncates it), else a
// random UUID; echoed as `Audit-Id` on every response. Reference k8s-filters.md §2.

import type { Handler } from '../endpoints/request/context.ts';
import { auditContextFrom } from '../audit/context.ts';

/**
 * @example app.use(honoMiddleware(withAuditInit, config)) // every response carries Audit-Id
 */
export function withAuditInit(next: Handler, _c?: unknown): Handler {
  return (ctx) => {
    const id = ctx.request.headers.get('audit-id') || crypto.randomUUID();
    ctx.auditID = id;
    auditContextFrom(ctx);
    // Set before next (Go's shared header map), so even panics and 429s carry it; a value a
    // responder set itself (an aggregated server's) wins.
    if (!ctx.responseHeaders.has('audit-id')) ctx.responseHeaders.set('Audit-Id', id);
    return next(ctx);
  };
}
