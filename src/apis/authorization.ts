// authorization.k8s.io/v1: SelfSubjectAccessReview, SelfSubjectRulesReview, SubjectAccessReview
// and LocalSubjectAccessReview (kubernetes pkg/registry/authorization/*/rest.go and
// pkg/apis/authorization/validation). Create-only, nothing stored; answers are JSON.

import { Hono } from 'hono';
import type { RequestContext, UserInfo } from '../endpoints/request/context.ts';
import { StatusError, newBadRequest, type Status, type StatusCause } from '../endpoints/responsewriters/status.ts';
import type { Attributes, Authorizer, RuleResolver } from '../authorization/authorizer.ts';
import type { APIEnv } from '../server/mux/container.ts';
import type { APIGroupInfo } from '../endpoints/discovery/discovery.ts';
import {
  createdResponse,
  decodeCreateBody,
  objectMetaFields,
  type KindInfo,
  type KnownFields,
} from '../endpoints/handlers/decode.ts';
import {
  flattenExtra,
  selfSubjectAccessReviewSchema,
  selfSubjectRulesReviewSchema,
  subjectAccessReviewSchema,
} from '../util/protobuf.ts';
import { logRequestObject, logResponseObject } from '../audit/context.ts';

export const authorizationGroup = 'authorization.k8s.io';

export const authorizationAPIGroup: APIGroupInfo = {
  name: authorizationGroup,
  versions: [
    {
      version: 'v1',
      resources: [
        {
          name: 'localsubjectaccessreviews',
          singularName: 'localsubjectaccessreview',
          namespaced: true,
          kind: 'LocalSubjectAccessReview',
          verbs: ['create'],
        },
        {
          name: 'selfsubjectaccessreviews',
          singularName: 'selfsubjectaccessreview',
          namespaced: false,
          kind: 'SelfSubjectAccessReview',
          verbs: ['create'],
        },
        {
          name: 'selfsubjectrulesreviews',
          singularName: 'selfsubjectrulesreview',
          namespaced: false,
          kind: 'SelfSubjectRulesReview',
          verbs: ['create'],
        },
        {
          name: 'subjectaccessreviews',
          singularName: 'subjectaccessreview',
          namespaced: false,
          kind: 'SubjectAccessReview',
          verbs: ['create'],
        },
      ],
    },
  ],
};

const selectorFields: KnownFields = { rawSelector: true, requirements: [{ key: true, operator: true, values: true }] };
const resourceAttributesFields: KnownFields = {
  namespace: true,
  verb: true,
  group: true,
  version: true,
  resource: true,
  subresource: true,
  name: true,
  fieldSelector: selectorFields,
  labelSelector: selectorFields,
};
const nonResourceAttributesFields: KnownFields = { path: true, verb: true };
const sarStatusFields: KnownFields = { allowed: true, denied: true, reason: true, evaluationError: true };

function kindInfo(kind: string, schema: KindInfo['schema'], spec: KnownFields, status: KnownFields): KindInfo {
  return {
    group: authorizationGroup,
    version: 'v1',
    kind,
    schema,
    fields: { metadata: objectMetaFields, spec, status },
    afterProtobuf: (o) => flattenExtra(o.spec as Record<string, unknown> | undefined),
  };
}

const ssarKind = kindInfo(
  'SelfSubjectAccessReview',
  selfSubjectAccessReviewSchema,
  { resourceAttributes: resourceAttributesFields, nonResourceAttributes: nonResourceAttributesFields },
  sarStatusFields,
);
const sarSpecFields: KnownFields = {
  resourceAttributes: resourceAttributesFields,
  nonResourceAttributes: nonResourceAttributesFields,
  user: true,
  groups: true,
  extra: true,
  uid: true,
};
const sarKind = kindInfo('SubjectAccessReview', subjectAccessReviewSchema, sarSpecFields, sarStatusFields);
const lsarKind = kindInfo('LocalSubjectAccessReview', subjectAccessReviewSchema, sarSpecFields, sarStatusFields);
const ssrrKind = kindInfo(
  'SelfSubjectRulesReview',
  selfSubjectRulesReviewSchema,
  { namespace: true },
  {
    resourceRules: true,
    nonResourceRules: true,
    incomplete: true,
    evaluationError: true,
  },
);

// --- validation (pkg/apis/authorization/validation) ---

interface FieldErr {
  field: string;
  value: unknown;
  detail: string;
  type?: 'FieldValueInvalid' | 'FieldValueRequired';
}

/** field.Error's value rendering (strings quoted, structs as JSON, nil as "null"). */
function renderValue(v: unknown): string {
  if (v === undefined || v === null) return '"null"';
  if (typeof v === 'string') return JSON.stringify(v);
  return JSON.stringify(v);
}

function fieldErrorText(e: FieldErr): string {
  if (e.type === 'FieldValueRequired') return `${e.field}: Required value: ${e.detail}`;
  return `${e.field}: Invalid value: ${renderValue(e.value)}: ${e.detail}`;
}

/** apierrors.NewInvalid(GroupKind, name, errs): 422 with causes. */
function newInvalid(kind: string, name: string, errs: FieldErr[]): Status {
  const causes: StatusCause[] = errs.map((e) => ({
    reason: e.type ?? 'FieldValueInvalid',
    message: fieldErrorText(e).slice(e.field.length + 2),
    field: e.field,
  }));
  const texts = errs.map(fieldErrorText);
  const agg = texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
  return {
    status: 'Failure',
    message: `${kind}.${authorizationGroup} ${JSON.stringify(name)} is invalid: ${agg}`,
    reason: 'Invalid',
    details: { name, group: authorizationGroup, kind, causes },
    code: 422,
  };
}

type Spec = {
  resourceAttributes?: Record<string, unknown>;
  nonResourceAttributes?: Record<string, unknown>;
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
};

function validateAttributesSpec(spec: Spec, errs: FieldErr[]): void {
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    errs.push({
      field: 'spec.nonResourceAttributes',
      value: spec.nonResourceAttributes,
      detail: 'cannot be specified in combination with resourceAttributes',
    });
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    errs.push({
      field: 'spec.resourceAttributes',
      value: spec.nonResourceAttributes,
      detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified',
    });
  }
}

function metadataIsEmpty(md: unknown, allowNamespace: boolean): boolean {
  if (md === undefined || md === null) return true;
  if (typeof md !== 'object') return false;
  for (const [k, v] of Object.entries(md as Record<string, unknown>)) {
    if (k === 'managedFields' || v === null || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    if (k === 'namespace' && allowNamespace) continue;
    if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0) continue;
    return false;
  }
  return true;
}

// --- attributes (pkg/registry/authorization/util) ---

/** ResourceAttributesFrom: an empty version means every version (`*`). */
export function resourceAttributesFrom(user: UserInfo, ra: Record<string, unknown>): Attributes {
  const s = (k: string) => (typeof ra[k] === 'string' ? (ra[k] as string) : '');
  return {
    user,
    verb: s('verb'),
    isResourceRequest: true,
    path: '',
    namespace: s('namespace'),
    apiGroup: s('group'),
    apiVersion: s('version') || '*',
    resource: s('resource'),
    subresource: s('subresource'),
    name: s('name'),
  };
}

export function nonResourceAttributesFrom(user: UserInfo, nra: Record<string, unknown>): Attributes {
  const s = (k: string) => (typeof nra[k] === 'string' ? (nra[k] as string) : '');
  return {
    user,
    verb: s('verb'),
    isResourceRequest: false,
    path: s('path'),
    namespace: '',
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    name: '',
  };
}

async function review(authz: Authorizer | undefined, a: Attributes): Promise<Record<string, unknown>> {
  if (!authz) return { allowed: true };
  let r;
  try {
    r = await authz.authorize(a);
  } catch (err) {
    r = { decision: 'NoOpinion' as const, reason: '', error: err instanceof Error ? err : new Error(String(err)) };
  }
  const status: Record<string, unknown> = { allowed: r.decision === 'Allow' };
  if (r.decision === 'Deny') status.denied = true;
  if (r.reason) status.reason = r.reason;
  if (r.error) status.evaluationError = r.error.message;
  return status;
}

/** The review object as returned: request metadata (creationTimestamp null), spec, status. */
function reviewResponse(obj: Record<string, unknown>, status: Record<string, unknown>): Record<string, unknown> {
  const md =
    typeof obj.metadata === 'object' && obj.metadata !== null ? { ...(obj.metadata as Record<string, unknown>) } : {};
  if (!('creationTimestamp' in md)) md.creationTimestamp = null;
  return { kind: obj.kind, apiVersion: obj.apiVersion, metadata: md, spec: obj.spec ?? {}, status };
}

function userFrom(ctx: RequestContext): UserInfo {
  if (!ctx.user) throw new StatusError(newBadRequest('no user present on request'));
  return ctx.user;
}

export interface ReviewDeps {
  authorizer?: Authorizer;
  ruleResolver?: RuleResolver;
  maxRequestBodyBytes: number;
}

/** The routes of authorization.k8s.io/v1. */
export function authorizationRoutes(deps: ReviewDeps): Hono<APIEnv> {
  const r = new Hono<APIEnv>({ strict: false });
  const base = `/apis/${authorizationGroup}/v1`;

  r.post(`${base}/selfsubjectaccessreviews`, async (c) => {
    const ctx = c.env.ctx;
    const obj = await decodeCreateBody(ctx, ssarKind, deps.maxRequestBodyBytes);
    logRequestObject(ctx, obj);
    const spec = (obj.spec ?? {}) as Spec;
    const errs: FieldErr[] = [];
    validateAttributesSpec(spec, errs);
    if (!metadataIsEmpty(obj.metadata, false))
      errs.push({ field: 'metadata', value: obj.metadata, detail: 'must be empty' });
    if (errs.length) throw new StatusError(newInvalid('SelfSubjectAccessReview', '', errs));
    const user = userFrom(ctx);
    const attrs = spec.resourceAttributes
      ? resourceAttributesFrom(user, spec.resourceAttributes)
      : nonResourceAttributesFrom(user, spec.nonResourceAttributes!);
    const out = reviewResponse(obj, await review(deps.authorizer, attrs));
    logResponseObject(ctx, out);
    return createdResponse(ctx, out);
  });

  const sar = (namespaced: boolean) => async (ctx: RequestContext) => {
    const kind = namespaced ? lsarKind : sarKind;
    const obj = await decodeCreateBody(ctx, kind, deps.maxRequestBodyBytes);
    if (namespaced) {
      // rest.EnsureObjectNamespaceMatchesRequestNamespace, before validation.
      const ns = ctx.requestInfo?.namespace ?? '';
      const md = (obj.metadata ??= {}) as Record<string, unknown>;
      const objNS = typeof md.namespace === 'string' ? md.namespace : '';
      if (objNS === '') md.namespace = ns;
      else if (objNS !== ns)
        throw new StatusError(
          newBadRequest('the namespace of the provided object does not match the namespace sent on the request'),
        );
    }
    logRequestObject(ctx, obj);
    const spec = (obj.spec ?? {}) as Spec;
    const errs: FieldErr[] = [];
    validateAttributesSpec(spec, errs);
    if (!spec.user && !spec.groups?.length)
      errs.push({
        field: 'spec.user',
        value: spec.user ?? '',
        detail: 'at least one of user or group must be specified',
      });
    if (namespaced) {
      const mdNS = (obj.metadata as Record<string, unknown>).namespace ?? '';
      if (spec.resourceAttributes && (spec.resourceAttributes.namespace ?? '') !== mdNS) {
        errs.push({
          field: 'spec.resourceAttributes.namespace',
          value: spec.resourceAttributes.namespace ?? '',
          detail: 'must match metadata.namespace',
        });
      }
      if (spec.nonResourceAttributes)
        errs.push({
          field: 'spec.nonResourceAttributes',
          value: spec.nonResourceAttributes,
          detail: 'disallowed on this kind of request',
        });
      if (!metadataIsEmpty(obj.metadata, true))
        errs.push({ field: 'metadata', value: obj.metadata, detail: 'must be empty except for namespace' });
    } else if (!metadataIsEmpty(obj.metadata, false))
      errs.push({ field: 'metadata', value: obj.metadata, detail: 'must be empty' });
    if (errs.length) throw new StatusError(newInvalid(kind.kind, '', errs));
    const user: UserInfo = {
      name: spec.user ?? '',
      groups: spec.groups ?? [],
      extra: spec.extra ?? {},
      ...(spec.uid ? { uid: spec.uid } : {}),
    };
    const attrs = spec.resourceAttributes
      ? resourceAttributesFrom(user, spec.resourceAttributes)
      : nonResourceAttributesFrom(user, spec.nonResourceAttributes!);
    const out = reviewResponse(obj, await review(deps.authorizer, attrs));
    logResponseObject(ctx, out);
    return createdResponse(ctx, out);
  };
  r.post(`${base}/subjectaccessreviews`, (c) => sar(false)(c.env.ctx));
  r.post(`${base}/namespaces/:namespace/localsubjectaccessreviews`, (c) => sar(true)(c.env.ctx));

  r.post(`${base}/selfsubjectrulesreviews`, async (c) => {
    const ctx = c.env.ctx;
    const obj = await decodeCreateBody(ctx, ssrrKind, deps.maxRequestBodyBytes);
    logRequestObject(ctx, obj);
    const user = userFrom(ctx);
    const namespace = ((obj.spec as Record<string, unknown> | undefined)?.namespace as string | undefined) ?? '';
    if (namespace === '') throw new StatusError(newBadRequest('no namespace on request'));
    const status: Record<string, unknown> = { resourceRules: [], nonResourceRules: [], incomplete: false };
    if (deps.ruleResolver) {
      const res = await deps.ruleResolver.rulesFor(user, namespace);
      status.resourceRules = res.resourceRules.map((rr) => {
        const o: Record<string, unknown> = { verbs: rr.verbs };
        if (rr.apiGroups.length) o.apiGroups = rr.apiGroups;
        if (rr.resources.length) o.resources = rr.resources;
        if (rr.resourceNames.length) o.resourceNames = rr.resourceNames;
        return o;
      });
      status.nonResourceRules = res.nonResourceRules.map((nr) => {
        const o: Record<string, unknown> = { verbs: nr.verbs };
        if (nr.nonResourceURLs.length) o.nonResourceURLs = nr.nonResourceURLs;
        return o;
      });
      status.incomplete = res.incomplete;
      if (res.error) status.evaluationError = res.error.message;
    } else {
      status.incomplete = true;
    }
    // Upstream returns a fresh object: no spec echoed, metadata with a null creationTimestamp.
    const out = {
      kind: 'SelfSubjectRulesReview',
      apiVersion: `${authorizationGroup}/v1`,
      metadata: { creationTimestamp: null },
      spec: {},
      status,
    };
    logResponseObject(ctx, out);
    return createdResponse(ctx, out);
  });
  return r;
}
