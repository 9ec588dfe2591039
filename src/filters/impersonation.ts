// WithImpersonation, the legacy filter (k8s.io/apiserver/pkg/endpoints/filters/impersonation.go).
// Every requested identity (user or service account,
// each group, each extra value, the uid) must be allowed verb `impersonate`; the impersonated
// user then replaces ctx.user (groups are not inherited) and the Impersonate-* headers are removed.

import type { Handler, RequestContext, UserInfo } from '../endpoints/request/context.ts';
import { internalError, newBadRequest, respondWithError } from '../endpoints/responsewriters/status.ts';
import { attributes, type Attributes, type Authorizer } from '../authorization/authorizer.ts';
import { forbidden } from '../authorization/forbidden.ts';
import { deleteRequestHeaders, headerNamesWithPrefix, headerValues } from '../authentication/headers.ts';
import type { Logger } from '../util/logger.ts';
import { logImpersonatedUser } from '../audit/context.ts';

export const impersonateUserHeader = 'Impersonate-User';
export const impersonateUIDHeader = 'Impersonate-Uid';
export const impersonateGroupHeader = 'Impersonate-Group';
export const impersonateUserExtraHeaderPrefix = 'Impersonate-Extra-';

/** v1.ObjectReference as the legacy filter builds it (field order matters for the 400 text). */
interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  namespace: string;
  name: string;
  apiVersion: string;
  fieldPath: string;
}

/** Go's %v of an ObjectReference: `{Kind Namespace Name UID APIVersion ResourceVersion FieldPath}`. */
function goFormat(r: ImpersonationRequest): string {
  return `{${r.kind} ${r.namespace} ${r.name}  ${r.apiVersion}  ${r.fieldPath}}`;
}

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** serviceaccount.SplitUsername: `system:serviceaccount:<ns>:<name>` with a valid namespace and name. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  const prefix = 'system:serviceaccount:';
  if (!username.startsWith(prefix)) return undefined;
  const parts = username.slice(prefix.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (namespace.length > 63 || !dnsLabel.test(namespace)) return undefined;
  if (name.length > 253 || !dnsSubdomain.test(name)) return undefined;
  return { namespace, name };
}

/** unescapeExtraKey: url.PathUnescape, keeping the raw key when an escape is invalid. */
export function unescapeExtraKey(encoded: string): string {
  if (!encoded.includes('%')) return encoded;
  if (/%(?![0-9a-fA-F]{2})/.test(encoded)) return encoded;
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    if (encoded[i] === '%') {
      bytes.push(Number.parseInt(encoded.slice(i + 1, i + 3), 16));
      i += 2;
    } else for (const b of new TextEncoder().encode(encoded[i]!)) bytes.push(b);
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** buildImpersonationRequests; a string is the 400 message. */
export function buildImpersonationRequests(ctx: RequestContext): ImpersonationRequest[] | string {
  const reqs: ImpersonationRequest[] = [];
  const requestedUser = headerValues(ctx, impersonateUserHeader)[0] ?? '';
  const hasUser = requestedUser.length > 0;
  if (hasUser) {
    const sa = splitServiceAccountUsername(requestedUser);
    if (sa)
      reqs.push({ kind: 'ServiceAccount', namespace: sa.namespace, name: sa.name, apiVersion: '', fieldPath: '' });
    else reqs.push({ kind: 'User', namespace: '', name: requestedUser, apiVersion: '', fieldPath: '' });
  }
  const groups = headerValues(ctx, impersonateGroupHeader);
  for (const g of groups) reqs.push({ kind: 'Group', namespace: '', name: g, apiVersion: '', fieldPath: '' });
  const extraHeaders = headerNamesWithPrefix(ctx, impersonateUserExtraHeaderPrefix);
  for (const h of extraHeaders) {
    const key = unescapeExtraKey(h.slice(impersonateUserExtraHeaderPrefix.length).toLowerCase());
    for (const v of headerValues(ctx, h))
      reqs.push({ kind: 'UserExtra', namespace: '', name: v, apiVersion: 'authentication.k8s.io/v1', fieldPath: key });
  }
  const uid = headerValues(ctx, impersonateUIDHeader)[0] ?? '';
  if (uid) reqs.push({ kind: 'UID', namespace: '', name: uid, apiVersion: 'authentication.k8s.io/v1', fieldPath: '' });
  if ((groups.length > 0 || extraHeaders.length > 0 || uid) && !hasUser) {
    return `requested [${reqs.map(goFormat).join(' ')}] without impersonating a user`;
  }
  return reqs;
}

/** Whether any `Impersonate-*` header is present (one pass; most requests have none). */
function hasImpersonationHeaders(ctx: RequestContext): boolean {
  const raw = ctx.transport.rawHeaders;
  if (raw) {
    for (let i = 0; i < raw.length; i += 2) {
      const n = raw[i]!;
      if (n.length > 12 && (n.charCodeAt(0) | 0x20) === 0x69 /* i */ && n.slice(0, 12).toLowerCase() === 'impersonate-')
        return true;
    }
    return false;
  }
  for (const [n] of ctx.request.headers) if (n.startsWith('impersonate-')) return true;
  return false;
}

/** What WithImpersonation reads (the server Config's field names). */
export interface ImpersonationFilterConfig {
  /** Asked `impersonate` for every requested identity; without one every impersonation is forbidden. */
  authorization: { authorizer?: Authorizer };
  logger: Logger;
}

/**
 * Lets an authorized user act as another (`Impersonate-User`, `-Group`, `-Uid`, `-Extra-*`); runs after
 * authentication, before authorization.
 *
 * @example
 * ```ts
 * app.use(honoMiddleware(withImpersonation, { authorization: { authorizer }, logger }));
 * ```
 */
export function withImpersonation(next: Handler, c: ImpersonationFilterConfig): Handler {
  const authz = c.authorization.authorizer;
  const logger = c.logger;
  // Most requests impersonate nobody: they go straight to next, without an async layer
  // (each one costs every request a Promise and microtasks).
  const impersonate = async (ctx: RequestContext): Promise<Response> => {
    const reqs = buildImpersonationRequests(ctx);
    if (typeof reqs === 'string') {
      logger.info(reqs, undefined, 4);
      return respondWithError(newBadRequest(reqs), ctx.request, ctx.url);
    }
    if (reqs.length === 0) return next(ctx);
    const requestor = ctx.user;
    if (!requestor) return internalError(ctx.request, new Error('no user found for request'), ctx.url);

    const groupsSpecified = headerValues(ctx, impersonateGroupHeader).length > 0;
    let username = '';
    let groups: string[] = [];
    const extra: Record<string, string[]> = {};
    let uid = '';
    for (const r of reqs) {
      const a: Attributes = attributes({
        user: requestor,
        verb: 'impersonate',
        apiGroup: r.apiVersion ? 'authentication.k8s.io' : '',
        apiVersion: r.apiVersion ? 'v1' : '',
        namespace: r.namespace,
        name: r.name,
        isResourceRequest: true,
      });
      switch (r.kind) {
        case 'ServiceAccount':
          a.resource = 'serviceaccounts';
          username = `system:serviceaccount:${r.namespace}:${r.name}`;
          if (!groupsSpecified) groups = ['system:serviceaccounts', `system:serviceaccounts:${r.namespace}`];
          break;
        case 'User':
          a.resource = 'users';
          username = r.name;
          break;
        case 'Group':
          a.resource = 'groups';
          groups.push(r.name);
          break;
        case 'UserExtra':
          a.resource = 'userextras';
          a.subresource = r.fieldPath;
          (extra[r.fieldPath] ??= []).push(r.name);
          break;
        case 'UID':
          a.resource = 'uids';
          uid = r.name;
          break;
      }
      let decision;
      let reason = '';
      let error: Error | undefined;
      if (authz) {
        try {
          ({ decision, reason, error } = await authz.authorize(a));
        } catch (err) {
          error = err instanceof Error ? err : new Error(String(err));
        }
      } else {
        // Upstream always has an authorizer here; without one, impersonation cannot be checked.
        decision = 'NoOpinion';
      }
      if (error || decision !== 'Allow') {
        logger.info('Forbidden', { URI: ctx.url.pathname + ctx.url.search, reason, err: error?.message }, 4);
        return forbidden(a, reason, ctx.request, ctx.url);
      }
    }

    if (username !== 'system:anonymous') {
      if (!groups.includes('system:authenticated') && !groups.includes('system:unauthenticated'))
        groups.push('system:authenticated');
    } else if (!groups.includes('system:unauthenticated')) groups.push('system:unauthenticated');

    const newUser: UserInfo = { name: username, groups, extra };
    if (uid) newUser.uid = uid;
    logger.info(`${requestor.name} is impersonating ${username}`, undefined, 3);
    ctx.user = newUser;
    logImpersonatedUser(ctx, newUser);
    deleteRequestHeaders(ctx, ['impersonate-user', 'impersonate-group', 'impersonate-uid'], ['impersonate-extra-']);
    return next(ctx);
  };
  return (ctx) => (hasImpersonationHeaders(ctx) ? impersonate(ctx) : next(ctx));
}
