// The webhook backend (plugin/pkg/audit/webhook + pkg/util/webhook): POSTs an audit.k8s.io/v1
// EventList to the server named by a kubeconfig, with fetch(). Every error is retried with
// exponential backoff (initial --audit-webhook-initial-backoff, factor 1.5, jitter 0.2, 5 tries;
// each try bounded by 30s); a batch that still fails is counted under
// apiserver_audit_error_total{plugin="webhook"} and logged event by event, never dropped silently.

import type { Logger } from '../util/logger.ts';
import { goQuote } from '../util/go.ts';
import { defaultRetryBackoff, withExponentialBackoff, type Backoff } from '../util/webhook/backoff.ts';
import { WebhookClient, type FetchFunction } from '../util/webhook/client.ts';
import type { WebhookClientConfig } from '../util/webhook/kubeconfig.ts';
import { encodeEventList } from './event.ts';
import { handlePluginError, type AuditMetrics } from './metrics.ts';
import type { AuditBackend, AuditEvent } from './types.ts';

export const webhookPluginName = 'webhook';
/** DefaultInitialBackoffDelay. */
export const defaultInitialBackoff = 10_000;

export interface WebhookBackendOptions {
  client: WebhookClientConfig;
  /** Default: DefaultRetryBackoffWithInitialDelay(--audit-webhook-initial-backoff). */
  backoff?: Backoff;
  /** Per-try timeout (ms), including reading the response. */
  requestTimeout?: number;
  fetch?: FetchFunction;
  logger: Logger;
  metrics: AuditMetrics;
  userAgent?: string;
}

export class WebhookError extends Error {}

export class WebhookBackend implements AuditBackend {
  private readonly opts: WebhookBackendOptions;
  private readonly backoff: Backoff;
  private readonly client: WebhookClient;
  private readonly pending = new Set<Promise<boolean>>();

  constructor(opts: WebhookBackendOptions) {
    this.opts = opts;
    this.backoff = opts.backoff ?? defaultRetryBackoff(defaultInitialBackoff);
    this.client = new WebhookClient(opts.client, {
      fetch: opts.fetch,
      requestTimeout: opts.requestTimeout,
      userAgent: opts.userAgent,
      timeoutText: 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
    });
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
    const res = await this.client.post(body);
    if (res.status < 200 || res.status > 206) {
      const shown = res.text.length > 1024 ? res.text.slice(0, 1024) + ' (truncated)' : res.text;
      throw new WebhookError(
        `an error on the server (${goQuote(shown.trim() || res.statusText)}) has prevented the request from succeeding (post code ${res.status})`,
      );
    }
  }

  /** WithExponentialBackoff with retryOnError: every error is retried until the steps run out. */
  private async send(events: AuditEvent[]): Promise<void> {
    const body = encodeEventList(events);
    await withExponentialBackoff(this.backoff, () => this.post(body));
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
