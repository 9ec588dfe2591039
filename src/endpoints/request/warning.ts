// The warning recorder (k8s.io/apiserver/pkg/warning/context.go, and the recorder of
// k8s.io/apiserver/pkg/endpoints/filters/warning.go): any layer adds `Warning: 299 <agent> "<text>"`
// headers, de-duplicated by text, with upstream's limits (4096 runes in total, then every item
// truncated to 256 and replayed). The recorder writes to the header map it was given (inside the
// timeout filter, so warnings vanish with a filter 504). Lives here so authenticators and REST
// handlers add warnings without importing a filter.

import type { RequestContext } from './context.ts';

const key = Symbol('warningRecorder');

export const defaultTotalMaxSize = 4 * 1024;
export const defaultPerItemMaxSize = 256;

interface Recorded {
  agent: string;
  text: string;
}

/** The per-request recorder (warning.Recorder). */
export class WarningRecorder {
  private readonly target: Headers | (() => Headers);
  private readonly totalMaxSize: number;
  private readonly perItemMaxSize: number;
  private readonly recorded = new Set<string>();
  private readonly ordered: Recorded[] = [];
  private truncating = false;
  private written = 0;

  /** `headers` may be a function, called on the first warning (the timeout filter's map is copied lazily). */
  constructor(
    headers: Headers | (() => Headers),
    totalMaxSize = defaultTotalMaxSize,
    perItemMaxSize = defaultPerItemMaxSize,
  ) {
    this.target = headers;
    this.totalMaxSize = totalMaxSize;
    this.perItemMaxSize = perItemMaxSize;
  }

  private get headers(): Headers {
    return typeof this.target === 'function' ? this.target() : this.target;
  }

  addWarning(agent: string, text: string): void {
    if (text.length === 0) return;
    if (this.written >= this.totalMaxSize && this.truncating) return;
    if (this.recorded.has(text)) return;
    this.recorded.add(text);
    this.ordered.push({ agent, text });

    let runes = [...text];
    if (this.truncating && runes.length > this.perItemMaxSize) runes = runes.slice(0, this.perItemMaxSize);
    const header = newWarningHeader(299, agent, runes.join(''));
    if (header === null) return;
    if (this.written + runes.length <= this.totalMaxSize || this.truncating) {
      this.written += runes.length;
      this.headers.append('Warning', header);
      return;
    }
    // Over the limit: switch to truncating and replay every recorded item truncated.
    this.truncating = true;
    this.written = 0;
    this.headers.delete('Warning');
    for (const w of this.ordered) {
      let r = [...w.text];
      if (r.length > this.perItemMaxSize) r = r.slice(0, this.perItemMaxSize);
      const h = newWarningHeader(299, w.agent, r.join(''));
      if (h !== null) {
        this.written += r.length;
        this.headers.append('Warning', h);
      }
    }
  }
}

// unicode.IsControl: C0, DEL and C1.
const control = /[\u0000-\u001f\u007f-\u009f]/;
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * net.NewWarningHeader: `%03d <agent or -> "<text>"`, text quoted with only `"` and `\`
 * escaped; null where upstream returns an error. The value is returned as a byte string of its
 * UTF-8 encoding (Headers only carry bytes 0–255; Go writes the UTF-8 bytes).
 */
export function newWarningHeader(code: number, agent: string, text: string): string | null {
  if (code < 0 || code > 999) return null;
  if (agent === '') agent = '-';
  else if (loneSurrogate.test(agent) || /[ \t\n\r"\\]/.test(agent) || control.test(agent)) return null;
  if (loneSurrogate.test(text) || control.test(text)) return null;
  const value = `${String(code).padStart(3, '0')} ${agent} "${text.replace(/[\\"]/g, (c) => '\\' + c)}"`;
  return toByteString(value);
}

function toByteString(s: string): string {
  if (!/[^\x00-\x7f]/.test(s)) return s;
  let out = '';
  for (const b of new TextEncoder().encode(s)) out += String.fromCharCode(b);
  return out;
}

/** warning.AddWarning: records through the request's recorder (no-op without one). */
export function addWarning(ctx: RequestContext, agent: string, text: string): void {
  let r = ctx.values.get(key) as WarningRecorder | RequestContext | undefined;
  if (r === undefined) return;
  if (!(r instanceof WarningRecorder)) {
    // The recorder is made on the first warning, bound to the context WithWarningRecorder saw.
    const at = r;
    r = new WarningRecorder(() => at.responseHeaders);
    ctx.values.set(key, r);
  }
  r.addWarning(agent, text);
}

/** Marks `ctx` as the context whose response headers get the warnings (what WithWarningRecorder does). */
export function installWarningRecorder(ctx: RequestContext): void {
  ctx.values.set(key, ctx);
}
