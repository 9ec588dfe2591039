// The log backend (plugin/pkg/audit/log): one JSON line (or one legacy line) per event, written
// through an injected writer so src/ stays portable. `-` (standard out) works everywhere; files
// with rotation come from the Node adapter (adapters/node/audit-log-writer.ts).

import type { Logger } from '../util/logger.ts';
import { encodeEvent, eventString } from './event.ts';
import { handlePluginError, type AuditMetrics } from './metrics.ts';
import type { AuditBackend, AuditEvent } from './types.ts';

export const logPluginName = 'log';
export const allowedLogFormats = ['legacy', 'json'] as const;
export type LogFormat = (typeof allowedLogFormats)[number];

/**
 * Where the log backend writes. `write` gets whole lines (each ending in `\n`); a returned
 * Promise resolves once they are stored and rejects when they could not be (disk full …).
 */
export interface AuditWriter {
  write(data: string): void | Promise<void>;
  /** Flushes and closes (server shutdown). */
  close?(): Promise<void>;
}

/** Rotation settings, as --audit-log-maxsize/-maxage/-maxbackup/-compress. */
export interface AuditLogFileOptions {
  /** Megabytes before rotation; 0 disables rotation. */
  maxSize: number;
  /** Days to keep rotated files; 0 keeps them regardless of age. */
  maxAge: number;
  /** Rotated files to keep; 0 keeps all. */
  maxBackups: number;
  compress: boolean;
}

/** Opens an audit log file (a platform capability; the Node adapter provides one). */
export type AuditLogOpener = (path: string, options: AuditLogFileOptions) => Promise<AuditWriter>;

/** Standard out through console.log (works on every runtime). */
export const stdoutAuditWriter: AuditWriter = {
  write(data) {
    console.log(data.endsWith('\n') ? data.slice(0, -1) : data);
  },
};

export class LogBackend implements AuditBackend {
  private readonly out: AuditWriter;
  private readonly format: LogFormat;
  private readonly logger: Logger;
  private readonly metrics: AuditMetrics;

  constructor(out: AuditWriter, format: LogFormat, logger: Logger, metrics: AuditMetrics) {
    this.out = out;
    this.format = format;
    this.logger = logger;
    this.metrics = metrics;
  }

  processEvents(events: AuditEvent[]): boolean | Promise<boolean> {
    let lines = '';
    for (const ev of events) lines += (this.format === 'legacy' ? eventString(ev) : encodeEvent(ev)) + '\n';
    let result: void | Promise<void>;
    try {
      result = this.out.write(lines);
    } catch (err) {
      handlePluginError(logPluginName, err, events, this.logger, this.metrics);
      return false;
    }
    if (!result) return true;
    return result.then(
      () => true,
      (err: unknown) => {
        handlePluginError(logPluginName, err, events, this.logger, this.metrics);
        return false;
      },
    );
  }

  run(): void {}

  async shutdown(): Promise<void> {
    await this.out.close?.();
  }

  toString(): string {
    return logPluginName;
  }
}
