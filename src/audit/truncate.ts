// The truncate backend (plugin/pkg/audit/truncate), `--audit-*-truncate-enabled`: an event
// bigger than maxEventSize loses its request/response objects and gets the annotation
// `audit.k8s.io/truncated: "true"`; one still too big is dropped (counted and logged);
// batches are split so their serialised size stays under maxBatchSize.

import type { Logger } from '../util/logger.ts';
import { encodeEvent } from './event.ts';
import { handlePluginError, type AuditMetrics } from './metrics.ts';
import { levelLess, type AuditBackend, type AuditEvent } from './types.ts';
import { DelegatingBackend } from './union.ts';

export const truncatePluginName = 'truncate';

export interface TruncateConfig {
  maxEventSize: number;
  maxBatchSize: number;
}

const encoder = new TextEncoder();

function size(ev: AuditEvent): number {
  // json.Encoder adds a newline.
  return encoder.encode(encodeEvent(ev)).byteLength + 1;
}

export class TruncateBackend extends DelegatingBackend {
  private readonly config: TruncateConfig;
  private readonly logger: Logger;
  private readonly metrics: AuditMetrics;
  readonly neverFails: boolean;
  constructor(delegate: AuditBackend, config: TruncateConfig, logger: Logger, metrics: AuditMetrics) {
    super(delegate);
    this.neverFails = !!delegate.neverFails;
    this.config = config;
    this.logger = logger;
    this.metrics = metrics;
  }

  processEvents(events: AuditEvent[]): boolean | Promise<boolean> {
    const errors: string[] = [];
    const impacted: AuditEvent[] = [];
    const results: (boolean | Promise<boolean>)[] = [];
    let batch: AuditEvent[] = [];
    let batchSize = 0;
    for (let ev of events) {
      let s = size(ev);
      if (s > this.config.maxEventSize && !levelLess(ev.level, 'Request')) {
        ev = {
          ...ev,
          requestObject: undefined,
          responseObject: undefined,
          annotations: { ...ev.annotations, 'audit.k8s.io/truncated': 'true' },
        };
        s = size(ev);
      }
      if (s > this.config.maxEventSize) {
        errors.push('event is too large even after truncating');
        impacted.push(ev);
        continue;
      }
      if (batch.length && batchSize + s > this.config.maxBatchSize) {
        results.push(this.delegate.processEvents(batch));
        batch = [];
        batchSize = 0;
      }
      batchSize += s;
      batch.push(ev);
    }
    if (batch.length) results.push(this.delegate.processEvents(batch));
    if (impacted.length) {
      handlePluginError(
        truncatePluginName,
        new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`),
        impacted,
        this.logger,
        this.metrics,
      );
    }
    if (results.every((r) => typeof r === 'boolean')) return results.every(Boolean);
    return Promise.all(results).then((rs) => rs.every(Boolean));
  }

  override toString(): string {
    return `${truncatePluginName}<${this.delegate}>`;
  }
}
