// The string formats a CRD schema may use (k8s.io/apiextensions-apiserver/pkg/apiserver/
// validation/formats.go) and their checks (k8s.io/kube-openapi/pkg/validation/strfmt/default.go,
// kubernetes-extensions.go). Names are normalised as go-openapi does (dashes dropped); any other
// format is stripped from the schema and not checked.

import { parseGoDuration } from '../../util/duration.ts';

const uuidRe = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid3Re = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid4Re = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const uuid5Re = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const hostnameRe =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const emailRe = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/;
const base64Re = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const hexColorRe = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const rgbPart = '\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*';
const rgbColorRe = new RegExp(`^rgb\\(${rgbPart},${rgbPart},${rgbPart}\\)$`);
const ssnRe = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const creditCardRe =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/;
const shortNameRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const longNameRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dateTimeTimeRe = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
const macRe =
  /^(?:[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){5}|[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){7}|[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){19}|[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4}){2}|[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4}){3}|[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4}){9})$/;

function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}

function isIPv6(s: string): boolean {
  if (!s.includes(':')) return false;
  let rest = s;
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  let groups = 8;
  if (tail.includes('.')) {
    if (!isIPv4(tail)) return false;
    rest = s.slice(0, lastColon + 1) + '0';
    groups = 7;
  }
  const dbl = rest.split('::');
  if (dbl.length > 2) return false;
  const hex = /^[0-9a-fA-F]{1,4}$/;
  const side = (x: string) => (x === '' ? [] : x.split(':'));
  if (dbl.length === 2) {
    const a = side(dbl[0]!);
    const b = side(dbl[1]!);
    return a.length + b.length < groups && [...a, ...b].every((g) => hex.test(g));
  }
  const all = rest.split(':');
  return all.length === groups && all.every((g) => hex.test(g));
}

function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  if (isIPv4(ip)) return Number(bits) <= 32;
  if (isIPv6(ip)) return Number(bits) <= 128;
  return false;
}

function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d <= days;
}

function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0]!)) return false;
  const m = dateTimeTimeRe.exec(parts[1]!);
  return !!m && m[1]! <= '23' && m[2]! <= '59' && m[3]! <= '59';
}

function isURI(s: string): boolean {
  // url.ParseRequestURI: an absolute URI or an absolute path.
  if (s.startsWith('/')) return !/\s/.test(s);
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s)) return false;
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
}

function isISBN10(s: string): boolean {
  const d = s.replace(/[\s-]/g, '');
  if (!/^\d{9}[\dX]$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(d[i]);
  sum += d[9] === 'X' ? 100 : 10 * Number(d[9]);
  return sum % 11 === 0;
}

function isISBN13(s: string): boolean {
  const d = s.replace(/[\s-]/g, '');
  if (!/^\d{13}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(d[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(d[12]);
}

function isCreditCard(s: string): boolean {
  const d = s.replace(/[^0-9]/g, '');
  if (!creditCardRe.test(d)) return false;
  let sum = 0;
  let double = false;
  for (let i = d.length - 1; i >= 0; i--) {
    let n = Number(d[i]);
    if (double) {
      n *= 2;
      if (n > 9) n -= 9;
    }
    sum += n;
    double = !double;
  }
  return sum % 10 === 0;
}

function isDuration(s: string): boolean {
  try {
    parseGoDuration(s);
    return true;
  } catch {
    // strfmt also takes the Scala forms `3 days`, `1h`.
    return /^[1-9][0-9]*(?:\s+)?(ns|us|µs|ms|s|m|h|d|w|nano(?:second)?s?|micro(?:second)?s?|milli(?:second)?s?|seconds?|minutes?|hours?|days?|weeks?)$/.test(
      s,
    );
  }
}

/** The checks by normalised format name. */
const checks: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isURI,
  email: (s) => emailRe.test(s),
  hostname: (s) => s.length <= 255 && hostnameRe.test(s),
  ipv4: isIPv4,
  ipv6: isIPv6,
  cidr: isCIDR,
  mac: (s) => macRe.test(s),
  uuid: (s) => uuidRe.test(s),
  uuid3: (s) => uuid3Re.test(s),
  uuid4: (s) => uuid4Re.test(s),
  uuid5: (s) => uuid5Re.test(s),
  isbn: (s) => isISBN10(s) || isISBN13(s),
  isbn10: isISBN10,
  isbn13: isISBN13,
  creditcard: isCreditCard,
  ssn: (s) => ssnRe.test(s),
  hexcolor: (s) => hexColorRe.test(s),
  rgbcolor: (s) => rgbColorRe.test(s),
  byte: (s) => base64Re.test(s),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
  k8sshortname: (s) => s.length <= 63 && shortNameRe.test(s),
  k8slongname: (s) => s.length <= 253 && longNameRe.test(s),
};

export const normalizeFormat = (f: string): string => f.replaceAll('-', '');

/**
 * StripUnsupportedFormatsPostProcessorForVersion: the format that stays on a node of type
 * `type` ('' when it is dropped).
 */
export function supportedFormat(type: string | readonly string[], format: string | undefined): string {
  if (!format) return '';
  const t = typeof type === 'string' ? type : type.length === 1 ? type[0]! : '';
  switch (t) {
    case '':
    case 'string':
      return Object.hasOwn(checks, normalizeFormat(format)) ? format : '';
    case 'integer':
      return format === 'int32' || format === 'int64' ? format : '';
    case 'number':
      return format === 'float' || format === 'double' ? format : '';
    default:
      return '';
  }
}

/** strfmt.Default.ContainsName. */
export const isKnownStringFormat = (format: string): boolean => Object.hasOwn(checks, normalizeFormat(format));

/** strfmt.Default.Validates. */
export function validatesFormat(format: string, value: string): boolean {
  const check = checks[normalizeFormat(format)];
  return check ? check(value) : true;
}
