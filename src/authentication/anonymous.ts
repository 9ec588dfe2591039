// Anonymous authenticator (k8s.io/apiserver/pkg/authentication/request/anonymous).

import type { RequestContext } from '../endpoints/request/context.ts';
import {
  audiencesFrom,
  type AuthenticatorResponse,
  type MaybeAuthenticated,
  type RequestAuthenticator,
} from './authenticator.ts';
import { allUnauthenticated, anonymousUser } from './user.ts';

export interface AnonymousConfig {
  /**
   * AuthenticationConfiguration `anonymous.conditions[].path`: when non-empty, only these
   * exact paths are authenticated as anonymous; other requests get no opinion (→ 401).
   */
  paths?: string[];
}

/** Authenticates every request as system:anonymous / system:unauthenticated. */
export class AnonymousAuthenticator implements RequestAuthenticator {
  private readonly paths: Set<string> | undefined;
  constructor(config: AnonymousConfig = {}) {
    this.paths = config.paths?.length ? new Set(config.paths) : undefined;
  }
  async authenticateRequest(ctx: RequestContext): Promise<AuthenticatorResponse | null> {
    return this.authenticateFast(ctx);
  }
  authenticateFast(ctx: RequestContext): MaybeAuthenticated {
    if (this.paths && !this.paths.has(decodePath(ctx.url))) return null;
    const auds = audiencesFrom(ctx);
    const resp: AuthenticatorResponse = { user: { name: anonymousUser, uid: '', groups: [allUnauthenticated] } };
    if (auds?.length) resp.audiences = [...auds];
    return resp;
  }
}

function decodePath(url: URL): string {
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return url.pathname;
  }
}
