// The webhook authorizer (k8s.io/apiserver/plugin/pkg/authorizer/webhook): POSTs a
// SubjectAccessReview to the server named by a kubeconfig file, caches answers (allowed and
// denied TTLs), retries with upstream's backoff, and on failure returns NoOpinion with the
// error (so the chain answers 500 unless another authorizer allows).

import type { UserInfo } from '../endpoints/request/context.ts';
import { parseFieldSelector } from '../endpoints/request/requestinfo.ts';
import type { Attributes, AuthorizationResult, AuthorizerWithRules, RulesResult } from './authorizer.ts';
import { decodeBase64Text } from '../util/base64.ts';
import { TTLCache } from '../util/cache.ts';
import { defaultRetryBackoff, withExponentialBackoff, type Backoff } from '../util/webhook/backoff.ts';
import { WebhookClient, WebhookRequestError, type WebhookFetchFactory } from '../util/webhook/client.ts';
import { parseKubeconfig, type WebhookClientConfig } from '../util/webhook/kubeconfig.ts';

/** The flat view parseWebhookKubeconfig returns (before the shared WebhookClientConfig). */
export interface WebhookKubeconfigFields {
  server: string;
  caData?: string;
  insecureSkipTLSVerify?: boolean;
  clientCertData?: string;
  clientKeyData?: string;
  token?: string;
  username?: string;
  password?: string;
}

/**
 * @deprecated Use loadWebhookKubeconfig (src/util/webhook/kubeconfig.ts). The same clientcmd
 * rules (a current context is required), in the flat shape of its earlier callers.
 */
export async function parseWebhookKubeconfig(
  text: string,
  file: string,
  readFile: (path: string) => Promise<string>,
): Promise<WebhookKubeconfigFields> {
  let c: WebhookClientConfig;
  try {
    c = await parseKubeconfig(text, file, readFile);
  } catch (err) {
    const m = err instanceof Error ? err.message : String(err);
    throw new Error(
      m.startsWith('error loading config file')
        ? `invalid configuration: ${file}: ${m.replace(/^.*?: yaml: /, '')}`
        : m,
    );
  }
  const out: WebhookKubeconfigFields = { server: c.server };
  if (c.tls.caData) out.caData = c.tls.caData;
  if (c.tls.insecureSkipTLSVerify) out.insecureSkipTLSVerify = true;
  if (c.tls.certData) out.clientCertData = c.tls.certData;
  if (c.tls.keyData) out.clientKeyData = c.tls.keyData;
  const auth = c.authorization ?? '';
  if (auth.startsWith('Bearer ')) out.token = auth.slice(7);
  else if (auth.startsWith('Basic ')) {
    const [username, ...rest] = decodeBase64Text(auth.slice(6)).split(':');
    out.username = username!;
    out.password = rest.join(':');
  }
  return out;
}

/** DefaultAuthWebhookRetryBackoff: 500ms, factor 1.5, jitter 0.2, 5 steps. */
export const defaultWebhookRetryBackoff: Backoff = defaultRetryBackoff(500);

export interface WebhookAuthorizerOptions {
  client: WebhookClientConfig;
  /** `--authorization-webhook-version`: `v1` or `v1beta1`. */
  version?: 'v1' | 'v1beta1';
  /** `--authorization-webhook-cache-authorized-ttl` (ms, default 5m). */
  authorizedTTL?: number;
  /** `--authorization-webhook-cache-unauthorized-ttl` (ms, default 30s). */
  unauthorizedTTL?: number;
  retryBackoff?: Backoff;
  /** Per-attempt timeout (ms, default 30s). */
  requestTimeout?: number;
  /** Decision when the webhook cannot be reached: NoOpinion (upstream's legacy flags) or Deny. */
  decisionOnError?: 'NoOpinion' | 'Deny';
  /** A fetch honouring the kubeconfig's TLS material (Platform.webhookFetch); default: the runtime's fetch. */
  fetchFactory?: WebhookFetchFactory;
  /** Injected clock (tests). */
  now?: () => number;
}

interface SARStatus {
  allowed?: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/** Attributes larger than this are not cached (upstream: maxCachedAttributes ~ 10000 chars). */
const maxCacheKeyLength = 10_000;
const cacheSize = 8192;

class WebhookError extends Error {
  readonly retriable: boolean;
  constructor(message: string, retriable: boolean) {
    super(message);
    this.name = 'WebhookError';
    this.retriable = retriable;
  }
}

/** A request's field selector as SubjectAccessReview requirements (`=`/`==` → In, `!=` → NotIn). */
function fieldSelectorRequirements(
  raw: string | undefined,
): { key: string; operator: string; values: string[] }[] | undefined {
  if (!raw) return undefined;
  const terms = parseFieldSelector(raw);
  if (!terms?.length) return undefined;
  return terms.map((t) => ({ key: t.field, operator: t.op === '!=' ? 'NotIn' : 'In', values: [t.value] }));
}

/**
 * labels.ParseToRequirements, enough for SubjectAccessReview: `k=v`, `k==v`, `k!=v`, `k in (a,b)`,
 * `k notin (a)`, `k`, `!k` (Gt/Lt are dropped, as the webhook drops them). Sorted by key, values
 * sorted; undefined when the selector does not parse.
 */
export function labelSelectorRequirements(
  raw: string | undefined,
): { key: string; operator: string; values?: string[] }[] | undefined {
  if (!raw || !raw.trim()) return undefined;
  const out: { key: string; operator: string; values?: string[] }[] = [];
  // Split on commas outside parentheses.
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of raw) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  for (const part of parts) {
    const t = part.trim();
    if (!t) return undefined;
    let m: RegExpExecArray | null;
    if ((m = /^!\s*([^\s=!<>(),]+)$/.exec(t))) out.push({ key: m[1]!, operator: 'DoesNotExist' });
    else if ((m = /^([^\s=!<>(),]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(t))) {
      const values = m[3]!
        .split(',')
        .map((v) => v.trim())
        .sort();
      out.push({ key: m[1]!, operator: m[2] === 'in' ? 'In' : 'NotIn', values });
    } else if ((m = /^([^\s=!<>(),]+)\s*(==|=|!=)\s*([^\s=!<>(),]*)$/.exec(t))) {
      out.push({ key: m[1]!, operator: m[2] === '!=' ? 'NotIn' : 'In', values: [m[3]!] });
    } else if (/^([^\s=!<>(),]+)\s*[<>]\s*\S+$/.test(t)) continue;
    else if ((m = /^([^\s=!<>(),]+)$/.exec(t))) out.push({ key: m[1]!, operator: 'Exists' });
    else return undefined;
  }
  out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return out.length ? out : undefined;
}

/** The SubjectAccessReview spec for a request, field order as upstream serialises it. */
export function subjectAccessReviewSpec(a: Attributes, version: 'v1' | 'v1beta1' = 'v1'): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (a.isResourceRequest) {
    const ra: Record<string, unknown> = {};
    if (a.namespace) ra.namespace = a.namespace;
    if (a.verb) ra.verb = a.verb;
    if (a.apiGroup) ra.group = a.apiGroup;
    if (a.apiVersion) ra.version = a.apiVersion;
    if (a.resource) ra.resource = a.resource;
    if (a.subresource) ra.subresource = a.subresource;
    if (a.name) ra.name = a.name;
    const fs = fieldSelectorRequirements(a.fieldSelector);
    if (fs) ra.fieldSelector = { requirements: fs };
    const ls = labelSelectorRequirements(a.labelSelector);
    if (ls) ra.labelSelector = { requirements: ls };
    spec.resourceAttributes = ra;
  } else {
    const nra: Record<string, unknown> = {};
    if (a.path) nra.path = a.path;
    if (a.verb) nra.verb = a.verb;
    spec.nonResourceAttributes = nra;
  }
  const u: UserInfo | undefined = a.user;
  if (u) {
    if (u.name) spec.user = u.name;
    if (u.groups?.length) spec[version === 'v1' ? 'groups' : 'group'] = u.groups;
    if (u.extra && Object.keys(u.extra).length) spec.extra = u.extra;
    if (u.uid) spec.uid = u.uid;
  }
  return spec;
}

export class WebhookAuthorizer implements AuthorizerWithRules {
  private readonly o: Required<Omit<WebhookAuthorizerOptions, 'fetchFactory' | 'now'>>;
  private readonly client: WebhookClient;
  private readonly now: () => number;
  private readonly cache: TTLCache<string, SARStatus>;

  constructor(options: WebhookAuthorizerOptions) {
    this.o = {
      client: options.client,
      version: options.version ?? 'v1',
      authorizedTTL: options.authorizedTTL ?? 5 * 60_000,
      unauthorizedTTL: options.unauthorizedTTL ?? 30_000,
      retryBackoff: options.retryBackoff ?? defaultWebhookRetryBackoff,
      requestTimeout: options.requestTimeout ?? 30_000,
      decisionOnError: options.decisionOnError ?? 'NoOpinion',
    };
    const f = options.fetchFactory?.(options.client.tls);
    this.client = new WebhookClient(options.client, {
      requestTimeout: this.o.requestTimeout,
      ...(f ? { fetch: f } : {}),
    });
    this.now = options.now ?? Date.now;
    this.cache = new TTLCache({ maxEntries: cacheSize, now: this.now });
  }

  async authorize(a: Attributes): Promise<AuthorizationResult> {
    const spec = subjectAccessReviewSpec(a, this.o.version);
    const key = JSON.stringify(spec);
    let status: SARStatus;
    const hit = this.cache.get(key);
    if (hit !== undefined) status = hit;
    else {
      try {
        status = await this.withRetries(spec);
      } catch (err) {
        return {
          decision: this.o.decisionOnError,
          reason: '',
          error: err instanceof Error ? err : new Error(String(err)),
        };
      }
      if (key.length < maxCacheKeyLength) {
        this.cache.set(key, status, status.allowed ? this.o.authorizedTTL : this.o.unauthorizedTTL);
      }
    }
    const reason = status.reason ?? '';
    if (status.denied && status.allowed) {
      return {
        decision: 'Deny',
        reason,
        error: new Error('webhook subject access review returned both allow and deny response'),
      };
    }
    if (status.denied) return { decision: 'Deny', reason };
    if (status.allowed) return { decision: 'Allow', reason };
    return { decision: 'NoOpinion', reason };
  }

  /** The webhook cannot list rules: incomplete, with upstream's error. */
  async rulesFor(): Promise<RulesResult> {
    return {
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      error: new Error('webhook authorizer does not support user rule resolution'),
    };
  }

  private async withRetries(spec: Record<string, unknown>): Promise<SARStatus> {
    return withExponentialBackoff(
      this.o.retryBackoff,
      () => this.post(spec),
      (err) => err instanceof WebhookError && err.retriable,
    );
  }

  private async post(spec: Record<string, unknown>): Promise<SARStatus> {
    const apiVersion = `authorization.k8s.io/${this.o.version}`;
    const body = JSON.stringify({
      kind: 'SubjectAccessReview',
      apiVersion,
      metadata: { creationTimestamp: null },
      spec,
      status: { allowed: false },
    });
    let res;
    try {
      res = await this.client.post(body);
    } catch (err) {
      if (err instanceof WebhookRequestError) throw new WebhookError(err.message, true);
      throw err;
    }
    const text = res.text;
    if (res.status < 200 || res.status > 299) {
      const retriable = res.status === 429 || res.status >= 500;
      let message = `an error on the server (${JSON.stringify(text.slice(0, 200))}) has prevented the request from succeeding`;
      try {
        const s = JSON.parse(text) as { kind?: string; message?: string };
        if (s.kind === 'Status' && s.message) message = s.message;
      } catch {
        /* not a Status */
      }
      throw new WebhookError(message, retriable);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new WebhookError(
        `failed to decode the webhook's SubjectAccessReview response: ${err instanceof Error ? err.message : String(err)}`,
        false,
      );
    }
    const status = (parsed as { status?: unknown } | null)?.status;
    if (typeof status !== 'object' || status === null || Array.isArray(status)) {
      throw new WebhookError("failed to decode the webhook's SubjectAccessReview response: no status", false);
    }
    const s = status as Record<string, unknown>;
    return {
      allowed: s.allowed === true,
      denied: s.denied === true,
      reason: typeof s.reason === 'string' ? s.reason : '',
      ...(typeof s.evaluationError === 'string' ? { evaluationError: s.evaluationError } : {}),
    };
  }
}
