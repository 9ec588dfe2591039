// WithFailedAuthenticationAudit (k8s.io/apiserver/pkg/endpoints/filters/authn_audit.go), the
// failed handler WithAuthentication calls. With auditing on,
// the policy is evaluated without a user and exactly one event is emitted: stage
// ResponseStarted, responseStatus {message: "Authentication failed, …", code: 401}.
// withFailedRequestAudit (request_deadline.go) is the same for the bad `?timeout=` 400.

import type { Handler, RequestContext } from '../endpoints/request/context.ts';
import { withOutOfBandAudit, type AuditFilterConfig } from '../audit/request.ts';
import { decodeBase64 } from '../util/base64.ts';

/**
 * Wraps the 401 handler: with auditing configured, the failure is audited as one ResponseStarted event.
 *
 * @example
 * ```ts
 * const failed = withFailedAuthenticationAudit(unauthorized, { audit: { policyRuleEvaluator, backend } });
 * ```
 */
export function withFailedAuthenticationAudit(failedHandler: Handler, c: AuditFilterConfig): Handler {
  return withOutOfBandAudit(failedHandler, c, getAuthMethods);
}

/**
 * The request-deadline filter's failed handler: audits its 400 with `message` (the Status
 * message, e.g. `invalid timeout specified in the request URL - …`) as a lone ResponseStarted event.
 */
export function withFailedRequestAudit(failedHandler: Handler, message: string, c: AuditFilterConfig): Handler {
  return withOutOfBandAudit(failedHandler, c, () => message);
}

/** getAuthMethods: which credentials the request carried, in upstream's order and wording. */
export function getAuthMethods(ctx: RequestContext): string {
  const methods: string[] = [];
  const auth = ctx.request.headers.get('authorization') ?? '';
  if (isBasicAuth(auth)) methods.push('basic');
  const parts = auth.trim().split(' ');
  if (parts.length > 1 && parts[0]!.toLowerCase() === 'bearer') methods.push('bearer');
  if ((ctx.url.searchParams.get('access_token') ?? '').trim()) methods.push('access_token');
  if (ctx.transport.peerCertificates?.length) methods.push('x509');
  return methods.length
    ? `Authentication failed, attempted: ${methods.join(', ')}`
    : 'Authentication failed, no credentials provided';
}

/** Go's Request.BasicAuth: `Basic ` (case-insensitive) + standard base64 of `user:pass`. */
function isBasicAuth(auth: string): boolean {
  if (auth.length < 6 || auth.slice(0, 6).toLowerCase() !== 'basic ') return false;
  let decoded: Uint8Array;
  try {
    decoded = decodeBase64(auth.slice(6));
  } catch {
    return false;
  }
  return decoded.includes(0x3a); // ':'
}
