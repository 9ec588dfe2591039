// The RBAC authorizer (kubernetes/kubernetes plugin/pkg/auth/authorizer/rbac and
// pkg/registry/rbac/validation/rule.go): bindings → roles → rules, matched exactly as upstream.
// The policy is a snapshot swapped atomically on reload.

import type { UserInfo } from '../endpoints/request/context.ts';
import {
  aggregateErrors,
  type Attributes,
  type AuthorizationResult,
  type AuthorizerWithRules,
  type NonResourceRuleInfo,
  type ResourceRuleInfo,
  type RulesResult,
} from './authorizer.ts';
import { bootstrapPolicy } from './rbac-bootstrap.ts';
import {
  Policy,
  type PolicyRule,
  type RBACObject,
  type Role,
  type RoleBinding,
  type RoleRef,
  type Subject,
} from './rbac-policy.ts';
import { deepCopyJSON } from '../util/deepcopy.ts';

// --- rule matching (rbacv1helpers) ---

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of rule.verbs) if (v === '*' || v === verb) return true;
  return false;
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  for (const g of rule.apiGroups ?? []) if (g === '*' || g === group) return true;
  return false;
}

// `*`, the exact `resource[/subresource]`, or `*/<subresource>`; `pods/*` is not a wildcard.
export function resourceMatches(rule: PolicyRule, combinedResource: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combinedResource) return true;
    if (!subresource) continue;
    if (r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  if (names.length === 0) return true;
  return names.includes(name);
}

/** `*`, exact, or a trailing-`*` prefix (all trailing stars trimmed). */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

/** RuleAllows. */
export function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
  if (a.isResourceRequest) {
    const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    return (
      verbMatches(rule, a.verb) &&
      apiGroupMatches(rule, a.apiGroup) &&
      resourceMatches(rule, combined, a.subresource) &&
      resourceNameMatches(rule, a.name)
    );
  }
  return verbMatches(rule, a.verb) && nonResourceURLMatches(rule, a.path);
}

// --- subjects ---

const saPrefix = 'system:serviceaccount:';

/** appliesToUser. A ServiceAccount subject without namespace takes the binding's namespace. */
export function appliesToUser(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return (user.groups ?? []).includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      if (!ns) return false;
      return user.name === `${saPrefix}${ns}:${subject.name}`;
    }
    default:
      return false;
  }
}

function appliesTo(user: UserInfo, subjects: readonly Subject[], ns: string): number {
  for (let i = 0; i < subjects.length; i++) if (appliesToUser(user, subjects[i]!, ns)) return i;
  return -1;
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}

const described = new WeakMap<Subject, string>();

/** clusterRoleBindingDescriber / roleBindingDescriber String(), memoised per (immutable) subject. */
export function describeBinding(b: RoleBinding, subject: Subject): string {
  let d = described.get(subject);
  if (d === undefined) described.set(subject, (d = describeBindingUncached(b, subject)));
  return d;
}

function describeBindingUncached(b: RoleBinding, subject: Subject): string {
  if (b.kind === 'ClusterRoleBinding') {
    return `ClusterRoleBinding ${JSON.stringify(b.metadata.name)} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(subject, '')}`;
  }
  const ns = b.metadata.namespace ?? '';
  return `RoleBinding ${JSON.stringify(`${b.metadata.name}/${ns}`)} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(subject, ns)}`;
}

function roleRules(policy: Policy, ref: RoleRef, bindingNamespace: string): PolicyRule[] | Error {
  switch (ref.kind) {
    case 'Role': {
      const r = policy.roles.get(bindingNamespace)?.get(ref.name);
      return r ? r.rules : new Error(`role.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found`);
    }
    case 'ClusterRole': {
      const r = policy.clusterRoles.get(ref.name);
      return r ? r.rules : new Error(`clusterrole.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found`);
    }
    default:
      return new Error(`unsupported role reference kind: ${JSON.stringify(ref.kind)}`);
  }
}

/** Visitor: return false to stop. `source` describes the binding (for the allow reason). */
type Visitor = (source: (() => string) | undefined, rule: PolicyRule | undefined, err: Error | undefined) => boolean;

/** DefaultRuleResolver.VisitRulesFor: ClusterRoleBindings, then RoleBindings in `namespace`. */
export function visitRulesFor(policy: Policy, user: UserInfo, namespace: string, visitor: Visitor): void {
  for (const b of policy.clusterRoleBindings) {
    const i = appliesTo(user, b.subjects, '');
    if (i < 0) continue;
    const rules = roleRules(policy, b.roleRef, '');
    if (rules instanceof Error) {
      if (!visitor(undefined, undefined, rules)) return;
      continue;
    }
    const source = () => describeBinding(b, b.subjects[i]!);
    for (const r of rules) if (!visitor(source, r, undefined)) return;
  }
  if (!namespace) return;
  for (const b of policy.roleBindings.get(namespace) ?? []) {
    const i = appliesTo(user, b.subjects, namespace);
    if (i < 0) continue;
    const rules = roleRules(policy, b.roleRef, namespace);
    if (rules instanceof Error) {
      if (!visitor(undefined, undefined, rules)) return;
      continue;
    }
    const source = () => describeBinding(b, b.subjects[i]!);
    for (const r of rules) if (!visitor(source, r, undefined)) return;
  }
}

// --- reconciliation with the bootstrap policy ---

function objectKey(o: RBACObject): string {
  return `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}

const ruleKey = (r: PolicyRule) =>
  JSON.stringify([r.verbs, r.apiGroups ?? [], r.resources ?? [], r.resourceNames ?? [], r.nonResourceURLs ?? []]);
const subjectKey = (s: Subject) => JSON.stringify([s.kind, s.apiGroup ?? '', s.name, s.namespace ?? '']);

/**
 * Like upstream's bootstrap reconciliation: a manifest object with a bootstrap name keeps its own
 * content and gains the missing bootstrap rules/subjects, unless it is annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "false"` (then it replaces the default as is).
 */
export function reconcileWithBootstrap(
  objects: readonly RBACObject[],
  bootstrap: readonly RBACObject[] = bootstrapPolicy(),
): RBACObject[] {
  const out = new Map<string, RBACObject>();
  for (const b of bootstrap) out.set(objectKey(b), b);
  for (const o of objects) {
    const key = objectKey(o);
    const def = out.get(key);
    if (
      !def ||
      !bootstrap.includes(def) ||
      o.metadata.annotations?.['rbac.authorization.kubernetes.io/autoupdate'] === 'false'
    ) {
      out.set(key, o);
      continue;
    }
    if (o.kind === 'Role' || o.kind === 'ClusterRole') {
      const d = def as Role;
      const have = new Set(o.rules.map(ruleKey));
      out.set(key, {
        ...o,
        rules: [...o.rules, ...d.rules.filter((r) => !have.has(ruleKey(r)))],
        ...(d.aggregationRule && !o.aggregationRule ? { aggregationRule: d.aggregationRule } : {}),
      });
    } else {
      const d = def as RoleBinding;
      const b = o as RoleBinding;
      const have = new Set(b.subjects.map(subjectKey));
      out.set(key, {
        ...b,
        roleRef: d.roleRef,
        subjects: [...b.subjects, ...d.subjects.filter((s) => !have.has(subjectKey(s)))],
      });
    }
  }
  return [...out.values()];
}

// --- the authorizer ---

/** A binding's role does not exist (the lister's NotFound). */
export class RoleNotFoundError extends Error {
  readonly ref: RoleRef;
  constructor(ref: RoleRef, message: string) {
    super(message);
    this.name = 'RoleNotFoundError';
    this.ref = ref;
  }
}

export class RBACAuthorizer implements AuthorizerWithRules {
  private current: Policy;

  /** `objects` are the manifests' objects; the bootstrap policy is merged in unless `bootstrap` is false. */
  constructor(objects: readonly RBACObject[] = [], options: { bootstrap?: boolean } = {}) {
    this.bootstrap = options.bootstrap !== false;
    this.current = this.build(objects);
  }

  private bootstrap: boolean;
  private source: (() => Policy) | undefined;

  private build(objects: readonly RBACObject[]): Policy {
    // Deep copy: aggregation rewrites ClusterRole rules in place.
    const copy = deepCopyJSON(this.bootstrap ? reconcileWithBootstrap(objects) : [...objects]) as RBACObject[];
    return Policy.from(copy);
  }

  /** Replaces the policy atomically (manifest reload). */
  setObjects(objects: readonly RBACObject[]): void {
    this.current = this.build(objects);
  }

  /**
   * Reads the policy from `source` from now on (the RBAC objects in storage, through the watch
   * cache: src/registry/rbac/policy-source.ts); manifests and the built-in bootstrap policy no
   * longer apply here (they are objects in storage then).
   */
  useSource(source: () => Policy): void {
    this.bootstrap = false;
    this.source = source;
  }

  /** RulesFor as PolicyRules (escalation checks); errors are not fatal. */
  policyRulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: Error[] } {
    const rules: PolicyRule[] = [];
    const errors: Error[] = [];
    visitRulesFor(this.policy, user, namespace, (_s, rule, err) => {
      if (rule) rules.push(rule);
      if (err) errors.push(err);
      return true;
    });
    return { rules, errors };
  }

  /** GetRoleReferenceRules: the rules of a binding's roleRef; throws upstream's not-found error. */
  roleReferenceRules(ref: RoleRef, bindingNamespace: string): PolicyRule[] {
    const r = roleRules(this.policy, ref, bindingNamespace);
    if (r instanceof Error) throw new RoleNotFoundError(ref, r.message);
    return r;
  }

  get policy(): Policy {
    return this.source ? this.source() : this.current;
  }

  authorize(a: Attributes): AuthorizationResult {
    const user = a.user ?? { name: '' };
    let allowedBy: string | undefined;
    let errors: Error[] | undefined;
    visitRulesFor(this.policy, user, a.namespace, (source, rule, err) => {
      if (rule && ruleAllows(a, rule)) {
        allowedBy = source!();
        return false;
      }
      if (err) (errors ??= []).push(err);
      return true;
    });
    if (allowedBy !== undefined) return { decision: 'Allow', reason: `RBAC: allowed by ${allowedBy}` };
    return { decision: 'NoOpinion', reason: errors ? `RBAC: ${aggregateErrors(errors)!.message}` : '' };
  }

  async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    const resourceRules: ResourceRuleInfo[] = [];
    const nonResourceRules: NonResourceRuleInfo[] = [];
    const errors: Error[] = [];
    visitRulesFor(this.policy, user, namespace, (_s, rule, err) => {
      if (rule) {
        if (rule.resources?.length) {
          resourceRules.push({
            verbs: rule.verbs,
            apiGroups: rule.apiGroups ?? [],
            resources: rule.resources,
            resourceNames: rule.resourceNames ?? [],
          });
        }
        if (rule.nonResourceURLs?.length)
          nonResourceRules.push({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs });
      }
      if (err) errors.push(err);
      return true;
    });
    const error = aggregateErrors(errors);
    return error
      ? { resourceRules, nonResourceRules, incomplete: false, error }
      : { resourceRules, nonResourceRules, incomplete: false };
  }
}
