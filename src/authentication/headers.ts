// Reading request headers line by line (Go http.Header semantics) when the runtime exposes the
// raw header list; Fetch Headers join repeated lines with ", ".

import type { RequestContext } from '../endpoints/request/context.ts';

/** Every value of header `name` (case-insensitive), one per header line when the runtime tells. */
export function headerValues(ctx: RequestContext, name: string): string[] {
  const lower = name.toLowerCase();
  const raw = ctx.transport.rawHeaders;
  if (raw) {
    const out: string[] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) if (sameName(raw[i]!, lower)) out.push(raw[i + 1]!);
    return out;
  }
  const v = ctx.request.headers.get(lower);
  return v === null ? [] : [v];
}

/** Go's `Header.Get(name)` (`name` lower-case): the first line's value, or null. */
export function firstHeaderValue(ctx: RequestContext, lower: string): string | null {
  const raw = ctx.transport.rawHeaders;
  if (!raw) return ctx.request.headers.get(lower);
  for (let i = 0; i + 1 < raw.length; i += 2) if (sameName(raw[i]!, lower)) return raw[i + 1]!;
  return null;
}

/** A raw header name equals `lower` case-insensitively (lengths first: no lower-cased copy of every name). */
function sameName(raw: string, lower: string): boolean {
  return raw.length === lower.length && (raw === lower || raw.toLowerCase() === lower);
}

const authorizationKey = Symbol('authorization');

/** What was read from the request's Authorization header, for the Request object it was read from. */
export interface AuthorizationMemo {
  request: Request;
  value: string | null;
  /** The bearer token parsed from `value` (bearertoken.ts); null: none; undefined: not parsed yet. */
  bearer?: string | null;
}

/**
 * Go's `Header.Get("Authorization")` (the first line where the runtime gives raw lines), read
 * once per request: every bearer authenticator of a union and the header stripping after a
 * success ask for it, and each Fetch Headers call costs WebIDL conversions. Remembered for the
 * Request object it was read from (a rebuilt request is read again).
 */
export function authorizationMemo(ctx: RequestContext): AuthorizationMemo {
  const memo = ctx.values.get(authorizationKey) as AuthorizationMemo | undefined;
  if (memo !== undefined && memo.request === ctx.request) return memo;
  const value = firstHeaderValue(ctx, 'authorization');
  const fresh: AuthorizationMemo = { request: ctx.request, value, bearer: undefined };
  ctx.values.set(authorizationKey, fresh);
  return fresh;
}

export function authorizationHeader(ctx: RequestContext): string | null {
  return authorizationMemo(ctx).value;
}

/** Whether the request has header `name`, from what was read already; undefined when not known. */
function knownHas(ctx: RequestContext, name: string): boolean | undefined {
  if (name !== 'authorization') return undefined;
  const memo = ctx.values.get(authorizationKey) as AuthorizationMemo | undefined;
  return memo !== undefined && memo.request === ctx.request ? memo.value !== null : undefined;
}

/** Header names (lower-case, first-seen order) that start with `prefix` (case-insensitive). */
export function headerNamesWithPrefix(ctx: RequestContext, prefix: string): string[] {
  const p = prefix.toLowerCase();
  const out: string[] = [];
  const raw = ctx.transport.rawHeaders;
  if (raw) {
    for (let i = 0; i < raw.length; i += 2) {
      const n = raw[i]!.toLowerCase();
      if (n.startsWith(p) && !out.includes(n)) out.push(n);
    }
    return out;
  }
  for (const [n] of ctx.request.headers) if (n.startsWith(p) && !out.includes(n)) out.push(n);
  return out;
}

/** Whether `name` (lower-case) is one of `names` or starts with one of `prefixes`: loops, no closure per header. */
function stripped(name: string, names: readonly string[], prefixes: readonly string[]): boolean {
  for (let i = 0; i < names.length; i++) if (names[i] === name) return true;
  for (let i = 0; i < prefixes.length; i++) if (name.startsWith(prefixes[i]!)) return true;
  return false;
}

/**
 * Removes headers (exact names and name prefixes, lower-case) from ctx.request. Incoming
 * requests on some runtimes have immutable headers; then the request is rebuilt.
 */
export function deleteRequestHeaders(ctx: RequestContext, names: readonly string[], prefixes: readonly string[]): void {
  const h = ctx.request.headers;
  let doomed: string[] | undefined;
  const raw = ctx.transport.rawHeaders;
  if (prefixes.length && !raw) {
    // The walk over the Fetch Headers that the prefixes need also finds the exact names: one
    // iteration instead of an iteration and a has() per name.
    for (const [n] of h) if (stripped(n, names, prefixes) && !doomed?.includes(n)) (doomed ??= []).push(n);
  } else {
    for (const n of names) if (knownHas(ctx, n) ?? h.has(n)) (doomed ??= []).push(n);
    // Prefixed names come from what the client sent. The raw list (when the runtime gives it)
    // is much cheaper to scan than Fetch Headers, which sort and copy on iteration.
    if (raw) {
      for (let i = 0; i < raw.length; i += 2) {
        const n = raw[i]!.toLowerCase();
        if (prefixes.some((p) => n.startsWith(p)) && !doomed?.includes(n)) (doomed ??= []).push(n);
      }
    }
  }
  if (!doomed) return;
  if (doomed.includes('authorization')) ctx.values.delete(authorizationKey);
  try {
    for (const n of doomed) h.delete(n);
    let gone = true;
    for (const n of doomed) if (h.has(n)) gone = false;
    if (gone) return;
  } catch {
    // immutable headers: fall through and rebuild
  }
  const copy = new Headers(h);
  for (const n of doomed) copy.delete(n);
  ctx.request = new Request(ctx.request, { headers: copy });
}
