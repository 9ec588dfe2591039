// WithAuthorization (k8s.io/apiserver/pkg/endpoints/filters/authorization.go) with
// responsewriters.Forbidden. Allow → next; an error without Allow → 500 InternalError text;
// Deny or NoOpinion → the negotiated 403 Status (nosniff). Audit annotations
// `authorization.k8s.io/decision` and `authorization.k8s.io/reason` record the outcome.

import type { Handler, RequestContext } from '../endpoints/request/context.ts';
import { internalError } from '../endpoints/responsewriters/status.ts';
import { addAuditAnnotation } from '../audit/context.ts';
import type { Attributes, AuthorizationResult } from '../authorization/authorizer.ts';
import { forbidden } from '../authorization/forbidden.ts';
import type { Authorizer } from '../authorization/authorizer.ts';
import type { Logger } from '../util/logger.ts';

export const decisionAnnotationKey = 'authorization.k8s.io/decision';
export const reasonAnnotationKey = 'authorization.k8s.io/reason';

/** GetAuthorizerAttributes: the user and RequestInfo of the request. */
export function getAuthorizerAttributes(ctx: RequestContext): Attributes | Error {
  const ri = ctx.requestInfo;
  if (!ri) return new Error('no RequestInfo found in the context');
  const a: Attributes = {
    user: ctx.user,
    isResourceRequest: ri.isResourceRequest,
    path: ri.path,
    verb: ri.verb,
    apiGroup: ri.apiGroup,
    apiVersion: ri.apiVersion,
    resource: ri.resource,
    subresource: ri.subresource,
    namespace: ri.namespace,
    name: ri.name,
  };
  if (ri.fieldSelector) a.fieldSelector = ri.fieldSelector;
  if (ri.labelSelector) a.labelSelector = ri.labelSelector;
  return a;
}

/** What WithAuthorization reads (the server Config's field names). */
export interface AuthorizationFilterConfig {
  /** Undefined: the filter is absent (authorization disabled). */
  authorization: { authorizer?: Authorizer };
  logger: Logger;
  /** apiserver_authorization_* (APIServerMetrics). */
  metrics: { recordAuthorization(result: 'allowed' | 'denied' | 'no-opinion' | 'error', seconds: number): void };
}

/**
 * Asks the authorizer about the request's user and RequestInfo; Allow → `next`, anything else a 403
 * (or 500 on an authorizer error). Needs RequestInfo and (usually) a user from earlier filters.
 *
 * @example
 * ```ts
 * const app = new Hono<FilterEnv>();
 * app.use(honoMiddleware(withRequestInfo, {}));
 * app.use(honoMiddleware(withAuthorization, { authorization: { authorizer }, logger, metrics: new APIServerMetrics() }));
 * ```
 */
export function withAuthorization(next: Handler, c: AuthorizationFilterConfig): Handler {
  const authz = c.authorization.authorizer;
  if (!authz) {
    c.logger.info('Authorization is disabled', undefined, 1);
    return next;
  }
  const decide = (
    ctx: RequestContext,
    attrs: Attributes,
    result: AuthorizationResult,
    start: number,
  ): Response | Promise<Response> => {
    c.metrics.recordAuthorization(
      result.error
        ? 'error'
        : result.decision === 'Allow'
          ? 'allowed'
          : result.decision === 'NoOpinion'
            ? 'no-opinion'
            : 'denied',
      (performance.now() - start) / 1000,
    );
    if (result.decision === 'Allow') {
      addAuditAnnotation(ctx, decisionAnnotationKey, 'allow');
      addAuditAnnotation(ctx, reasonAnnotationKey, result.reason);
      return next(ctx);
    }
    if (result.error) {
      addAuditAnnotation(ctx, reasonAnnotationKey, 'internal error');
      return internalError(ctx.request, result.error, ctx.url);
    }
    c.logger.info('Forbidden', { URI: ctx.url.pathname + ctx.url.search, reason: result.reason }, 4);
    addAuditAnnotation(ctx, decisionAnnotationKey, 'forbid');
    addAuditAnnotation(ctx, reasonAnnotationKey, result.reason);
    return forbidden(attrs, result.reason, ctx.request, ctx.url);
  };
  const failed = (err: unknown): AuthorizationResult => ({
    decision: 'NoOpinion',
    reason: '',
    error: err instanceof Error ? err : new Error(String(err)),
  });
  // Synchronous when the authorizer answers so (the built-in ones): no Promise per request.
  return (ctx) => {
    const attrs = getAuthorizerAttributes(ctx);
    if (attrs instanceof Error) return internalError(ctx.request, attrs, ctx.url);
    const start = performance.now();
    let result: AuthorizationResult | Promise<AuthorizationResult>;
    try {
      result = authz.authorize(attrs);
    } catch (err) {
      result = failed(err);
    }
    if (result instanceof Promise) {
      return result.then(
        (r) => decide(ctx, attrs, r, start),
        (err: unknown) => decide(ctx, attrs, failed(err), start),
      );
    }
    return decide(ctx, attrs, result, start);
  };
}
