// RBAC objects (rbac.authorization.k8s.io/v1) read from Kubernetes manifests: multi-document
// YAML or JSON, `kind: List`, validated as the API server validates them (pkg/apis/rbac/validation),
// with errors reported as `file:line: message`. The result is a Policy snapshot the authorizer reads.

import { LineCounter, parseAllDocuments, type Document } from 'yaml';
import { appendAll } from '../util/append.ts';

export const rbacGroup = 'rbac.authorization.k8s.io';
export const rbacAPIVersion = 'rbac.authorization.k8s.io/v1';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface Role {
  kind: 'Role' | 'ClusterRole';
  metadata: ObjectMeta;
  rules: PolicyRule[];
  aggregationRule?: { clusterRoleSelectors?: LabelSelector[] };
}

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface RoleBinding {
  kind: 'RoleBinding' | 'ClusterRoleBinding';
  metadata: ObjectMeta;
  subjects: Subject[];
  roleRef: RoleRef;
}

export type RBACObject = Role | RoleBinding;

/** An immutable policy snapshot: the authorizer swaps whole snapshots on reload. */
export class Policy {
  readonly clusterRoles = new Map<string, Role>();
  /** namespace → name → Role */
  readonly roles = new Map<string, Map<string, Role>>();
  /** Sorted by name (upstream lists from an informer cache; order only affects the reason text). */
  clusterRoleBindings: RoleBinding[] = [];
  /** namespace → bindings sorted by name */
  readonly roleBindings = new Map<string, RoleBinding[]>();

  /** `aggregate: false` when a controller keeps aggregated ClusterRoles' rules (objects are then only read). */
  static from(objects: readonly RBACObject[], options: { aggregate?: boolean } = {}): Policy {
    const p = new Policy();
    const crbs = new Map<string, RoleBinding>();
    const rbs = new Map<string, Map<string, RoleBinding>>();
    for (const o of objects) {
      switch (o.kind) {
        case 'ClusterRole':
          p.clusterRoles.set(o.metadata.name, o);
          break;
        case 'Role': {
          const ns = o.metadata.namespace!;
          let m = p.roles.get(ns);
          if (!m) p.roles.set(ns, (m = new Map()));
          m.set(o.metadata.name, o);
          break;
        }
        case 'ClusterRoleBinding':
          crbs.set(o.metadata.name, o);
          break;
        case 'RoleBinding': {
          const ns = o.metadata.namespace!;
          let m = rbs.get(ns);
          if (!m) rbs.set(ns, (m = new Map()));
          m.set(o.metadata.name, o);
          break;
        }
      }
    }
    const byName = (a: RoleBinding, b: RoleBinding) =>
      a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
    p.clusterRoleBindings = [...crbs.values()].sort(byName);
    for (const [ns, m] of rbs) p.roleBindings.set(ns, [...m.values()].sort(byName));
    if (options.aggregate !== false) aggregateClusterRoles(p.clusterRoles);
    return p;
  }

  /** Every object, cluster-scoped first (for tests and debugging). */
  objects(): RBACObject[] {
    const out: RBACObject[] = [...this.clusterRoles.values(), ...this.clusterRoleBindings];
    for (const m of this.roles.values()) appendAll(out, m.values());
    for (const l of this.roleBindings.values()) appendAll(out, l);
    return out;
  }
}

// --- aggregation (pkg/controller/clusterroleaggregation) ---

/** metav1.LabelSelectorAsSelector(...).Matches(labels). An empty selector matches everything. */
export function labelSelectorMatches(sel: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const r of sel.matchExpressions ?? []) {
    const has = Object.hasOwn(l, r.key);
    switch (r.operator) {
      case 'In':
        if (!has || !(r.values ?? []).includes(l[r.key]!)) return false;
        break;
      case 'NotIn':
        if (has && (r.values ?? []).includes(l[r.key]!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
    }
  }
  return true;
}

function ruleKey(r: PolicyRule): string {
  return JSON.stringify([
    r.verbs,
    r.apiGroups ?? [],
    r.resources ?? [],
    r.resourceNames ?? [],
    r.nonResourceURLs ?? [],
  ]);
}

/**
 * The aggregation controller: an aggregated ClusterRole's rules become the union of the rules of
 * every other ClusterRole matching any selector (selectors in order, roles by name, duplicates
 * dropped). Repeated until stable so aggregated roles can feed one another.
 */
export function aggregateClusterRoles(clusterRoles: Map<string, Role>): void {
  const aggregated = [...clusterRoles.values()].filter((r) => r.aggregationRule);
  if (aggregated.length === 0) return;
  const names = [...clusterRoles.keys()].sort();
  for (let round = 0; round < 10; round++) {
    let changed = false;
    for (const role of aggregated) {
      const rules: PolicyRule[] = [];
      const seen = new Set<string>();
      for (const sel of role.aggregationRule!.clusterRoleSelectors ?? []) {
        for (const name of names) {
          if (name === role.metadata.name) continue;
          const other = clusterRoles.get(name)!;
          if (!labelSelectorMatches(sel, other.metadata.labels)) continue;
          for (const r of other.rules) {
            const k = ruleKey(r);
            if (!seen.has(k)) {
              seen.add(k);
              rules.push(r);
            }
          }
        }
      }
      if (rules.map(ruleKey).join('\n') !== role.rules.map(ruleKey).join('\n')) {
        role.rules = rules;
        changed = true;
      }
    }
    if (!changed) return;
  }
}

// --- manifest parsing and validation ---

export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestError';
  }
}

type Path = (string | number)[];

interface FieldError {
  path: Path;
  message: string;
}

function fieldPath(p: Path): string {
  let s = '';
  for (const seg of p) s += typeof seg === 'number' ? `[${seg}]` : s ? `.${seg}` : seg;
  return s;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function stringList(v: unknown, path: Path, errs: FieldError[]): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    errs.push({ path, message: `${fieldPath(path)}: Invalid value: expected a list of strings` });
    return undefined;
  }
  return v as string[];
}

function stringMap(v: unknown, path: Path, errs: FieldError[]): Record<string, string> | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObj(v) || Object.values(v).some((x) => typeof x !== 'string')) {
    errs.push({ path, message: `${fieldPath(path)}: Invalid value: expected a map of strings` });
    return undefined;
  }
  return v as Record<string, string>;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

const objectFields: Record<string, Set<string>> = {
  Role: new Set(['apiVersion', 'kind', 'metadata', 'rules']),
  ClusterRole: new Set(['apiVersion', 'kind', 'metadata', 'rules', 'aggregationRule']),
  RoleBinding: new Set(['apiVersion', 'kind', 'metadata', 'subjects', 'roleRef']),
  ClusterRoleBinding: new Set(['apiVersion', 'kind', 'metadata', 'subjects', 'roleRef']),
};
const ruleFields = new Set(['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs']);
const subjectFields = new Set(['kind', 'apiGroup', 'name', 'namespace']);

function unknownFields(o: Record<string, unknown>, allowed: Set<string>, path: Path, errs: FieldError[]): void {
  for (const k of Object.keys(o)) {
    if (!allowed.has(k))
      errs.push({ path: [...path, k], message: `unknown field ${JSON.stringify(fieldPath([...path, k]))}` });
  }
}

function validateRules(raw: unknown, namespaced: boolean, errs: FieldError[]): PolicyRule[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    errs.push({ path: ['rules'], message: 'rules: Invalid value: expected a list' });
    return [];
  }
  const rules: PolicyRule[] = [];
  raw.forEach((r, i) => {
    const p: Path = ['rules', i];
    if (!isObj(r)) {
      errs.push({ path: p, message: `${fieldPath(p)}: Invalid value: expected an object` });
      return;
    }
    unknownFields(r, ruleFields, p, errs);
    const rule: PolicyRule = { verbs: stringList(r.verbs, [...p, 'verbs'], errs) ?? [] };
    const apiGroups = stringList(r.apiGroups, [...p, 'apiGroups'], errs);
    const resources = stringList(r.resources, [...p, 'resources'], errs);
    const resourceNames = stringList(r.resourceNames, [...p, 'resourceNames'], errs);
    const nonResourceURLs = stringList(r.nonResourceURLs, [...p, 'nonResourceURLs'], errs);
    if (apiGroups) rule.apiGroups = apiGroups;
    if (resources) rule.resources = resources;
    if (resourceNames) rule.resourceNames = resourceNames;
    if (nonResourceURLs) rule.nonResourceURLs = nonResourceURLs;
    // ValidatePolicyRule, with upstream's wording.
    if (rule.verbs.length === 0)
      errs.push({
        path: [...p, 'verbs'],
        message: `${fieldPath([...p, 'verbs'])}: Required value: verbs must contain at least one value`,
      });
    if (nonResourceURLs?.length) {
      if (namespaced) {
        errs.push({
          path: [...p, 'nonResourceURLs'],
          message: `${fieldPath([...p, 'nonResourceURLs'])}: Invalid value: ${JSON.stringify(nonResourceURLs)}: namespaced rules cannot apply to non-resource URLs`,
        });
      }
      if (apiGroups?.length || resources?.length) {
        errs.push({
          path: [...p, 'nonResourceURLs'],
          message: `${fieldPath([...p, 'nonResourceURLs'])}: Invalid value: ${JSON.stringify(nonResourceURLs)}: rules cannot apply to both regular resources and non-resource URLs`,
        });
      }
    } else {
      if (!apiGroups?.length)
        errs.push({
          path: [...p, 'apiGroups'],
          message: `${fieldPath([...p, 'apiGroups'])}: Required value: resource rules must supply at least one api group`,
        });
      if (!resources?.length)
        errs.push({
          path: [...p, 'resources'],
          message: `${fieldPath([...p, 'resources'])}: Required value: resource rules must supply at least one resource`,
        });
    }
    rules.push(rule);
  });
  return rules;
}

function validateSelectors(raw: unknown, errs: FieldError[]): LabelSelector[] {
  const base: Path = ['aggregationRule', 'clusterRoleSelectors'];
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    errs.push({ path: base, message: `${fieldPath(base)}: Invalid value: expected a list` });
    return [];
  }
  return raw.map((s, i) => {
    const p: Path = [...base, i];
    if (!isObj(s)) {
      errs.push({ path: p, message: `${fieldPath(p)}: Invalid value: expected a label selector` });
      return {};
    }
    const sel: LabelSelector = {};
    const ml = stringMap(s.matchLabels, [...p, 'matchLabels'], errs);
    if (ml) sel.matchLabels = ml;
    if (Array.isArray(s.matchExpressions)) {
      sel.matchExpressions = s.matchExpressions.map((e, j) => {
        const ep: Path = [...p, 'matchExpressions', j];
        const op = isObj(e) ? e.operator : undefined;
        if (op !== 'In' && op !== 'NotIn' && op !== 'Exists' && op !== 'DoesNotExist') {
          errs.push({
            path: [...ep, 'operator'],
            message: `${fieldPath([...ep, 'operator'])}: Invalid value: ${JSON.stringify(op ?? '')}: not a valid selector operator`,
          });
        }
        const values = isObj(e) ? stringList(e.values, [...ep, 'values'], errs) : undefined;
        if ((op === 'In' || op === 'NotIn') && !values?.length)
          errs.push({
            path: [...ep, 'values'],
            message: `${fieldPath([...ep, 'values'])}: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`,
          });
        if ((op === 'Exists' || op === 'DoesNotExist') && values?.length)
          errs.push({
            path: [...ep, 'values'],
            message: `${fieldPath([...ep, 'values'])}: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`,
          });
        return {
          key: isObj(e) ? str(e.key) : '',
          operator: op as LabelSelectorRequirement['operator'],
          ...(values ? { values } : {}),
        };
      });
    }
    return sel;
  });
}

function validateSubjects(raw: unknown, clusterScoped: boolean, errs: FieldError[]): Subject[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    errs.push({ path: ['subjects'], message: 'subjects: Invalid value: expected a list' });
    return [];
  }
  return raw.map((s, i) => {
    const p: Path = ['subjects', i];
    if (!isObj(s)) {
      errs.push({ path: p, message: `${fieldPath(p)}: Invalid value: expected an object` });
      return { kind: '', name: '' };
    }
    unknownFields(s, subjectFields, p, errs);
    const subject: Subject = { kind: str(s.kind), name: str(s.name) };
    if (typeof s.apiGroup === 'string') subject.apiGroup = s.apiGroup;
    if (typeof s.namespace === 'string' && s.namespace) subject.namespace = s.namespace;
    // ValidateRoleBindingSubject.
    if (!subject.name) errs.push({ path: [...p, 'name'], message: `${fieldPath([...p, 'name'])}: Required value` });
    switch (subject.kind) {
      case 'ServiceAccount':
        if (subject.apiGroup)
          errs.push({
            path: [...p, 'apiGroup'],
            message: `${fieldPath([...p, 'apiGroup'])}: Unsupported value: ${JSON.stringify(subject.apiGroup)}: supported values: ""`,
          });
        if (clusterScoped && !subject.namespace)
          errs.push({ path: [...p, 'namespace'], message: `${fieldPath([...p, 'namespace'])}: Required value` });
        break;
      case 'User':
      case 'Group':
        if (subject.apiGroup !== rbacGroup)
          errs.push({
            path: [...p, 'apiGroup'],
            message: `${fieldPath([...p, 'apiGroup'])}: Unsupported value: ${JSON.stringify(subject.apiGroup ?? '')}: supported values: "${rbacGroup}"`,
          });
        break;
      default:
        errs.push({
          path: [...p, 'kind'],
          message: `${fieldPath([...p, 'kind'])}: Unsupported value: ${JSON.stringify(subject.kind)}: supported values: "ServiceAccount", "User", "Group"`,
        });
    }
    return subject;
  });
}

/** Validates one decoded object; returns it or collects errors. */
function toRBACObject(o: Record<string, unknown>, errs: FieldError[]): RBACObject | undefined {
  const kind = str(o.kind);
  if (!(kind in objectFields)) {
    errs.push({
      path: ['kind'],
      message: `kind: Unsupported value: ${JSON.stringify(kind)}: supported values: "Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding", "List"`,
    });
    return undefined;
  }
  if (o.apiVersion !== rbacAPIVersion) {
    errs.push({
      path: ['apiVersion'],
      message: `apiVersion: Unsupported value: ${JSON.stringify(str(o.apiVersion))}: supported values: "${rbacAPIVersion}"`,
    });
  }
  unknownFields(o, objectFields[kind]!, [], errs);
  const md = isObj(o.metadata) ? o.metadata : {};
  const metadata: ObjectMeta = { name: str(md.name) };
  if (!metadata.name)
    errs.push({ path: ['metadata'], message: 'metadata.name: Required value: name or generateName is required' });
  const namespaced = kind === 'Role' || kind === 'RoleBinding';
  if (namespaced) metadata.namespace = str(md.namespace) || 'default';
  else if (str(md.namespace))
    errs.push({ path: ['metadata', 'namespace'], message: 'metadata.namespace: Forbidden: not allowed on this type' });
  const labels = stringMap(md.labels, ['metadata', 'labels'], errs);
  if (labels) metadata.labels = labels;
  const annotations = stringMap(md.annotations, ['metadata', 'annotations'], errs);
  if (annotations) metadata.annotations = annotations;

  if (kind === 'Role' || kind === 'ClusterRole') {
    const role: Role = { kind: kind as Role['kind'], metadata, rules: validateRules(o.rules, namespaced, errs) };
    if (kind === 'ClusterRole' && isObj(o.aggregationRule)) {
      role.aggregationRule = { clusterRoleSelectors: validateSelectors(o.aggregationRule.clusterRoleSelectors, errs) };
    }
    return role;
  }
  const rr = isObj(o.roleRef) ? o.roleRef : undefined;
  const roleRef: RoleRef = { apiGroup: str(rr?.apiGroup), kind: str(rr?.kind), name: str(rr?.name) };
  if (!rr) errs.push({ path: ['roleRef'], message: 'roleRef: Required value' });
  else {
    if (roleRef.apiGroup !== rbacGroup)
      errs.push({
        path: ['roleRef', 'apiGroup'],
        message: `roleRef.apiGroup: Unsupported value: ${JSON.stringify(roleRef.apiGroup)}: supported values: "${rbacGroup}"`,
      });
    const kinds = kind === 'ClusterRoleBinding' ? ['ClusterRole'] : ['Role', 'ClusterRole'];
    if (!kinds.includes(roleRef.kind))
      errs.push({
        path: ['roleRef', 'kind'],
        message: `roleRef.kind: Unsupported value: ${JSON.stringify(roleRef.kind)}: supported values: ${kinds.map((k) => JSON.stringify(k)).join(', ')}`,
      });
    if (!roleRef.name) errs.push({ path: ['roleRef', 'name'], message: 'roleRef.name: Required value' });
  }
  return {
    kind: kind as RoleBinding['kind'],
    metadata,
    subjects: validateSubjects(o.subjects, kind === 'ClusterRoleBinding', errs),
    roleRef,
  };
}

/**
 * Parses a manifest file (YAML stream or JSON). Throws ManifestError listing every problem as
 * `<file>:<line>: <message>`; never returns a partial result.
 */
export function parseManifests(text: string, file: string): RBACObject[] {
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lc, uniqueKeys: true }) as Document[] | { errors: unknown[] };
  if (!Array.isArray(docs)) throw new ManifestError(`${file}: not a YAML stream`);
  const problems: string[] = [];
  const out: RBACObject[] = [];
  const lineOf = (doc: Document, path: Path): number => {
    for (let n = path.length; n >= 0; n--) {
      const node = n === 0 ? doc.contents : (doc.getIn(path.slice(0, n), true) as { range?: number[] } | undefined);
      const range = (node as { range?: number[] } | null | undefined)?.range;
      if (range) return lc.linePos(range[0]!).line;
    }
    return 1;
  };
  for (const doc of docs) {
    if (doc.errors.length) {
      for (const e of doc.errors) problems.push(`${file}:${e.linePos?.[0]?.line ?? 1}: ${e.message.split('\n')[0]}`);
      continue;
    }
    if (doc.contents === null) continue; // an empty document (`---` at the end)
    const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
    if (value === null || value === undefined) continue;
    if (!isObj(value)) {
      problems.push(`${file}:${lineOf(doc, [])}: expected a Kubernetes object`);
      continue;
    }
    const items: [Record<string, unknown>, Path][] = [];
    if (
      value.kind === 'List' ||
      (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items))
    ) {
      if (!Array.isArray(value.items)) problems.push(`${file}:${lineOf(doc, ['items'])}: items: Required value`);
      else value.items.forEach((it, i) => items.push([isObj(it) ? it : {}, ['items', i]]));
    } else items.push([value, []]);
    for (const [obj, base] of items) {
      const errs: FieldError[] = [];
      const o = toRBACObject(obj, errs);
      if (errs.length) {
        const name = `${str(obj.kind) || 'object'} ${JSON.stringify(str(isObj(obj.metadata) ? obj.metadata.name : ''))}`;
        for (const e of errs) problems.push(`${file}:${lineOf(doc, [...base, ...e.path])}: ${name}: ${e.message}`);
      } else if (o) out.push(o);
    }
  }
  if (problems.length) throw new ManifestError(problems.join('\n'));
  return out;
}
