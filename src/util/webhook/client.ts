// The webhook client (k8s.io/apiserver/pkg/util/webhook/webhook.go's GenericWebhook): one POST of
// a JSON body to the kubeconfig's server with its credentials, bounded by a timeout, over a fetch
// that may carry the kubeconfig's TLS material. Callers decide what a response means and which
// errors are retried (backoff.ts).

import { goQuote } from '../go.ts';
import type { WebhookClientConfig, WebhookTLSConfig } from './kubeconfig.ts';

/** defaultRequestTimeout of pkg/util/webhook (ms). */
export const defaultWebhookRequestTimeout = 30_000;

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/**
 * Builds a fetch that presents/verifies the kubeconfig's TLS material (CA bundle, client
 * certificate, insecure-skip-tls-verify, server name). Web-standard fetch cannot; a Platform
 * that can (Node's https) supplies one.
 */
export type WebhookFetchFactory = (tls: WebhookTLSConfig) => FetchFunction;

/** True when the kubeconfig asks for TLS settings a plain fetch() cannot apply. */
export function needsTLSFetch(tls: WebhookTLSConfig): boolean {
  return !!(tls.caData || tls.certData || tls.keyData || tls.insecureSkipTLSVerify || tls.serverName);
}

/** A request that did not get an answer (connection error, timeout, broken body): retriable. */
export class WebhookRequestError extends Error {
  readonly timedOut: boolean;
  constructor(message: string, timedOut: boolean) {
    super(message);
    this.name = 'WebhookRequestError';
    this.timedOut = timedOut;
  }
}

export interface WebhookClientOptions {
  /** Default: the runtime's fetch. */
  fetch?: FetchFunction;
  /** Per-try timeout (ms), reading the response included. Default 30s. */
  requestTimeout?: number;
  userAgent?: string;
  /** Text after `Post "<url>": ` when the timeout fires (client-go's wording differs by caller). */
  timeoutText?: string;
}

/** The answer of one POST: the status and the whole body. */
export interface WebhookResponse {
  status: number;
  statusText: string;
  text: string;
}

export class WebhookClient {
  readonly config: WebhookClientConfig;
  private readonly fetchFn: FetchFunction;
  private readonly timeout: number;
  private readonly headers: Record<string, string>;
  private readonly timeoutText: string;

  constructor(config: WebhookClientConfig, options: WebhookClientOptions = {}) {
    this.config = config;
    this.fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
    this.timeout = options.requestTimeout ?? defaultWebhookRequestTimeout;
    this.timeoutText = options.timeoutText ?? 'context deadline exceeded';
    this.headers = { 'content-type': 'application/json', accept: 'application/json, */*' };
    if (config.authorization) this.headers.authorization = config.authorization;
    if (options.userAgent) this.headers['user-agent'] = options.userAgent;
  }

  /** One POST; rejects with WebhookRequestError (`Post "<url>": <reason>`) when no answer came. */
  async post(body: string): Promise<WebhookResponse> {
    const server = this.config.server;
    const signal = AbortSignal.timeout(this.timeout);
    const fail = (err: unknown) =>
      new WebhookRequestError(
        `Post ${goQuote(server)}: ${signal.aborted ? this.timeoutText : transportErrorText(err)}`,
        signal.aborted,
      );
    let res: Response;
    try {
      res = await this.fetchFn(server, { method: 'POST', headers: { ...this.headers }, body, signal });
    } catch (err) {
      throw fail(err);
    }
    try {
      return { status: res.status, statusText: res.statusText, text: await res.text() };
    } catch (err) {
      throw fail(err);
    }
  }
}

/** A fetch failure in Go's words where one is known (`dial tcp: connect: connection refused`). */
function transportErrorText(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } } | undefined;
  const cause = e?.cause;
  if (cause?.code === 'ECONNREFUSED') return 'dial tcp: connect: connection refused';
  if (cause?.message) return `${e!.message}: ${cause.message}`;
  return e?.message ?? String(err);
}
