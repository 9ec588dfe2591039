// WithAuthentication (k8s.io/apiserver/pkg/endpoints/filters/authentication.go). On success:
// Authorization and every front-proxy header are removed, the user goes into ctx.user; on
// failure or audience mismatch: the negotiated 401 through WithFailedAuthenticationAudit (no
// WWW-Authenticate, no nosniff).

import type { Handler, RequestContext } from '../endpoints/request/context.ts';
import { errorNegotiated, newUnauthorized } from '../endpoints/responsewriters/status.ts';
import { withFailedAuthenticationAudit } from './failed-authentication-audit.ts';
import type { AuditFilterConfig } from '../audit/request.ts';
import type { Logger } from '../util/logger.ts';
import {
  authenticate,
  intersectAudiences,
  withAudiences,
  type AuthenticatorResponse,
  type MaybeAuthenticated,
  type RequestAuthenticator,
} from '../authentication/authenticator.ts';
import { deleteRequestHeaders } from '../authentication/headers.ts';
import { requestHeaderNamesToStrip, type RequestHeaderConfig } from '../authentication/requestheader.ts';
import { allUnauthenticated, anonymousUser } from '../authentication/user.ts';

/** The 401 every authentication failure gets (responsewriters Unauthorized). */
export function unauthorized(ctx: RequestContext): Response {
  // UnauthenticatedHTTP2DOSMitigation: Go sets `Connection: close`, i.e. GOAWAY on HTTP/2.
  if (ctx.transport.protocol === 'h2') ctx.transport.goaway?.();
  return errorNegotiated(newUnauthorized(), ctx.request, ctx.url);
}

/** What WithAuthentication reads (the server Config's field names); audit settings audit a 401. */
export interface AuthenticationFilterConfig extends AuditFilterConfig {
  authentication: {
    /** Undefined: the filter is absent. */
    authenticator?: RequestAuthenticator;
    /** `--api-audiences`: a token must be for one of them (empty: any). */
    apiAudiences: readonly string[];
    /** Front-proxy headers, stripped from every authenticated request. */
    requestHeaderConfig?: RequestHeaderConfig;
  };
  logger: Logger;
  /** apiserver_authentication_* (APIServerMetrics). */
  metrics: AuditFilterConfig['metrics'] & {
    recordAuthentication(result: 'success' | 'failure' | 'error', seconds: number, username?: string): void;
  };
}

/**
 * Authenticates the request: the user goes into `ctx.user`, `Authorization` and front-proxy headers
 * are removed; a failure is the 401 Status.
 *
 * @example
 * ```ts
 * const tokens = await newTokenFileAuthenticator('token1,alice,uid-1,dev\n', 'tokens.csv');
 * const authenticator = new UnionAuthenticator([new BearerTokenAuthenticator(tokens)]);
 * app.use(honoMiddleware(withAuthentication, { authentication: { authenticator, apiAudiences: [] }, logger, metrics }));
 * ```
 */
export function withAuthentication(next: Handler, c: AuthenticationFilterConfig): Handler {
  const auth = c.authentication.authenticator;
  if (!auth) return next;
  const failed = withFailedAuthenticationAudit(unauthorized, c);
  const apiAuds = c.authentication.apiAudiences;
  const { names, prefixes } = requestHeaderNamesToStrip(c.authentication.requestHeaderConfig);
  const strip = ['authorization', ...names];
  const logger = c.logger;
  const errored = (ctx: RequestContext, err: unknown, start: number): Response | Promise<Response> => {
    // Errors name the failing check, never the credential.
    c.metrics.recordAuthentication('error', (performance.now() - start) / 1000);
    logger.error('Unable to authenticate the request', { err: err as Error });
    return failed(ctx);
  };
  const proceed = (
    ctx: RequestContext,
    resp: AuthenticatorResponse | null,
    start: number,
  ): Response | Promise<Response> => {
    const seconds = (performance.now() - start) / 1000;
    if (!resp) {
      c.metrics.recordAuthentication('failure', seconds);
      return failed(ctx);
    }
    if (apiAuds.length && resp.audiences?.length && intersectAudiences(apiAuds, resp.audiences).length === 0) {
      c.metrics.recordAuthentication('error', seconds);
      logger.error(`unable to match the audience: [${resp.audiences.join(' ')}] , accepted: [${apiAuds.join(' ')}]`);
      return failed(ctx);
    }
    c.metrics.recordAuthentication('success', seconds, resp.user.name);
    deleteRequestHeaders(ctx, strip, prefixes);
    const user = resp.user;
    if (ctx.transport.protocol === 'h2' && (user.name === anonymousUser || user.groups?.includes(allUnauthenticated))) {
      ctx.transport.goaway?.();
    }
    ctx.user = user;
    ctx.authenticationInfo = { audiences: resp.audiences };
    return next(ctx);
  };
  // Synchronous when the authenticators answer so (anonymous, a cached token): no Promise per request.
  return (ctx) => {
    if (apiAuds.length) withAudiences(ctx, apiAuds);
    const start = performance.now();
    let r: MaybeAuthenticated;
    try {
      r = authenticate(auth, ctx);
    } catch (err) {
      return errored(ctx, err, start);
    }
    if (r instanceof Promise) {
      return r.then(
        (resp) => proceed(ctx, resp, start),
        (err: unknown) => errored(ctx, err, start),
      );
    }
    return proceed(ctx, r, start);
  };
}
