// Test helpers for audit (portable): an in-memory backend and a normaliser for timestamps.

import { encodeEvent } from './event.ts';
import type { AuditBackend, AuditEvent } from './types.ts';

/** Keeps every event; `result` decides what processEvents reports (a function for per-call control). */
export class MemoryBackend implements AuditBackend {
  readonly events: AuditEvent[] = [];
  result: boolean | 'async-true' | 'async-false' = true;
  flushes = 0;
  started = false;
  stopped = false;
  processEvents(events: AuditEvent[]): boolean | Promise<boolean> {
    this.events.push(...events);
    if (this.result === 'async-true') return Promise.resolve(true);
    if (this.result === 'async-false') return Promise.resolve(false);
    return this.result;
  }
  run(stop: Promise<void>): void {
    this.started = true;
    void stop.then(() => (this.stopped = true));
  }
  async shutdown(): Promise<void> {}
  async flush(): Promise<void> {
    this.flushes++;
  }
  /** Encoded events with non-deterministic stage timestamps replaced by `<now>`. */
  lines(): string[] {
    return this.events.map((e) => normalize(encodeEvent(e)));
  }
  stages(): string[] {
    return this.events.map((e) => e.stage);
  }
  toString(): string {
    return 'memory';
  }
}

/** Replaces a stageTimestamp that differs from requestReceivedTimestamp with `<now>`. */
export function normalize(line: string): string {
  const rr = /"requestReceivedTimestamp":"([^"]+)"/.exec(line)?.[1];
  return line.replace(/"stageTimestamp":"([^"]+)"/, (m, ts: string) => {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(ts)) return m;
    return ts === rr ? m : '"stageTimestamp":"<now>"';
  });
}
