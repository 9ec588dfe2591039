// FlowSchema matching (pkg/util/flowcontrol/rule.go): subjects, resource and non-resource
// rules, and the flow distinguisher.

import type { UserInfo } from '../endpoints/request/context.ts';
import type { RequestInfo } from '../endpoints/request/requestinfo.ts';
import type {
  FlowSchema,
  NonResourcePolicyRule,
  PolicyRulesWithSubjects,
  ResourcePolicyRule,
  Subject,
} from './types.ts';

const serviceAccountPrefix = 'system:serviceaccount:';

/** The request facts matching looks at (RequestDigest). */
export interface RequestDigest {
  requestInfo: RequestInfo;
  user: UserInfo;
}

export function matchesFlowSchema(digest: RequestDigest, fs: FlowSchema): boolean {
  for (const rule of fs.spec.rules ?? []) if (matchesPolicyRule(digest, rule)) return true;
  return false;
}

function matchesPolicyRule(d: RequestDigest, rule: PolicyRulesWithSubjects): boolean {
  if (!rule.subjects.some((s) => matchesSubject(d.user, s))) return false;
  if (d.requestInfo.isResourceRequest)
    return (rule.resourceRules ?? []).some((r) => matchesResourceRule(d.requestInfo, r));
  return (rule.nonResourceRules ?? []).some((r) => matchesNonResourceRule(d.requestInfo, r));
}

function matchesSubject(user: UserInfo, s: Subject): boolean {
  switch (s.kind) {
    case 'User':
      return s.user!.name === '*' || s.user!.name === user.name;
    case 'Group': {
      const g = s.group!.name;
      return g === '*' || (user.groups ?? []).includes(g);
    }
    case 'ServiceAccount': {
      const sa = s.serviceAccount!;
      if (sa.name === '*') return user.name.startsWith(`${serviceAccountPrefix}${sa.namespace}:`);
      return user.name === `${serviceAccountPrefix}${sa.namespace}:${sa.name}`;
    }
  }
  return false;
}

/** `["*"]` means all only as the sole element (upstream's containsString / hasWildcard). */
function matchesList(list: readonly string[], value: string): boolean {
  return (list.length === 1 && list[0] === '*') || list.includes(value);
}

function matchesResourceRule(ri: RequestInfo, r: ResourcePolicyRule): boolean {
  if (!matchesList(r.verbs, ri.verb)) return false;
  if (!matchesList(r.apiGroups, ri.apiGroup)) return false;
  const res = ri.subresource ? `${ri.resource}/${ri.subresource}` : ri.resource;
  if (!matchesList(r.resources, res)) return false;
  if (ri.namespace === '') return !!r.clusterScope;
  return matchesList(r.namespaces ?? [], ri.namespace);
}

function matchesNonResourceRule(ri: RequestInfo, r: NonResourcePolicyRule): boolean {
  if (!matchesList(r.verbs, ri.verb)) return false;
  for (const u of r.nonResourceURLs) {
    if (u === '*' || u === ri.path) return true;
    // A rule matches its path and anything under it: `/healthz` covers `/healthz/etcd`;
    // `/healthz/*` covers `/healthz/etcd` but not `/healthz`.
    let prefix = u.endsWith('*') ? u.slice(0, -1) : u;
    if (!prefix.endsWith('/')) prefix += '/';
    if (ri.path.startsWith(prefix)) return true;
  }
  return false;
}

/** The flow distinguisher: user name, namespace, or "" without a method. */
export function flowDistinguisher(fs: FlowSchema, d: RequestDigest): string {
  switch (fs.spec.distinguisherMethod?.type) {
    case 'ByUser':
      return d.user.name;
    case 'ByNamespace':
      return d.requestInfo.namespace;
  }
  return '';
}
