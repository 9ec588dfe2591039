// Webhook token authenticator (plugin/pkg/authenticator/token/webhook): POSTs a TokenReview to
// the service named by a kubeconfig file, with upstream's retry backoff; results cached by the
// caller (CachedTokenAuthenticator, --authentication-token-webhook-cache-ttl).

import type { UserInfo } from '../endpoints/request/context.ts';
import { intersectAudiences, type AuthenticatorResponse, type TokenAuthenticator } from './authenticator.ts';
import type { Fetch } from './jwt.ts';
import { withExponentialBackoff } from '../util/webhook/backoff.ts';
import { WebhookClient, WebhookRequestError } from '../util/webhook/client.ts';
import type { WebhookClientConfig } from '../util/webhook/kubeconfig.ts';

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

/** A status the token review is retried on (the server may answer later). */
class RetriableStatus extends Error {}

export class WebhookTokenAuthenticator implements TokenAuthenticator {
  private readonly o: Required<Omit<WebhookTokenAuthenticatorOptions, 'fetch'>>;
  private readonly client: WebhookClient;
  constructor(o: WebhookTokenAuthenticatorOptions) {
    this.o = { version: 'v1', implicitAudiences: [], retryInitial: 500, retrySteps: 5, timeout: 30_000, ...o };
    const f = o.fetch;
    this.client = new WebhookClient(o.client, {
      requestTimeout: this.o.timeout,
      ...(f ? { fetch: (i, init) => f(i, init) } : {}),
    });
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
    const backoff = { duration: this.o.retryInitial, factor: 1.5, jitter: 0.2, steps: this.o.retrySteps };
    let res;
    try {
      // Connection errors, 429 and 5xx are retried; other answers are final.
      res = await withExponentialBackoff(
        backoff,
        async () => {
          const r = await this.client.post(body);
          if (r.status >= 500 || r.status === 429)
            throw new RetriableStatus(`the server responded with status ${r.status}`);
          return r;
        },
        (err) => err instanceof WebhookRequestError || err instanceof RetriableStatus,
      );
    } catch (err) {
      throw new Error(`webhook token authentication failed: ${(err as Error).message}`);
    }
    if (res.status < 200 || res.status > 299) {
      throw new Error(`webhook token authentication failed: the server responded with status ${res.status}`);
    }
    let review: { status?: TokenReviewStatus };
    try {
      review = JSON.parse(res.text) as typeof review;
    } catch (err) {
      throw new Error(`webhook token authentication failed: decoding TokenReview: ${(err as Error).message}`);
    }
    return review.status ?? {};
  }
}
