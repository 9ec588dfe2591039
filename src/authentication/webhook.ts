// Webhook token authenticator (plugin/pkg/authenticator/token/webhook): POSTs a TokenReview to
// the service named by a kubeconfig file, with upstream's retry backoff; results cached by the
// caller (CachedTokenAuthenticator, --authentication-token-webhook-cache-ttl).
// Reference: k8s-filters.md §12.10.

import { parse as parseYAML } from 'yaml';
import type { UserInfo } from '../endpoints/request/context.ts';
import { intersectAudiences, type AuthenticatorResponse, type TokenAuthenticator } from './authenticator.ts';
import type { Fetch } from './jwt.ts';

/** What a kubeconfig says about reaching the webhook. */
export interface WebhookClientConfig {
  server: string;
  /** PEM CA bundle (certificate-authority / -data). */
  caPEM?: string;
  /** PEM client certificate and key (client-certificate / client-key [-data]). */
  certPEM?: string;
  keyPEM?: string;
  /** Bearer token (token / tokenFile). */
  token?: string;
  insecureSkipTLSVerify?: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

function decodeB64(s: string): string {
  const bin = atob(s.replace(/\s+/g, ''));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

/**
 * Reads the kubeconfig (current context, or the first context/cluster/user as client-go does
 * for webhooks). `readFile` resolves file references relative to nothing (absolute paths).
 */
export async function loadWebhookKubeconfig(text: string, readFile: (path: string) => Promise<string>): Promise<WebhookClientConfig> {
  const doc = parseYAML(text) as unknown;
  if (!isObj(doc)) throw new Error('invalid kubeconfig: not an object');
  const named = (list: unknown, key: string) => (Array.isArray(list) ? list.filter(isObj).map((e) => ({ name: String(e.name ?? ''), v: isObj(e[key]) ? (e[key] as Obj) : {} })) : []);
  const contexts = named(doc.contexts, 'context');
  const clusters = named(doc.clusters, 'cluster');
  const users = named(doc.users, 'user');
  const current = typeof doc['current-context'] === 'string' ? doc['current-context'] : '';
  const ctx = contexts.find((c) => c.name === current)?.v ?? contexts[0]?.v;
  const cluster = (ctx ? clusters.find((c) => c.name === ctx.cluster)?.v : undefined) ?? clusters[0]?.v;
  const user = (ctx ? users.find((u) => u.name === ctx.user)?.v : undefined) ?? users[0]?.v ?? {};
  if (!cluster || typeof cluster.server !== 'string' || !cluster.server) throw new Error('invalid configuration: no server found for cluster');
  const cfg: WebhookClientConfig = { server: cluster.server };
  const pick = async (data: unknown, file: unknown) =>
    typeof data === 'string' && data ? decodeB64(data) : typeof file === 'string' && file ? await readFile(file) : undefined;
  cfg.caPEM = await pick(cluster['certificate-authority-data'], cluster['certificate-authority']);
  if (cluster['insecure-skip-tls-verify'] === true) cfg.insecureSkipTLSVerify = true;
  cfg.certPEM = await pick(user['client-certificate-data'], user['client-certificate']);
  cfg.keyPEM = await pick(user['client-key-data'], user['client-key']);
  if (typeof user.token === 'string' && user.token) cfg.token = user.token;
  else if (typeof user.tokenFile === 'string' && user.tokenFile) cfg.token = (await readFile(user.tokenFile)).trim();
  for (const k of Object.keys(cfg) as (keyof WebhookClientConfig)[]) if (cfg[k] === undefined) delete cfg[k];
  return cfg;
}

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
    if (this.o.client.token) headers.authorization = `Bearer ${this.o.client.token}`;
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
