// Serialising audit events exactly as kube-apiserver writes them: the audit.k8s.io/v1 Event in
// Go's field order with encoding/json's HTML escaping (pkg/apis/audit/v1/types.go), MicroTime, the
// `legacy` one-line format (pkg/audit/format.go), EventList for webhooks, and utilnet.SourceIPs.

import { goJSON, statusObject } from '../endpoints/responsewriters/status.ts';
import { goQuote } from '../util/go.ts';
import type { AuditEvent, EventUser, ObjectReference } from './types.ts';

/**
 * Microseconds since the epoch, now: the wall clock's millisecond (so a stage never precedes
 * requestReceivedTimestamp, which is a Date.now()) plus the sub-millisecond digits of the
 * monotonic clock where the platform has them (Workers coarsen timers: those digits are 0).
 */
export function nowMicros(): number {
  return Date.now() * 1000 + (Math.floor(performance.now() * 1000) % 1000);
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

// Events come in bursts within the same second: keep the last second's text.
let cachedSecond = NaN;
let cachedBase = '';

function dateParts(micros: number): { base: string; frac: number } {
  const second = Math.floor(micros / 1_000_000);
  if (second !== cachedSecond) {
    const d = new Date(second * 1000);
    cachedBase = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
    cachedSecond = second;
  }
  return { base: cachedBase, frac: micros - second * 1_000_000 };
}

/** metav1.MicroTime JSON: RFC3339 with exactly six fractional digits, UTC. */
export function formatMicroTime(micros: number): string {
  const { base, frac } = dateParts(micros);
  return `${base}.${pad(frac, 6)}Z`;
}

/** time.RFC3339Nano (trailing zeros of the fraction trimmed), UTC. */
export function formatRFC3339Nano(micros: number): string {
  const { base, frac } = dateParts(micros);
  if (frac === 0) return `${base}Z`;
  return `${base}.${pad(frac, 6).replace(/0+$/, '')}Z`;
}

// Strings that need no escaping (the common case) skip JSON.stringify and the HTML-escape pass.
const needsEscape = /[\u0000-\u001f"\\<>&\u007f-\uffff]/;
const q = (s: string): string => (needsEscape.test(s) ? goJSON(s) : `"${s}"`);

function qList(list: readonly string[]): string {
  let out = '[';
  for (let i = 0; i < list.length; i++) out += (i ? ',' : '') + q(list[i]!);
  return out + ']';
}

function encodeUser(u: EventUser): string {
  let out = '{';
  let sep = '';
  if (u.username) {
    out += `"username":${q(u.username)}`;
    sep = ',';
  }
  if (u.uid) {
    out += `${sep}"uid":${q(u.uid)}`;
    sep = ',';
  }
  if (u.groups?.length) {
    out += `${sep}"groups":${qList(u.groups)}`;
    sep = ',';
  }
  if (u.extra && Object.keys(u.extra).length) {
    // Go marshals maps with sorted keys.
    out += `${sep}"extra":${encodeSortedMap(u.extra)}`;
  }
  return out + '}';
}

function encodeSortedMap(m: Record<string, unknown>): string {
  const keys = Object.keys(m).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    if (i) out += ',';
    out += `${q(keys[i]!)}:${goJSON(m[keys[i]!])}`;
  }
  return out + '}';
}

const objectRefFields: (keyof ObjectReference)[] = [
  'resource',
  'namespace',
  'name',
  'uid',
  'apiGroup',
  'apiVersion',
  'resourceVersion',
  'subresource',
];

function encodeObjectRef(r: ObjectReference): string {
  let out = '{';
  let sep = '';
  for (const f of objectRefFields) {
    const v = r[f];
    if (v) {
      out += `${sep}"${f}":${q(v)}`;
      sep = ',';
    }
  }
  return out + '}';
}

/** The Event as compact JSON (no trailing newline), field order as audit.k8s.io/v1 serialises it. */
export function encodeEvent(ev: AuditEvent): string {
  let out = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":${q(ev.level)},"auditID":${q(ev.auditID)},"stage":${q(ev.stage)},"requestURI":${q(ev.requestURI)},"verb":${q(ev.verb)},"user":${encodeUser(ev.user)}`;
  if (ev.impersonatedUser) out += `,"impersonatedUser":${encodeUser(ev.impersonatedUser)}`;
  if (ev.authenticationMetadata) {
    const c = ev.authenticationMetadata.impersonationConstraint;
    out += `,"authenticationMetadata":${c ? `{"impersonationConstraint":${q(c)}}` : '{}'}`;
  }
  if (ev.sourceIPs?.length) out += `,"sourceIPs":${qList(ev.sourceIPs)}`;
  if (ev.userAgent) out += `,"userAgent":${q(ev.userAgent)}`;
  if (ev.objectRef) out += `,"objectRef":${encodeObjectRef(ev.objectRef)}`;
  const rs = ev.responseStatus;
  if (rs) {
    // Most events carry just the code.
    const onlyCode = rs.code !== undefined && !rs.status && !rs.message && !rs.reason && !rs.details;
    out += onlyCode
      ? `,"responseStatus":{"metadata":{},"code":${rs.code}}`
      : `,"responseStatus":${goJSON(statusObject(rs, false))}`;
  }
  if (ev.requestObject) out += `,"requestObject":${ev.requestObject}`;
  if (ev.responseObject) out += `,"responseObject":${ev.responseObject}`;
  out += `,"requestReceivedTimestamp":"${formatMicroTime(ev.requestReceivedTimestamp)}","stageTimestamp":"${formatMicroTime(ev.stageTimestamp)}"`;
  if (ev.annotations && Object.keys(ev.annotations).length) out += `,"annotations":${encodeSortedMap(ev.annotations)}`;
  return out + '}';
}

/** The body a webhook receives: an EventList (json.Encoder output, trailing newline). */
export function encodeEventList(events: readonly AuditEvent[]): string {
  let out = '{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[';
  for (let i = 0; i < events.length; i++) {
    if (i) out += ',';
    out += encodeEvent(events[i]!);
  }
  return out + ']}\n';
}

/** audit.EventString: the `legacy` log format (one line, no newline). */
export function eventString(ev: AuditEvent): string {
  let username = '<none>';
  let groups = '<none>';
  if (ev.user.username) {
    username = ev.user.username;
    if (ev.user.groups?.length) groups = ev.user.groups.map(goQuote).join(',');
  }
  let asuser = '<self>';
  let asgroups = '<lookup>';
  if (ev.impersonatedUser) {
    asuser = ev.impersonatedUser.username ?? '';
    if (ev.impersonatedUser.groups) asgroups = ev.impersonatedUser.groups.map(goQuote).join(',');
  }
  const namespace = ev.objectRef?.namespace || '<none>';
  const response = ev.responseStatus ? String(ev.responseStatus.code ?? 0) : '<deferred>';
  const ip = ev.sourceIPs?.[0] ?? '<unknown>';
  return (
    `${formatRFC3339Nano(ev.requestReceivedTimestamp)} AUDIT: id=${goQuote(ev.auditID)} stage=${goQuote(ev.stage)} ip=${goQuote(ip)} ` +
    `method=${goQuote(ev.verb)} user=${goQuote(username)} groups=${goQuote(groups)} as=${goQuote(asuser)} asgroups=${goQuote(asgroups)} ` +
    `user-agent=${goQuote(ev.userAgent ?? '')} namespace=${goQuote(namespace)} uri=${goQuote(ev.requestURI)} response="${response}"`
  );
}

/**
 * Compacts JSON text as Go's json.Compact does (whitespace outside strings removed) and applies
 * encoding/json's HTML escaping, which is what happens to runtime.Unknown raw bytes in an Event.
 * The input must be valid JSON.
 */
export function compactJSON(raw: string): string {
  let out = '';
  let start = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped char
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      out += raw.slice(start, i);
      start = i + 1;
    }
  }
  out += raw.slice(start);
  return out.replace(/[<>&\u2028\u2029]/g, (ch) => '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0'));
}

// --- source IPs (k8s.io/apimachinery/pkg/util/net.SourceIPs) ---

/** netutils.ParseIPSloppy + IP.String(): the canonical text of an IP, or undefined. */
export function canonicalIP(s: string): string | undefined {
  const v4 = parseIPv4(s);
  if (v4) return v4.join('.');
  const v6 = parseIPv6(s);
  if (!v6) return undefined;
  // IPv4-mapped addresses print as IPv4.
  if (v6.slice(0, 5).every((g) => g === 0) && v6[5] === 0xffff) {
    return `${v6[6]! >> 8}.${v6[6]! & 0xff}.${v6[7]! >> 8}.${v6[7]! & 0xff}`;
  }
  // Longest run of two or more zero groups becomes "::" (the first one on ties).
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (v6[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && v6[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = v6.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

function parseIPv4(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out.push(n);
  }
  return out;
}

function parseIPv6(s: string): number[] | undefined {
  if (!s.includes(':')) return undefined;
  let body = s;
  const tailGroups: number[] = [];
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4(tail);
    if (!v4) return undefined;
    tailGroups.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    body = s.slice(0, lastColon + 1);
    // Keep a trailing "::"; drop a single separating ':'.
    if (!body.endsWith('::')) body = body.slice(0, -1);
  }
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const parse = (h: string): number[] | undefined => {
    if (h === '') return [];
    const out: number[] = [];
    for (const g of h.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0]!);
  if (!head) return undefined;
  if (halves.length === 1) {
    const all = [...head, ...tailGroups];
    return all.length === 8 ? all : undefined;
  }
  const rest = parse(halves[1]!);
  if (!rest) return undefined;
  const known = head.length + rest.length + tailGroups.length;
  if (known > 7) return undefined;
  return [...head, ...new Array<number>(8 - known).fill(0), ...rest, ...tailGroups];
}

/**
 * utilnet.SourceIPs: valid IPs from X-Forwarded-For (comma-split), then X-Real-Ip unless already
 * listed, then the connection's remote IP unless it equals the last entry.
 */
export function sourceIPs(headers: Headers, remoteAddress: string | undefined): string[] {
  const ips: string[] = [];
  const xff = headers.get('x-forwarded-for');
  if (xff) {
    for (const part of xff.split(',')) {
      const ip = canonicalIP(part.trim());
      if (ip) ips.push(ip);
    }
  }
  const realIP = headers.get('x-real-ip');
  if (realIP) {
    const ip = canonicalIP(realIP);
    if (ip && !ips.includes(ip)) ips.push(ip);
  }
  if (remoteAddress) {
    const ip = canonicalIP(remoteAddress);
    if (ip && (ips.length === 0 || ips[ips.length - 1] !== ip)) ips.push(ip);
  }
  return ips;
}
