// apiserver_authorization_decisions_total{type,name,decision}: upstream instruments every
// authorizer of the chain and counts its terminal decisions (allowed, denied). With the legacy
// --authorization-mode flag the type is the mode and the name its lower-case form.

import type { AuthorizationResult, Authorizer } from '../authorization/authorizer.ts';
import type { APIServerMetrics } from './apiserver.ts';

export function instrumentAuthorizer<A extends Authorizer>(
  authorizer: A,
  type: string,
  metrics: APIServerMetrics,
  name = type.toLowerCase(),
): Authorizer {
  const allowed = [type, name, 'allowed'];
  const denied = [type, name, 'denied'];
  const record = (result: AuthorizationResult): AuthorizationResult => {
    if (result.decision === 'Allow') metrics.authorizationDecisions.inc(allowed);
    else if (result.decision === 'Deny') metrics.authorizationDecisions.inc(denied);
    return result;
  };
  return {
    // Synchronous when the authorizer is.
    authorize(attributes) {
      const result = authorizer.authorize(attributes);
      return result instanceof Promise ? result.then(record) : record(result);
    },
  };
}
