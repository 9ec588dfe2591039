// The request's audit context (upstream audit.AuditContext in the request context). WithAuditInit
// creates it; WithAudit fills the event; other filters add annotations through these helpers.

import type { RequestContext } from '../endpoints/request/context.ts';

const auditContextKey = Symbol('auditContext');

export interface AuditContext {
  /** Annotations added by filters (authorization decision, impersonation …), in insertion order. */
  annotations: Map<string, string>;
}

/** The request's audit context, created on first use. */
export function auditContextFrom(ctx: RequestContext): AuditContext {
  let ac = ctx.values.get(auditContextKey) as AuditContext | undefined;
  if (!ac) {
    ac = { annotations: new Map() };
    ctx.values.set(auditContextKey, ac);
  }
  return ac;
}

/** audit.AddAuditAnnotation: the first value for a key wins, as upstream logs and keeps the old one. */
export function addAuditAnnotation(ctx: RequestContext, key: string, value: string): void {
  const ac = auditContextFrom(ctx);
  if (!ac.annotations.has(key)) ac.annotations.set(key, value);
}
