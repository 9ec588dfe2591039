// The audit metrics (k8s.io/apiserver/pkg/audit/metrics.go), with upstream names, and
// HandlePluginError: every event a backend fails to store is counted and logged, never lost
// silently. One AuditMetrics per server (nothing global); /metrics renders `collect()`.

import type { Logger } from '../util/logger.ts';
import { eventString } from './event.ts';
import type { AuditEvent, Level } from './types.ts';

export interface AuditMetricSample {
  name: string;
  help: string;
  labels?: Record<string, string>;
  value: number;
}

/** A registry counter (src/metrics Counter), structurally: labels as values in label order. */
export interface CounterLike {
  inc(labels?: readonly string[], by?: number): void;
}

/** The server registry's audit counters (APIServerMetrics), which these counts also feed. */
export interface AuditMetricCounters {
  auditEvents: CounterLike;
  auditErrors: CounterLike;
  auditLevel: CounterLike;
  auditRequestsRejected: CounterLike;
}

export class AuditMetrics {
  private counters?: AuditMetricCounters;
  /** apiserver_audit_event_total */
  eventTotal = 0;
  /** apiserver_audit_error_total{plugin} */
  readonly errorTotal = new Map<string, number>();
  /** apiserver_audit_level_total{level} */
  readonly levelTotal = new Map<Level, number>();
  /** apiserver_audit_requests_rejected_total */
  requestsRejectedTotal = 0;

  /** Also count into the server's /metrics registry from now on. */
  bind(counters: AuditMetricCounters | undefined): this {
    this.counters = counters;
    return this;
  }

  observeEvent(): void {
    this.eventTotal++;
    this.counters?.auditEvents.inc();
  }

  observePolicyLevel(level: Level): void {
    this.levelTotal.set(level, (this.levelTotal.get(level) ?? 0) + 1);
    this.counters?.auditLevel.inc([level]);
  }

  addErrors(plugin: string, n: number): void {
    this.errorTotal.set(plugin, (this.errorTotal.get(plugin) ?? 0) + n);
    this.counters?.auditErrors.inc([plugin], n);
  }

  /** A request failed because its audit event could not be stored (blocking-strict). */
  rejectRequest(): void {
    this.requestsRejectedTotal++;
    this.counters?.auditRequestsRejected.inc();
  }

  /** Events that failed in any plugin (the sum of apiserver_audit_error_total). */
  get droppedEvents(): number {
    let n = 0;
    for (const v of this.errorTotal.values()) n += v;
    return n;
  }

  /** Samples in upstream's names, for a Prometheus registry or a test. */
  collect(): AuditMetricSample[] {
    const out: AuditMetricSample[] = [
      {
        name: 'apiserver_audit_event_total',
        help: '[ALPHA] Counter of audit events generated and sent to the audit backend.',
        value: this.eventTotal,
      },
      {
        name: 'apiserver_audit_requests_rejected_total',
        help: '[ALPHA] Counter of apiserver requests rejected due to an error in audit logging backend.',
        value: this.requestsRejectedTotal,
      },
    ];
    for (const [plugin, value] of [...this.errorTotal].sort()) {
      out.push({
        name: 'apiserver_audit_error_total',
        help: '[ALPHA] Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.',
        labels: { plugin },
        value,
      });
    }
    for (const [level, value] of [...this.levelTotal].sort()) {
      out.push({
        name: 'apiserver_audit_level_total',
        help: '[ALPHA] Counter of policy levels for audit events (1 per request).',
        labels: { level },
        value,
      });
    }
    return out;
  }

  /** Prometheus text exposition of these counters (for servers without a metrics registry). */
  text(): string {
    let out = '';
    let last = '';
    for (const s of this.collect()) {
      if (s.name !== last) {
        out += `# HELP ${s.name} ${s.help}\n# TYPE ${s.name} counter\n`;
        last = s.name;
      }
      const labels = s.labels
        ? `{${Object.entries(s.labels)
            .map(([k, v]) => `${k}="${v}"`)
            .join(',')}}`
        : '';
      out += `${s.name}${labels} ${s.value}\n`;
    }
    return out;
  }
}

/**
 * audit.HandlePluginError: counts the impacted events under the plugin and logs them (one
 * legacy line each), so a dropped event is always visible in the logs and in the metrics.
 */
export function handlePluginError(
  plugin: string,
  err: unknown,
  events: readonly AuditEvent[],
  logger: Logger,
  metrics: AuditMetrics,
): void {
  metrics.addErrors(plugin, events.length);
  let msg = `Error in audit plugin '${plugin}' affecting ${events.length} audit events: ${err instanceof Error ? err.message : String(err)}\nImpacted events:\n`;
  for (const ev of events) msg += eventString(ev) + '\n';
  logger.error(msg);
}
