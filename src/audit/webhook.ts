// The webhook backend (plugin/pkg/audit/webhook + pkg/util/webhook): POSTs an audit.k8s.io/v1
// EventList to the server named by a kubeconfig, with fetch(). Every error is retried with
// exponential backoff (initial --audit-webhook-initial-backoff, factor 1.5, jitter 0.2, 5 tries;
// each try bounded by 30s); a batch that still fails is counted under
// apiserver_audit_error_total{plugin="webhook"} and logged event by event, never dropped silently.

import { parseDocument } from 'yaml';
import type { FileSystem } from '../server/options/filesystem.ts';
import type { Logger } from '../util/logger.ts';
import { goQuote } from '../endpoints/responsewriters/status.ts';
import { encodeEventList } from './event.ts';
import { handlePluginError, type AuditMetrics } from './metrics.ts';
import type { AuditBackend, AuditEvent } from './types.ts';

export const webhookPluginName = 'webhook';
/** DefaultInitialBackoffDelay. */
export const defaultInitialBackoff = 10_000;
/** defaultRequestTimeout of pkg/util/webhook. */
export const defaultWebhookRequestTimeout = 30_000;

/** TLS material from the kubeconfig, for a platform fetch that can use it. */
export interface WebhookTLSConfig {
  /** PEM. */
  caData?: string;
  certData?: string;
  keyData?: string;
  insecureSkipTLSVerify?: boolean;
  serverName?: string;
}

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** Builds a fetch that presents/verifies the given TLS material (the Node adapter may provide one). */
export type WebhookFetchFactory = (tls: WebhookTLSConfig) => FetchFunction;

export interface WebhookClientConfig {
  server: string;
  /** Authorization header value, if any. */
  authorization?: string;
  tls: WebhookTLSConfig;
}

export class KubeconfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeconfigError';
  }
}

type Obj = Record<string, unknown>;

function named(list: unknown, key: string, name: string): Obj | undefined {
  if (!Array.isArray(list)) return undefined;
  const entry = list.find((e) => e && typeof e === 'object' && (e as Obj).name === name) as Obj | undefined;
  const v = entry?.[key];
  return v && typeof v === 'object' ? (v as Obj) : undefined;
}

function str(o: Obj | undefined, k: string): string | undefined {
  const v = o?.[k];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function b64(s: string): string {
  const bin = atob(s.replace(/\s+/g, ''));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

/** Loads the client config from a kubeconfig (clientcmd with an explicit path, current-context). */
export async function loadWebhookKubeconfig(fs: FileSystem, path: string): Promise<WebhookClientConfig> {
  const text = new TextDecoder().decode(await fs.readFile(path));
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length) throw new KubeconfigError(`error loading config file ${goQuote(path)}: yaml: ${doc.errors[0]!.message.split('\n')[0]}`);
  const cfg = (doc.toJS() ?? {}) as Obj;
  const current = typeof cfg['current-context'] === 'string' ? (cfg['current-context'] as string) : '';
  if (!current) throw new KubeconfigError('invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable');
  const context = named(cfg.contexts, 'context', current);
  const problems: string[] = [];
  if (!context) problems.push(`context was not found for specified context: ${current}`);
  const clusterName = str(context, 'cluster') ?? '';
  const cluster = named(cfg.clusters, 'cluster', clusterName);
  if (context && !cluster) problems.push(`cluster ${goQuote(clusterName)} not found`);
  const server = str(cluster, 'server');
  if (!server) problems.push('no server found for cluster ' + goQuote(clusterName));
  if (problems.length) throw new KubeconfigError(`invalid configuration: ${problems.length === 1 ? problems[0] : `[${problems.join(', ')}]`}`);
  const userName = str(context, 'user');
  const user = userName ? named(cfg.users, 'user', userName) : undefined;
  const rel = (p: string) => (p.startsWith('/') ? p : path.replace(/[^/]*$/, '') + p);
  const readText = async (p: string) => new TextDecoder().decode(await fs.readFile(rel(p)));

  const tls: WebhookTLSConfig = {};
  const caData = str(cluster, 'certificate-authority-data');
  const caFile = str(cluster, 'certificate-authority');
  if (caData) tls.caData = b64(caData);
  else if (caFile) tls.caData = await readText(caFile);
  if (cluster?.['insecure-skip-tls-verify'] === true) tls.insecureSkipTLSVerify = true;
  const serverName = str(cluster, 'tls-server-name');
  if (serverName) tls.serverName = serverName;
  const certData = str(user, 'client-certificate-data');
  const certFile = str(user, 'client-certificate');
  if (certData) tls.certData = b64(certData);
  else if (certFile) tls.certData = await readText(certFile);
  const keyData = str(user, 'client-key-data');
  const keyFile = str(user, 'client-key');
  if (keyData) tls.keyData = b64(keyData);
  else if (keyFile) tls.keyData = await readText(keyFile);

  let authorization: string | undefined;
  const token = str(user, 'token') ?? (str(user, 'tokenFile') ? (await readText(str(user, 'tokenFile')!)).trim() : undefined);
  if (token) authorization = `Bearer ${token}`;
  else if (str(user, 'username')) authorization = `Basic ${btoa(`${str(user, 'username')}:${str(user, 'password') ?? ''}`)}`;
  return { server: server!, authorization, tls };
}

/** wait.Backoff for webhook retries. */
export interface RetryBackoff {
  /** Milliseconds before the first retry. */
  duration: number;
  factor: number;
  jitter: number;
  steps: number;
}

/** DefaultRetryBackoffWithInitialDelay. */
export function defaultRetryBackoff(initialMs: number = defaultInitialBackoff): RetryBackoff {
  return { duration: initialMs, factor: 1.5, jitter: 0.2, steps: 5 };
}

export interface WebhookBackendOptions {
  client: WebhookClientConfig;
  backoff?: RetryBackoff;
  /** Per-try timeout (ms), including reading the response. */
  requestTimeout?: number;
  fetch?: FetchFunction;
  logger: Logger;
  metrics: AuditMetrics;
  userAgent?: string;
}

export class WebhookError extends Error {}

export class WebhookBackend implements AuditBackend {
  private readonly opts: Required<Omit<WebhookBackendOptions, 'userAgent'>> & { userAgent?: string };
  private readonly pending = new Set<Promise<boolean>>();

  constructor(opts: WebhookBackendOptions) {
    this.opts = {
      ...opts,
      backoff: opts.backoff ?? defaultRetryBackoff(),
      requestTimeout: opts.requestTimeout ?? defaultWebhookRequestTimeout,
      fetch: opts.fetch ?? ((input, init) => fetch(input, init)),
    };
  }

  processEvents(events: AuditEvent[]): Promise<boolean> {
    const p = this.send(events).then(
      () => true,
      (err: unknown) => {
        handlePluginError(webhookPluginName, err, events, this.opts.logger, this.opts.metrics);
        return false;
      },
    );
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
    return p;
  }

  /** One POST; rejects with a client-go-like message on any failure. */
  private async post(body: string): Promise<void> {
    const { client, requestTimeout } = this.opts;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, */*' };
    if (client.authorization) headers.authorization = client.authorization;
    if (this.opts.userAgent) headers['user-agent'] = this.opts.userAgent;
    const signal = AbortSignal.timeout(requestTimeout);
    let res: Response;
    try {
      res = await this.opts.fetch(client.server, { method: 'POST', headers, body, signal });
    } catch (err) {
      throw new WebhookError(`Post ${goQuote(client.server)}: ${fetchErrorText(err, signal)}`);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw new WebhookError(`Post ${goQuote(client.server)}: ${fetchErrorText(err, signal)}`);
    }
    if (res.status < 200 || res.status > 206) {
      const shown = text.length > 1024 ? text.slice(0, 1024) + ' (truncated)' : text;
      throw new WebhookError(`an error on the server (${goQuote(shown.trim() || res.statusText)}) has prevented the request from succeeding (post code ${res.status})`);
    }
  }

  /** WithExponentialBackoff with retryOnError: every error is retried until the steps run out. */
  private async send(events: AuditEvent[]): Promise<void> {
    const body = encodeEventList(events);
    let { duration, steps } = this.opts.backoff;
    const { factor, jitter } = this.opts.backoff;
    let lastErr: unknown;
    while (steps > 0) {
      try {
        await this.post(body);
        return;
      } catch (err) {
        lastErr = err;
      }
      if (steps === 1) break;
      steps--;
      const wait = jitter > 0 ? duration + Math.random() * jitter * duration : duration;
      duration *= factor;
      await new Promise((r) => setTimeout(r, wait));
    }
    throw lastErr;
  }

  run(): void {}

  /** Waits for batches still being sent (retries included). */
  async shutdown(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  async flush(): Promise<void> {
    await this.shutdown();
  }

  toString(): string {
    return webhookPluginName;
  }
}

function fetchErrorText(err: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)';
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const cause = e?.cause;
  if (cause?.code === 'ECONNREFUSED') return 'dial tcp: connect: connection refused';
  if (cause?.message) return `${e.message}: ${cause.message}`;
  return e?.message ?? String(err);
}
