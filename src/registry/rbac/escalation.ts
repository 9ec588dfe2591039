// Escalation prevention for RBAC writes (kubernetes pkg/registry/rbac/escalation_check.go, the
// policybased storages of pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}, and
// pkg/registry/rbac/validation/rule.go ConfirmNoEscalation with Covers and CompactRules): a user
// may write a role only with rules they hold, unless allowed to `escalate` on it; a binding only
// to a role whose rules they hold, unless allowed to `bind` it. system:masters is exempt.

import type { UserInfo } from '../../endpoints/request/context.ts';
import { attributes, type Authorizer } from '../../authorization/authorizer.ts';
import { newForbidden } from '../../authorization/forbidden.ts';
import { StatusError } from '../../endpoints/responsewriters/status.ts';
import { newNotFound } from '../../endpoints/apierrors.ts';
import { goQuote } from '../../util/go.ts';
import { sameJSON } from '../../util/validation/objectmeta.ts';
import type { KubeObject } from '../generic/store.ts';
import type { AdmissionPlugin } from '../../admission/interfaces.ts';
import { rbacGroup } from './resources.ts';
import { deepCopyJSON } from '../../util/deepcopy.ts';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

/** What the checks read from the RBAC authorizer (AuthorizationRuleResolver). */
export interface RBACRuleResolver {
  /** RulesFor: every rule the user holds in the namespace (cluster-wide ones included); errors are not fatal. */
  policyRulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: Error[] };
  /** GetRoleReferenceRules; throws upstream's NotFound when the role does not exist. */
  roleReferenceRules(ref: RoleRef, bindingNamespace: string): PolicyRule[];
}

const has = (set: readonly string[] | undefined, v: string) => (set ?? []).includes(v);
const hasAll = (set: readonly string[] | undefined, vs: readonly string[] | undefined) =>
  (vs ?? []).every((v) => has(set, v));

/** BreakdownRule: one rule per (group, resource, verb[, name]) and per (URL, verb). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? [])
    for (const resource of rule.resources ?? [])
      for (const verb of rule.verbs) {
        if (rule.resourceNames?.length)
          for (const name of rule.resourceNames)
            out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
  for (const url of rule.nonResourceURLs ?? [])
    for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

function resourceCoversAll(set: readonly string[] | undefined, covers: readonly string[] | undefined): boolean {
  if (has(set, '*') || hasAll(set, covers)) return true;
  for (const path of covers ?? []) {
    if (has(set, path)) continue;
    const i = path.indexOf('/');
    if (i < 0) return false;
    if (!has(set, '*/' + path.slice(i + 1))) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, sub: string): boolean {
  return owner === sub || (owner.endsWith('*') && sub.startsWith(owner.replace(/\*+$/, '')));
}

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = (sub.nonResourceURLs ?? []).every((p) =>
    (owner.nonResourceURLs ?? []).some((o) => nonResourceURLCovers(o, p)),
  );
  const names = sub.resourceNames?.length
    ? !owner.resourceNames?.length || hasAll(owner.resourceNames, sub.resourceNames)
    : !owner.resourceNames?.length;
  return verbs && groups && resources && names && urls;
}

/** Covers: whether the owner's rules cover the servant rules, and the atomic rules they miss. */
export function covers(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): [boolean, PolicyRule[]] {
  const missing: PolicyRule[] = [];
  for (const rule of servant)
    for (const sub of breakdownRule(rule)) if (!owner.some((o) => ruleCovers(o, sub))) missing.push(sub);
  return [missing.length === 0, missing];
}

/** CompactRules: simple rules (one group, one resource, at most one name) that differ only by verb merge. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  const order: string[] = [];
  for (const r of rules) {
    const isSimple =
      (r.resourceNames?.length ?? 0) <= 1 &&
      !r.nonResourceURLs?.length &&
      r.apiGroups?.length === 1 &&
      r.resources?.length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0], r.resourceNames?.[0] ?? null]);
    const existing = simple.get(key);
    if (existing) existing.verbs = [...existing.verbs, ...r.verbs];
    else {
      simple.set(key, deepCopyJSON(r));
      order.push(key);
    }
  }
  for (const k of order) out.push(simple.get(k)!);
  return out;
}

const goQuoteList = (xs: readonly string[]) => `[${xs.map(goQuote).join(' ')}]`;

/** rbacv1helpers.CompactString. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${goQuoteList(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${goQuoteList(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuoteList(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${goQuoteList(r.resourceNames)}`);
  if (r.verbs.length) parts.push(`Verbs:${goQuoteList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** ConfirmNoEscalation: undefined when the user holds every rule, else upstream's message. */
export function confirmNoEscalation(
  resolver: RBACRuleResolver,
  user: UserInfo,
  namespace: string,
  rules: readonly PolicyRule[],
): string | undefined {
  const { rules: owner, errors } = resolver.policyRulesFor(user, namespace);
  const [ok, missing] = covers(owner, rules);
  if (ok) return undefined;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${goQuote(user.name)} (groups=${goQuoteList(user.groups ?? [])}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (errors.length) msg += `; resolution errors: [${errors.map((e) => e.message).join(' ')}]`;
  return msg;
}

/** The rules that an aggregationRule needs: everything (upstream's fullAuthority). */
const fullAuthority: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** EscalationAllowed: system:masters (the privileged loopback included) may do anything. */
export function escalationAllowed(user: UserInfo | undefined): boolean {
  return !!user?.groups?.includes('system:masters');
}

async function allowed(authorizer: Authorizer | undefined, a: Parameters<typeof attributes>[0]): Promise<boolean> {
  if (!authorizer) return false;
  try {
    return (await authorizer.authorize(attributes(a))).decision === 'Allow';
  } catch {
    return false;
  }
}

/** The RBAC write being checked. */
export interface RBACWrite {
  resource: 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings';
  namespace: string;
  name: string;
  user: UserInfo | undefined;
  object: KubeObject;
  /** The stored object on update. */
  oldObject?: KubeObject;
}

function forbidden(resource: string, name: string, message: string): StatusError {
  return new StatusError(newForbidden(rbacGroup, resource, name, message));
}

// rbacregistry.IsOnlyMutatingGCFields: ownerReferences and finalizers only.
function onlyGCFields(obj: KubeObject, old: KubeObject | undefined): boolean {
  if (!old) return false;
  const strip = (o: KubeObject) => {
    const c = deepCopyJSON(o);
    delete c.metadata.ownerReferences;
    delete c.metadata.finalizers;
    delete c.metadata.resourceVersion;
    delete c.metadata.managedFields;
    return c;
  };
  return sameJSON(strip(obj), strip(old));
}

/**
 * The policybased storages' check before a create or update; throws upstream's 403 (or the
 * role lookup's 404 for a binding to a missing role). `authorizer` answers the `escalate` and
 * `bind` questions (the server's whole authorizer, as upstream passes it).
 */
export async function checkRBACWrite(
  w: RBACWrite,
  resolver: RBACRuleResolver,
  authorizer: Authorizer | undefined,
): Promise<void> {
  const user = w.user;
  if (escalationAllowed(user) || !user) {
    if (!user) throw forbidden(w.resource, w.name, 'no user on context');
    return;
  }
  if (onlyGCFields(w.object, w.oldObject)) return;
  if (w.resource === 'roles' || w.resource === 'clusterroles') {
    const escalate = await allowed(authorizer, {
      user,
      verb: 'escalate',
      apiGroup: rbacGroup,
      apiVersion: '*',
      resource: w.resource,
      name: w.name,
      namespace: w.namespace,
      isResourceRequest: true,
    });
    if (escalate) return;
    const rules = (Array.isArray(w.object.rules) ? w.object.rules : []) as PolicyRule[];
    const msg = confirmNoEscalation(resolver, user, w.namespace, rules);
    if (msg) throw forbidden(w.resource, w.name, msg);
    if (w.resource === 'clusterroles' && (w.object.aggregationRule || w.oldObject?.aggregationRule)) {
      if (confirmNoEscalation(resolver, user, w.namespace, fullAuthority))
        throw forbidden(w.resource, w.name, 'must have cluster-admin privileges to use the aggregationRule');
    }
    return;
  }
  const ref = (w.object.roleRef ?? {}) as RoleRef;
  if (ref.kind !== 'Role' && ref.kind !== 'ClusterRole') return; // validation refuses it
  const bind = await allowed(authorizer, {
    user,
    verb: 'bind',
    apiGroup: ref.apiGroup,
    resource: ref.kind === 'Role' ? 'roles' : 'clusterroles',
    name: ref.name,
    namespace: w.namespace,
    isResourceRequest: true,
  });
  if (bind) return;
  let rules: PolicyRule[];
  try {
    rules = resolver.roleReferenceRules(ref, w.namespace);
  } catch {
    // The lister's NotFound (upstream answers it as is).
    throw newNotFound({ group: ref.apiGroup, resource: ref.kind.toLowerCase() }, ref.name);
  }
  const msg = confirmNoEscalation(resolver, user, w.namespace, rules);
  if (msg) throw forbidden(w.resource, w.name, msg);
}

const rbacWriteResources = new Set(['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings']);

/**
 * The policybased storages' check on every RBAC create and update. Upstream wraps the Store, so
 * the check runs after mutating admission and before the inner Store's strategy validation (a
 * user refused for escalation gets the 403, not the 422 of a malformed role): here it is the last
 * mutating admission step, which the REST handler runs before the Store's create and, on update,
 * inside the update loop on the patched object before the strategy (pkg/registry/rbac/role/
 * policybased/storage.go). `resolver` and `authorizer` are read per request (both are built after
 * the plugin).
 */
export function newRBACEscalationCheck(
  resolver: () => RBACRuleResolver | undefined,
  authorizer: () => Authorizer | undefined,
): AdmissionPlugin {
  return {
    name: 'RBACEscalation',
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    async admit(a) {
      if (a.resource.group !== rbacGroup || !rbacWriteResources.has(a.resource.resource) || a.subresource) return;
      const r = resolver();
      if (!r || !a.object) return;
      await checkRBACWrite(
        {
          resource: a.resource.resource as RBACWrite['resource'],
          namespace: a.namespace,
          name: a.name || a.object.metadata.name || '',
          user: a.userInfo,
          object: a.object,
          ...(a.oldObject ? { oldObject: a.oldObject } : {}),
        },
        r,
        authorizer(),
      );
    },
  };
}
