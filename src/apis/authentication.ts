// authentication.k8s.io/v1: SelfSubjectReview (`kubectl auth whoami`) and TokenReview
// (kubernetes pkg/registry/authentication/{selfsubjectreview,tokenreview}). Create-only.

import { Hono } from 'hono';
import { newRequestContext, type RequestContext, type UserInfo } from '../endpoints/request/context.ts';
import { StatusError, newBadRequest, newInternalError } from '../endpoints/responsewriters/status.ts';
import { intersectAudiences, withAudiences, type RequestAuthenticator } from '../authentication/authenticator.ts';
import type { APIEnv } from '../server/mux/container.ts';
import type { APIGroupInfo } from '../endpoints/discovery/discovery.ts';
import { createdResponse, decodeCreateBody, objectMetaFields, type KindInfo } from '../endpoints/handlers/decode.ts';
import { selfSubjectReviewSchema, tokenReviewSchema } from '../util/protobuf.ts';
import { logRequestObject, logResponseObject } from '../audit/context.ts';

export const authenticationGroup = 'authentication.k8s.io';

export const authenticationAPIGroup: APIGroupInfo = {
  name: authenticationGroup,
  versions: [
    {
      version: 'v1',
      resources: [
        {
          name: 'selfsubjectreviews',
          singularName: 'selfsubjectreview',
          namespaced: false,
          kind: 'SelfSubjectReview',
          verbs: ['create'],
        },
        {
          name: 'tokenreviews',
          singularName: 'tokenreview',
          namespaced: false,
          kind: 'TokenReview',
          verbs: ['create'],
        },
      ],
    },
  ],
};

const userInfoFields = { username: true, uid: true, groups: true, extra: true } as const;

const ssrKind: KindInfo = {
  group: authenticationGroup,
  version: 'v1',
  kind: 'SelfSubjectReview',
  schema: selfSubjectReviewSchema,
  fields: { metadata: objectMetaFields, status: { userInfo: userInfoFields } },
};

const tokenReviewKind: KindInfo = {
  group: authenticationGroup,
  version: 'v1',
  kind: 'TokenReview',
  schema: tokenReviewSchema,
  fields: {
    metadata: objectMetaFields,
    spec: { token: true, audiences: true },
    status: { authenticated: true, user: userInfoFields, audiences: true, error: true },
  },
};

/** authentication.k8s.io UserInfo JSON (all fields omitempty). */
export function userInfoJSON(u: UserInfo): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  if (u.name) o.username = u.name;
  if (u.uid) o.uid = u.uid;
  if (u.groups?.length) o.groups = u.groups;
  if (u.extra && Object.keys(u.extra).length) o.extra = u.extra;
  return o;
}

/** metav1.Time: RFC 3339 with seconds. */
function nowRFC3339(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface AuthenticationDeps {
  /** The request authenticator TokenReview runs the token through; undefined: reviews echo back unauthenticated. */
  authenticator?: RequestAuthenticator;
  apiAudiences: string[];
  maxRequestBodyBytes: number;
}

/** The routes of authentication.k8s.io/v1. */
export function authenticationRoutes(deps: AuthenticationDeps): Hono<APIEnv> {
  const r = new Hono<APIEnv>({ strict: false });
  const base = `/apis/${authenticationGroup}/v1`;

  r.post(`${base}/selfsubjectreviews`, async (c) => {
    const ctx = c.env.ctx;
    const obj = await decodeCreateBody(ctx, ssrKind, deps.maxRequestBodyBytes);
    logRequestObject(ctx, obj);
    const user = ctx.user;
    if (!user) throw new StatusError(newBadRequest('no user present on request'));
    const out = {
      kind: 'SelfSubjectReview',
      apiVersion: `${authenticationGroup}/v1`,
      metadata: { creationTimestamp: nowRFC3339() },
      status: { userInfo: userInfoJSON(user) },
    };
    logResponseObject(ctx, out);
    return createdResponse(ctx, out);
  });

  r.post(`${base}/tokenreviews`, async (c) => {
    const ctx: RequestContext = c.env.ctx;
    const obj = await decodeCreateBody(ctx, tokenReviewKind, deps.maxRequestBodyBytes);
    const spec = (obj.spec ?? {}) as { token?: string; audiences?: string[] };
    if (!spec.token) throw new StatusError(newBadRequest('token is required for TokenReview in authentication'));
    const md = (obj.metadata ?? {}) as Record<string, unknown>;
    const out: Record<string, unknown> = {
      kind: 'TokenReview',
      apiVersion: `${authenticationGroup}/v1`,
      metadata: { ...md, ...(!('creationTimestamp' in md) ? { creationTimestamp: null } : {}) },
      spec,
      status: { user: {} },
    };
    if (!deps.authenticator) return createdResponse(ctx, out);
    // A request that carries nothing but the token.
    const fake = newRequestContext(
      new Request('https://tokenreview.invalid/', { headers: { authorization: `Bearer ${spec.token}` } }),
    );
    const auds = spec.audiences?.length ? spec.audiences : deps.apiAudiences;
    if (auds.length) withAudiences(fake, auds);
    let resp = null;
    let error: string | undefined;
    try {
      resp = await deps.authenticator.authenticateRequest(fake);
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    if (auds.length && resp && resp.audiences?.length && intersectAudiences(auds, resp.audiences).length === 0) {
      throw new StatusError(newInternalError(new Error('error validating audiences')));
    }
    const status: Record<string, unknown> = {};
    if (resp) status.authenticated = true;
    status.user = resp ? userInfoJSON(resp.user) : {};
    if (resp?.audiences?.length) status.audiences = resp.audiences;
    if (error) status.error = error;
    out.status = status;
    logResponseObject(ctx, { ...out, spec: { ...spec, token: '' } });
    return createdResponse(ctx, out);
  });
  return r;
}
