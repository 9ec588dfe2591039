// Webhook token authenticator (plugin/pkg/authenticator/token/webhook): POSTs a TokenReview to
// the service named by a kubeconfig file, with upstream's retry backoff; results cached by the
// caller (CachedTokenAuthenticator, --authentication-token-webhook-cache-ttl).

import type { UserInfo } from '../endpoints/request/context.ts';
import { intersectAudiences, type AuthenticatorResponse, type TokenAuthenticator } from './authenticator.ts';
import type { Fetch } from './jwt.ts';
import type { WebhookClientConfig } from '../audit/webhook.ts';

// The kubeconfig is read with the audit webhook's loader (same clientcmd subset):
// loadWebhookKubeconfig(fileSystem, path) → { server, authorization, tls }.
export { loadWebhookKubeconfig, type WebhookClientConfig } from '../audit/webhook.ts';

export interface WebhookTokenAuthenticatorOptions {
  client: WebhookClientConfig;
  /** `authentication.k8s.io/v1` (default) or `v1beta1` (`--authentication-token-webhook-version`). */
  version?: 'v1' | 'v1beta1';
  /** The API audiences (implicit audiences when the webhook returns none). */
  implicitAudiences?: string[];
  fetch?: Fetch;
  /** Retry backoff: initial delay (ms, default 500), factor 1.5, steps (default 5), as upstream. */
  retryInitial?: number;
  retrySteps?: number;
  /** Per-request timeout (ms, default 30s). */
  timeout?: number;
}

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  audiences?: string[];
  error?: string;
}

export class WebhookTokenAuthenticator implements TokenAuthenticator {
  private readonly o: Required<Omit<WebhookTokenAuthenticatorOptions, 'fetch'>> & { fetch: Fetch };
  constructor(o: WebhookTokenAuthenticatorOptions) {
    this.o = { version: 'v1', implicitAudiences: [], retryInitial: 500, retrySteps: 5, timeout: 30_000, fetch: (i, init) => fetch(i, init), ...o };
  }

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticatorResponse | null> {
    const spec: { token: string; audiences?: string[] } = { token };
    if (audiences?.length) spec.audiences = [...audiences];
    const body = JSON.stringify({
      kind: 'TokenReview',
      apiVersion: `authentication.k8s.io/${this.o.version}`,
      metadata: { creationTimestamp: null },
      spec,
      status: { user: {} },
    });
    const status = await this.review(body);
    if (!status.authenticated) {
      if (status.error) throw new Error(status.error);
      return null;
    }
    let auds: string[] | undefined;
    if (audiences) {
      const got = status.audiences?.length ? status.audiences : this.o.implicitAudiences;
      auds = intersectAudiences(audiences, got);
      if (auds.length === 0) return null;
    }
    const u = status.user ?? {};
    const user: UserInfo = { name: u.username ?? '', uid: u.uid ?? '', groups: u.groups ?? [] };
    if (u.extra && Object.keys(u.extra).length) user.extra = u.extra;
    const resp: AuthenticatorResponse = { user };
    if (auds) resp.audiences = auds;
    return resp;
  }

  private async review(body: string): Promise<TokenReviewStatus> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, */*' };
    if (this.o.client.authorization) headers.authorization = this.o.client.authorization;
    let delay = this.o.retryInitial;
    let lastErr: Error | undefined;
    for (let step = 0; step < this.o.retrySteps; step++) {
      if (step > 0) {
        await new Promise((r) => setTimeout(r, delay * (1 + Math.random() * 0.2)));
        delay *= 1.5;
      }
      let res: Response;
      try {
        res = await this.o.fetch(this.o.client.server, { method: 'POST', headers, body, signal: AbortSignal.timeout(this.o.timeout) });
      } catch (err) {
        lastErr = new Error(`Post ${JSON.stringify(this.o.client.server)}: ${(err as Error).message}`);
        continue; // connection errors are retried
      }
      if (res.status >= 500 || res.status === 429) {
        await res.body?.cancel();
        lastErr = new Error(`the server responded with status ${res.status}`);
        continue;
      }
      if (res.status < 200 || res.status > 299) {
        await res.body?.cancel();
        throw new Error(`webhook token authentication failed: the server responded with status ${res.status}`);
      }
      let review: { status?: TokenReviewStatus };
      try {
        review = (await res.json()) as typeof review;
      } catch (err) {
        throw new Error(`webhook token authentication failed: decoding TokenReview: ${(err as Error).message}`);
      }
      return review.status ?? {};
    }
    throw new Error(`webhook token authentication failed: ${lastErr?.message ?? 'unknown error'}`);
  }
}
