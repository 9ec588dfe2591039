// WithAuthentication (k8s.io/apiserver/pkg/endpoints/filters/authentication.go). On success:
// Authorization and every front-proxy header are removed, the user goes into ctx.user; on
// failure or audience mismatch: the negotiated 401 through WithFailedAuthenticationAudit (no
// WWW-Authenticate, no nosniff).

import type { Handler, RequestContext } from '../endpoints/request/context.ts';
import { errorNegotiated, newUnauthorized } from '../endpoints/responsewriters/status.ts';
import type { CompletedConfig } from '../server/config.ts';
import { withFailedAuthenticationAudit } from './failed-authentication-audit.ts';
import { intersectAudiences, withAudiences, type RequestAuthenticator } from '../authentication/authenticator.ts';
import { BearerTokenAuthenticator } from '../authentication/bearertoken.ts';
import { LoopbackTokenAuthenticator } from '../authentication/static-token.ts';
import { unionBeforeAnonymous } from '../authentication/union.ts';
import { deleteRequestHeaders } from '../authentication/headers.ts';
import { requestHeaderNamesToStrip } from '../authentication/requestheader.ts';
import { allUnauthenticated, anonymousUser } from '../authentication/user.ts';

/** The 401 every authentication failure gets (responsewriters Unauthorized). */
export function unauthorized(ctx: RequestContext): Response {
  // UnauthenticatedHTTP2DOSMitigation: Go sets `Connection: close`, i.e. GOAWAY on HTTP/2.
  if (ctx.transport.protocol === 'h2') ctx.transport.goaway?.();
  return errorNegotiated(newUnauthorized(), ctx.request, ctx.url);
}

/**
 * AuthorizeClientBearerToken (k8s.io/apiserver/pkg/server/config.go): with a loopback token
 * and both an authenticator and an authorizer, the loopback token authenticator goes first.
 */
export function withLoopbackToken(c: CompletedConfig): RequestAuthenticator | undefined {
  const auth = c.authentication.authenticator;
  if (!auth || !c.loopbackToken || !c.authorization.authorizer) return auth;
  // Another token is an error here ("invalid bearer token", as upstream's bearertoken.New over the
  // token file); its warnings are left to the bearer authenticator of the chain.
  const loopback = new BearerTokenAuthenticator(new LoopbackTokenAuthenticator(c.loopbackToken), () => {});
  return unionBeforeAnonymous(loopback, auth);
}

export function withAuthentication(next: Handler, c: CompletedConfig): Handler {
  const auth = withLoopbackToken(c);
  if (!auth) return next;
  const failed = withFailedAuthenticationAudit(unauthorized, c);
  const apiAuds = c.authentication.apiAudiences;
  const { names, prefixes } = requestHeaderNamesToStrip(c.authentication.requestHeaderConfig);
  const strip = ['authorization', ...names];
  const logger = c.logger;
  return async (ctx) => {
    if (apiAuds.length) withAudiences(ctx, apiAuds);
    let resp;
    const start = performance.now();
    try {
      resp = await auth.authenticateRequest(ctx);
    } catch (err) {
      // Errors name the failing check, never the credential.
      c.metrics.recordAuthentication('error', (performance.now() - start) / 1000);
      logger.error('Unable to authenticate the request', { err: err as Error });
      return failed(ctx);
    }
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
}
