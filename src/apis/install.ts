// Installs the built-in API groups this server serves (kube-apiserver's authentication and
// authorization REST storage) with their discovery documents. A Config.routeInstallers entry.

import type { GenericAPIServer } from '../server/genericapiserver.ts';
import { installAPIGroup } from '../server/routes/discovery.ts';
import { withLoopbackToken } from '../filters/authentication.ts';
import { authenticationAPIGroup, authenticationRoutes } from './authentication.ts';
import { authorizationAPIGroup, authorizationRoutes } from './authorization.ts';

export function installReviewAPIs(server: GenericAPIServer): void {
  const c = server.config;
  installAPIGroup(
    server,
    authenticationAPIGroup,
    authenticationRoutes({
      authenticator: withLoopbackToken(c),
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
