// A klog-shaped logger: severity letter, timestamp, message, key="value" pairs, to stderr
// (console.error), with klog's -v verbosity. Never pass credentials as values.

export interface Logger {
  /** Whether messages at this verbosity are written (klog.V(n).Enabled()). */
  enabled(level: number): boolean;
  info(message: string, kv?: Record<string, unknown>, level?: number): void;
  warning(message: string, kv?: Record<string, unknown>): void;
  error(message: string, kv?: Record<string, unknown>): void;
  /** Changes the verbosity at run time (PUT /debug/flags/v). */
  setVerbosity?(level: number): void;
}

export type LogSink = (line: string) => void;

export class KlogLogger implements Logger {
  verbosity: number;
  private readonly sink: LogSink;
  constructor(verbosity = 0, sink: LogSink = (line) => console.error(line)) {
    this.verbosity = verbosity;
    this.sink = sink;
  }
  enabled(level: number): boolean {
    return level <= this.verbosity;
  }
  setVerbosity(level: number): void {
    this.verbosity = level;
  }
  info(message: string, kv?: Record<string, unknown>, level = 0): void {
    if (this.enabled(level)) this.sink(formatLine('I', message, kv));
  }
  warning(message: string, kv?: Record<string, unknown>): void {
    this.sink(formatLine('W', message, kv));
  }
  error(message: string, kv?: Record<string, unknown>): void {
    this.sink(formatLine('E', message, kv));
  }
}

/** A logger that drops everything (tests, embedding). */
export const discardLogger: Logger = {
  enabled: () => false,
  info: () => {},
  warning: () => {},
  error: () => {},
};

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

export function formatLine(severity: string, message: string, kv?: Record<string, unknown>): string {
  const d = new Date();
  const ts = `${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}000`;
  let line = `${severity}${ts} ${JSON.stringify(message)}`;
  if (kv) {
    for (const [k, v] of Object.entries(kv)) {
      if (v === undefined) continue;
      line += ` ${k}=${typeof v === 'string' ? JSON.stringify(v) : v instanceof Error ? JSON.stringify(v.message) : JSON.stringify(v)}`;
    }
  }
  return line;
}
