// Installs the built-in API groups this server serves (kube-apiserver's authentication and
// authorization REST storage) with their discovery documents. One of the server's default route
// installers (src/server/config.ts): served once an authorizer is configured.

import type { RouteTarget } from '../server/mux/container.ts';
import type { RequestAuthenticator } from '../authentication/authenticator.ts';
import type { Authorizer, RuleResolver } from '../authorization/authorizer.ts';
import { installAPIGroup } from '../endpoints/discovery/discovery.ts';
import { authenticationAPIGroup, authenticationRoutes } from './authentication.ts';
import { authorizationAPIGroup, authorizationRoutes } from './authorization.ts';

/** What the review APIs read from the server's (completed) Config. */
export interface ReviewAPIsConfig {
  enableDiscovery: boolean;
  externalAddress: string;
  maxRequestBodyBytes: number;
  /** TokenReview authenticates with it (the loopback token included, as complete() wired it). */
  authentication: { authenticator?: RequestAuthenticator; apiAudiences: string[] };
  authorization: { authorizer?: Authorizer; ruleResolver?: RuleResolver };
}

export function installReviewAPIs(server: RouteTarget<ReviewAPIsConfig>): void {
  const c = server.config;
  if (!c.authorization.authorizer) return;
  installAPIGroup(
    server,
    authenticationAPIGroup,
    authenticationRoutes({
      authenticator: c.authentication.authenticator,
      apiAudiences: c.authentication.apiAudiences,
      maxRequestBodyBytes: c.maxRequestBodyBytes,
    }),
  );
  installAPIGroup(
    server,
    authorizationAPIGroup,
    authorizationRoutes({
      authorizer: c.authorization.authorizer,
      ruleResolver: c.authorization.ruleResolver,
      maxRequestBodyBytes: c.maxRequestBodyBytes,
    }),
  );
}
