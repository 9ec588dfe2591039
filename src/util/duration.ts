// Go's time.ParseDuration and Duration.String, with Go's exact error messages, because flags
// (`--request-timeout=1m30s`) and `?timeout=` must accept and reject what kube-apiserver does.

import { goQuote } from './go.ts';

const unitNanos: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3, // U+00B5 micro sign
  μs: 1e3, // U+03BC Greek mu
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** math.MaxInt64 as a double: 2^63 - 1 rounds to 2^63. */
const maxInt64 = 2 ** 63;

export class DurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DurationError';
  }
}

/** Parses a Go duration; returns nanoseconds (a float: exact up to about 104 days). */
export function parseGoDuration(input: string): number {
  const invalid = () => new DurationError(`time: invalid duration ${goQuote(input)}`);
  let s = input;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw invalid();
  let total = 0;
  while (s !== '') {
    if (!(s[0] === '.' || (s[0]! >= '0' && s[0]! <= '9'))) throw invalid();
    let i = 0;
    while (i < s.length && s[i]! >= '0' && s[i]! <= '9') i++;
    const intDigits = s.slice(0, i);
    s = s.slice(i);
    let fracDigits = '';
    if (s[0] === '.') {
      s = s.slice(1);
      let j = 0;
      while (j < s.length && s[j]! >= '0' && s[j]! <= '9') j++;
      fracDigits = s.slice(0, j);
      s = s.slice(j);
    }
    if (intDigits === '' && fracDigits === '') throw invalid();
    let u = 0;
    while (u < s.length && s[u] !== '.' && !(s[u]! >= '0' && s[u]! <= '9')) u++;
    if (u === 0) throw new DurationError(`time: missing unit in duration ${goQuote(input)}`);
    const unit = s.slice(0, u);
    s = s.slice(u);
    const scale = unitNanos[unit];
    if (scale === undefined) {
      throw new DurationError(`time: unknown unit ${goQuote(unit)} in duration ${goQuote(input)}`);
    }
    const whole = intDigits === '' ? 0 : Number(intDigits);
    if (whole > maxInt64 / scale) throw invalid();
    const frac = fracDigits === '' ? 0 : Number('0.' + fracDigits);
    total += whole * scale + frac * scale;
    if (total > maxInt64) throw invalid();
  }
  return neg ? -total : total;
}

/** Nanoseconds → milliseconds, the unit timers use. */
export function parseGoDurationMillis(input: string): number {
  return parseGoDuration(input) / 1e6;
}

/** Go's Duration.String (`1m30s`, `500ms`, `0s`) for help text and messages. */
export function formatGoDuration(nanos: number): string {
  if (nanos === 0) return '0s';
  const neg = nanos < 0;
  let n = Math.abs(nanos);
  let out: string;
  if (n < 1e9) {
    if (n < 1e3) out = `${n}ns`;
    else if (n < 1e6) out = `${trimFloat(n / 1e3)}µs`;
    else out = `${trimFloat(n / 1e6)}ms`;
  } else {
    const h = Math.floor(n / 3600e9);
    n -= h * 3600e9;
    const m = Math.floor(n / 60e9);
    n -= m * 60e9;
    const secs = trimFloat(n / 1e9);
    out = h > 0 ? `${h}h${m}m${secs}s` : m > 0 ? `${m}m${secs}s` : `${secs}s`;
  }
  return neg ? '-' + out : out;
}

function trimFloat(v: number): string {
  return String(Number(v.toFixed(9)));
}
