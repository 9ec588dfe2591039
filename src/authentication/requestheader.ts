// Front-proxy authentication (request/headerrequest): identity from X-Remote-* style headers,
// trusted only behind X509Verifier (a verified proxy client certificate, allowed CNs).
// Repeated header lines are separate values (headers.ts).

import type { RequestContext, UserInfo } from '../endpoints/request/context.ts';
import type { AuthenticatorResponse, RequestAuthenticator } from './authenticator.ts';
import { deleteRequestHeaders, headerNamesWithPrefix, headerValues } from './headers.ts';
import { X509Verifier, type CAProvider, type CertPool } from './x509.ts';

/** The `--requestheader-*` header names (RequestHeaderConfig). */
export interface RequestHeaderConfig {
  usernameHeaders: string[];
  uidHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
  /** `--requestheader-allowed-names`; empty allows any CN signed by the CA. */
  allowedClientNames: string[];
}

/** The generic (DelegatingAuthenticationOptions) defaults. */
export function defaultRequestHeaderConfig(): RequestHeaderConfig {
  return {
    usernameHeaders: ['x-remote-user'],
    uidHeaders: ['x-remote-uid'],
    groupHeaders: ['x-remote-group'],
    extraHeaderPrefixes: ['x-remote-extra-'],
    allowedClientNames: [],
  };
}

/** Header names and prefixes (lower-case) the filter strips from every authenticated request. */
export function requestHeaderNamesToStrip(c: RequestHeaderConfig | undefined): { names: string[]; prefixes: string[] } {
  const names = ['x-remote-user', 'x-remote-uid', 'x-remote-group'];
  const prefixes = ['x-remote-extra-'];
  if (c) {
    for (const n of [...c.usernameHeaders, ...c.uidHeaders, ...c.groupHeaders]) {
      const l = n.trim().toLowerCase();
      if (l && !names.includes(l)) names.push(l);
    }
    for (const p of c.extraHeaderPrefixes) {
      const l = p.trim().toLowerCase();
      if (l && !prefixes.includes(l)) prefixes.push(l);
    }
  }
  return { names, prefixes };
}

/** url.PathUnescape; invalid escapes keep the raw value. */
function pathUnescape(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** headerrequest.requestHeaderAuthRequestHandler (without the certificate guard). */
export class RequestHeaderAuthenticator implements RequestAuthenticator {
  private readonly c: RequestHeaderConfig;
  constructor(c: RequestHeaderConfig) {
    this.c = c;
  }
  async authenticateRequest(ctx: RequestContext): Promise<AuthenticatorResponse | null> {
    const name = firstHeaderValue(ctx, this.c.usernameHeaders);
    if (!name) return null;
    const uid = firstHeaderValue(ctx, this.c.uidHeaders);
    const groups: string[] = [];
    for (const h of this.c.groupHeaders) for (const v of headerValues(ctx, h)) if (v) groups.push(v);
    const extra: Record<string, string[]> = {};
    for (const prefix of this.c.extraHeaderPrefixes) {
      const p = prefix.toLowerCase();
      for (const header of headerNamesWithPrefix(ctx, p)) {
        const key = pathUnescape(header.slice(p.length).toLowerCase());
        for (const v of headerValues(ctx, header)) (extra[key] ??= []).push(v);
      }
    }
    const { names, prefixes } = requestHeaderNamesToStrip(this.c);
    deleteRequestHeaders(ctx, names, prefixes);
    const user: UserInfo = { name, groups };
    if (uid) user.uid = uid;
    if (Object.keys(extra).length) user.extra = extra;
    return { user };
  }
}

/** Go's h.Get semantics: the first value of the first header (in order) whose first value is non-empty. */
function firstHeaderValue(ctx: RequestContext, names: readonly string[]): string {
  for (const n of names) {
    const v = headerValues(ctx, n)[0];
    if (v) return v;
  }
  return '';
}

/** headerrequest.NewDynamicVerifyOptionsSecure: the front-proxy authenticator behind the verifier. */
export function newSecureRequestHeaderAuthenticator(
  ca: CAProvider | CertPool,
  c: RequestHeaderConfig,
): RequestAuthenticator {
  return new X509Verifier(ca, c.allowedClientNames, new RequestHeaderAuthenticator(c));
}
