// authenticator.Request as in k8s.io/apiserver/pkg/authentication/authenticator.

import type { RequestContext, UserInfo } from '../endpoints/request/context.ts';

export interface AuthenticatorResponse {
  user: UserInfo;
  /** Audiences the credential is valid for; empty means the API server's own audiences. */
  audiences?: string[];
}

/**
 * Authenticates a request. Resolves to a response when the request carries valid credentials
 * for this authenticator, to null when it carries none this authenticator understands, and
 * rejects when credentials were present but invalid (Go's `(nil, false, err)`).
 */
export interface RequestAuthenticator {
  authenticateRequest(ctx: RequestContext): Promise<AuthenticatorResponse | null>;
}
