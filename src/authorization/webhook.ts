// The webhook authorizer (k8s.io/apiserver/plugin/pkg/authorizer/webhook): POSTs a
// SubjectAccessReview to the server named by a kubeconfig file, caches answers (allowed and
// denied TTLs), retries with upstream's backoff, and on failure returns NoOpinion with the
// error (so the chain answers 500 unless another authorizer allows).

import { parse as parseYAML } from 'yaml';
import type { UserInfo } from '../endpoints/request/context.ts';
import { parseFieldSelector } from '../endpoints/request/requestinfo.ts';
import type { Attributes, AuthorizationResult, AuthorizerWithRules, RulesResult } from './authorizer.ts';

/** What the webhook's kubeconfig says about how to reach it. */
export interface WebhookClientConfig {
  server: string;
  /** PEM of `certificate-authority` / `certificate-authority-data`. */
  caData?: string;
  insecureSkipTLSVerify?: boolean;
  /** PEM client certificate and key (`client-certificate(-data)`, `client-key(-data)`). */
  clientCertData?: string;
  clientKeyData?: string;
  token?: string;
  username?: string;
  password?: string;
}

/**
 * Makes the fetch used to reach a webhook. The default is the runtime's global fetch, which
 * cannot take a private CA or client certificate; the Node adapter supplies one that can.
 */
export type WebhookFetchFactory = (config: WebhookClientConfig) => typeof fetch;

export const defaultWebhookFetch: WebhookFetchFactory = () => fetch;

function b64decode(s: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(s.replace(/\s+/g, '')), (c) => c.charCodeAt(0)));
}

/**
 * Parses a webhook kubeconfig (clientcmd): the current context, or the first context, or the
 * first cluster and user. `readFile` resolves file references relative to the kubeconfig.
 */
export async function parseWebhookKubeconfig(text: string, file: string, readFile: (path: string) => Promise<string>): Promise<WebhookClientConfig> {
  let doc: unknown;
  try {
    doc = parseYAML(text);
  } catch (err) {
    throw new Error(`invalid configuration: ${file}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  const o = (doc ?? {}) as Record<string, unknown>;
  const list = (k: string) => (Array.isArray(o[k]) ? (o[k] as Record<string, unknown>[]) : []);
  const clusters = list('clusters');
  const users = list('users');
  const contexts = list('contexts');
  const currentName = typeof o['current-context'] === 'string' ? o['current-context'] : '';
  const ctx = ((contexts.find((c) => c.name === currentName) ?? contexts[0])?.context ?? {}) as Record<string, unknown>;
  const cluster = ((ctx.cluster ? clusters.find((c) => c.name === ctx.cluster) : clusters[0])?.cluster ?? undefined) as Record<string, unknown> | undefined;
  const user = ((ctx.user ? users.find((u) => u.name === ctx.user) : users[0])?.user ?? {}) as Record<string, unknown>;
  if (!cluster || typeof cluster.server !== 'string' || !cluster.server) {
    throw new Error(`invalid configuration: no server found for cluster in ${file}`);
  }
  const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : '';
  const resolve = (p: string) => (p.startsWith('/') ? p : dir + p);
  const pem = async (dataKey: string, fileKey: string, from: Record<string, unknown>) => {
    if (typeof from[dataKey] === 'string' && from[dataKey]) return b64decode(from[dataKey] as string);
    if (typeof from[fileKey] === 'string' && from[fileKey]) return readFile(resolve(from[fileKey] as string));
    return undefined;
  };
  const cfg: WebhookClientConfig = { server: cluster.server };
  const ca = await pem('certificate-authority-data', 'certificate-authority', cluster);
  if (ca) cfg.caData = ca;
  if (cluster['insecure-skip-tls-verify'] === true) cfg.insecureSkipTLSVerify = true;
  const cert = await pem('client-certificate-data', 'client-certificate', user);
  const key = await pem('client-key-data', 'client-key', user);
  if (cert) cfg.clientCertData = cert;
  if (key) cfg.clientKeyData = key;
  if (typeof user.token === 'string' && user.token) cfg.token = user.token;
  else if (typeof user.tokenFile === 'string' && user.tokenFile) cfg.token = (await readFile(resolve(user.tokenFile))).trim();
  if (typeof user.username === 'string') cfg.username = user.username;
  if (typeof user.password === 'string') cfg.password = user.password;
  return cfg;
}

/** wait.Backoff as `--authorization-webhook-*` uses it (DefaultAuthWebhookRetryBackoff). */
export interface Backoff {
  durationMs: number;
  factor: number;
  jitter: number;
  steps: number;
}

export const defaultWebhookRetryBackoff: Backoff = { durationMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

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
  fetchFactory?: WebhookFetchFactory;
  /** Injected clock (tests). */
  now?: () => number;
}

interface CacheEntry {
  status: SARStatus;
  expires: number;
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
function fieldSelectorRequirements(raw: string | undefined): { key: string; operator: string; values: string[] }[] | undefined {
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
export function labelSelectorRequirements(raw: string | undefined): { key: string; operator: string; values?: string[] }[] | undefined {
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
      const values = m[3]!.split(',').map((v) => v.trim()).sort();
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
  private readonly fetchFn: typeof fetch;
  private readonly now: () => number;
  private readonly cache = new Map<string, CacheEntry>();

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
    this.fetchFn = (options.fetchFactory ?? defaultWebhookFetch)(options.client);
    this.now = options.now ?? Date.now;
  }

  async authorize(a: Attributes): Promise<AuthorizationResult> {
    const spec = subjectAccessReviewSpec(a, this.o.version);
    const key = JSON.stringify(spec);
    let status: SARStatus;
    const hit = this.cache.get(key);
    if (hit && hit.expires > this.now()) {
      // Refresh LRU position.
      this.cache.delete(key);
      this.cache.set(key, hit);
      status = hit.status;
    } else {
      if (hit) this.cache.delete(key);
      try {
        status = await this.withRetries(spec);
      } catch (err) {
        return { decision: this.o.decisionOnError, reason: '', error: err instanceof Error ? err : new Error(String(err)) };
      }
      if (key.length < maxCacheKeyLength && this.o.authorizedTTL + this.o.unauthorizedTTL > 0) {
        const ttl = status.allowed ? this.o.authorizedTTL : this.o.unauthorizedTTL;
        if (ttl > 0) {
          if (this.cache.size >= cacheSize) this.cache.delete(this.cache.keys().next().value!);
          this.cache.set(key, { status, expires: this.now() + ttl });
        }
      }
    }
    const reason = status.reason ?? '';
    if (status.denied && status.allowed) {
      return { decision: 'Deny', reason, error: new Error('webhook subject access review returned both allow and deny response') };
    }
    if (status.denied) return { decision: 'Deny', reason };
    if (status.allowed) return { decision: 'Allow', reason };
    return { decision: 'NoOpinion', reason };
  }

  /** The webhook cannot list rules: incomplete, with upstream's error. */
  async rulesFor(): Promise<RulesResult> {
    return { resourceRules: [], nonResourceRules: [], incomplete: true, error: new Error('webhook authorizer does not support user rule resolution') };
  }

  private async withRetries(spec: Record<string, unknown>): Promise<SARStatus> {
    const b = this.o.retryBackoff;
    let delay = b.durationMs;
    let lastErr: Error | undefined;
    for (let attempt = 0; attempt < Math.max(1, b.steps); attempt++) {
      if (attempt > 0) {
        const jittered = b.jitter > 0 ? delay + Math.random() * b.jitter * delay : delay;
        await new Promise((r) => setTimeout(r, jittered));
        delay *= b.factor;
      }
      try {
        return await this.post(spec);
      } catch (err) {
        lastErr = err instanceof Error ? err : new Error(String(err));
        if (!(err instanceof WebhookError) || !err.retriable) throw lastErr;
      }
    }
    throw lastErr!;
  }

  private async post(spec: Record<string, unknown>): Promise<SARStatus> {
    const apiVersion = `authorization.k8s.io/${this.o.version}`;
    const body = JSON.stringify({ kind: 'SubjectAccessReview', apiVersion, metadata: { creationTimestamp: null }, spec, status: { allowed: false } });
    const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json, */*' });
    const c = this.o.client;
    if (c.token) headers.set('authorization', `Bearer ${c.token}`);
    else if (c.username !== undefined && c.password !== undefined) headers.set('authorization', `Basic ${btoa(`${c.username}:${c.password}`)}`);
    const signal = AbortSignal.timeout(this.o.requestTimeout);
    let res: Response;
    try {
      res = await this.fetchFn(c.server, { method: 'POST', headers, body, signal });
    } catch (err) {
      const msg = signal.aborted ? `context deadline exceeded` : err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      throw new WebhookError(`Post ${JSON.stringify(c.server)}: ${msg}`, true);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw new WebhookError(`Post ${JSON.stringify(c.server)}: ${signal.aborted ? 'context deadline exceeded' : err instanceof Error ? err.message : String(err)}`, true);
    }
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
      throw new WebhookError(`failed to decode the webhook's SubjectAccessReview response: ${err instanceof Error ? err.message : String(err)}`, false);
    }
    const status = (parsed as { status?: unknown } | null)?.status;
    if (typeof status !== 'object' || status === null || Array.isArray(status)) {
      throw new WebhookError('failed to decode the webhook\'s SubjectAccessReview response: no status', false);
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
