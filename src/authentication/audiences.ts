// authenticator.WrapAudienceAgnosticToken/Request: authenticators whose credentials carry no
// audience are valid for the API's own audiences only. Upstream: authenticator/audagnostic.go.

import type { RequestContext } from '../endpoints/request/context.ts';
import {
  audiencesFrom,
  intersectAudiences,
  type AuthenticatorResponse,
  type RequestAuthenticator,
  type TokenAuthenticator,
} from './authenticator.ts';

async function agnostic(
  implicit: readonly string[],
  target: readonly string[] | undefined,
  run: () => Promise<AuthenticatorResponse | null>,
): Promise<AuthenticatorResponse | null> {
  if (!target) return run();
  const auds = intersectAudiences(implicit, target);
  if (auds.length === 0) return null;
  const resp = await run();
  if (!resp) return null;
  if (resp.audiences?.length) {
    throw new Error(
      `audience agnostic authenticator wrapped an authenticator that returned audiences: ${JSON.stringify(resp.audiences)}`,
    );
  }
  return { ...resp, audiences: auds };
}

export function wrapAudienceAgnosticToken(implicit: readonly string[], auth: TokenAuthenticator): TokenAuthenticator {
  return {
    authenticateToken: (token, target) => agnostic(implicit, target, () => auth.authenticateToken(token, target)),
  };
}

export function wrapAudienceAgnosticRequest(
  implicit: readonly string[],
  auth: RequestAuthenticator,
): RequestAuthenticator {
  return {
    authenticateRequest: (ctx: RequestContext) =>
      agnostic(implicit, audiencesFrom(ctx), () => auth.authenticateRequest(ctx)),
  };
}
