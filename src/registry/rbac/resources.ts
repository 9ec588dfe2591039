// rbac.authorization.k8s.io/v1 roles, rolebindings, clusterroles and clusterrolebindings served
// from storage: strategies as kubernetes pkg/registry/rbac/*/strategy.go (v1 defaulting from
// pkg/apis/rbac/v1/defaults.go), validation as pkg/apis/rbac/validation/validation.go, columns as
// pkg/printers/internalversion/printers.go (roles have none there: the default Name, Created At).
// Escalation prevention (pkg/registry/rbac/*/policybased) is ./escalation.ts.

import { objectMetaFields, type KindInfo, type KnownFields } from '../../endpoints/handlers/decode.ts';
import { objectMetaSchema, type Schema } from '../../util/protobuf.ts';
import { invalid, notSupported, Path, required, forbidden, type ErrorList } from '../../util/validation/field.ts';
import { validateLabels } from '../../util/validation/objectmeta.ts';
import {
  validateDNS1123Subdomain,
  validatePathSegmentName,
  validateQualifiedName,
  type ValidateNameFunc,
} from '../../util/validation/validation.ts';
import type { KubeObject, Strategy } from '../generic/store.ts';
import { age, defaultTableConvertor, nameColumn, type TableColumnDefinition } from '../generic/table.ts';
import type { ResourceDefinition } from '../rest/registry.ts';
import { appendAll } from '../../util/append.ts';

export const rbacGroup = 'rbac.authorization.k8s.io';
const version = 'v1';
const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

interface Rule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}
interface Subject {
  kind?: string;
  apiGroup?: string;
  name?: string;
  namespace?: string;
}
interface RoleRef {
  apiGroup?: string;
  kind?: string;
  name?: string;
}
interface Requirement {
  key?: string;
  operator?: string;
  values?: string[];
}
interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Requirement[];
}

/** ValidateRBACName: path.IsValidPathSegmentName (names such as `system:discovery` are fine). */
export const validateRBACName: ValidateNameFunc = validatePathSegmentName;

const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);
const len = (v: unknown): number => (Array.isArray(v) ? v.length : 0);

/** ValidatePolicyRule. */
export function validatePolicyRule(rule: Rule, namespaced: boolean, p: Path): ErrorList {
  const errs: ErrorList = [];
  if (len(rule.verbs) === 0) errs.push(required(p.child('verbs'), 'verbs must contain at least one value'));
  if (len(rule.nonResourceURLs) > 0) {
    if (namespaced)
      errs.push(
        invalid(p.child('nonResourceURLs'), rule.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'),
      );
    if (len(rule.apiGroups) > 0 || len(rule.resources) > 0 || len(rule.resourceNames) > 0)
      errs.push(
        invalid(
          p.child('nonResourceURLs'),
          rule.nonResourceURLs,
          'rules cannot apply to both regular resources and non-resource URLs',
        ),
      );
    return errs;
  }
  if (len(rule.apiGroups) === 0)
    errs.push(required(p.child('apiGroups'), 'resource rules must supply at least one api group'));
  if (len(rule.resources) === 0)
    errs.push(required(p.child('resources'), 'resource rules must supply at least one resource'));
  return errs;
}

// unversionedvalidation.ValidateLabelSelector.
function validateLabelSelector(sel: Selector, p: Path): ErrorList {
  const errs: ErrorList = validateLabels(sel.matchLabels, p.child('matchLabels'));
  list<Requirement>(sel.matchExpressions).forEach((r, i) => {
    const rp = p.child('matchExpressions').index(i);
    switch (r.operator) {
      case 'In':
      case 'NotIn':
        if (len(r.values) === 0)
          errs.push(required(rp.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (len(r.values) > 0)
          errs.push(
            forbidden(rp.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
          );
        break;
      default:
        errs.push(invalid(rp.child('operator'), r.operator ?? '', 'not a valid selector operator'));
    }
    for (const msg of validateQualifiedName(r.key ?? '')) errs.push(invalid(rp.child('key'), r.key ?? '', msg));
  });
  return errs;
}

function validateRules(obj: KubeObject, namespaced: boolean): ErrorList {
  const errs: ErrorList = [];
  list<Rule>(obj.rules).forEach((r, i) =>
    appendAll(errs, validatePolicyRule(r, namespaced, Path.of('rules').index(i))),
  );
  return errs;
}

function validateAggregationRule(obj: KubeObject): ErrorList {
  const rule = obj.aggregationRule as { clusterRoleSelectors?: Selector[] } | undefined | null;
  if (!rule) return [];
  const p = Path.of('aggregationRule', 'clusterRoleSelectors');
  if (len(rule.clusterRoleSelectors) === 0)
    return [required(p, 'at least one clusterRoleSelector required if aggregationRule is non-nil')];
  const errs: ErrorList = [];
  list<Selector>(rule.clusterRoleSelectors).forEach((s, i) => appendAll(errs, validateLabelSelector(s, p.index(i))));
  return errs;
}

// validation.ValidateServiceAccountName: a DNS-1123 subdomain.
function validateSubject(s: Subject, namespaced: boolean, p: Path): ErrorList {
  const errs: ErrorList = [];
  if (!s.name) errs.push(required(p.child('name')));
  switch (s.kind) {
    case 'ServiceAccount':
      if (s.name) for (const msg of validateDNS1123Subdomain(s.name)) errs.push(invalid(p.child('name'), s.name, msg));
      if (s.apiGroup) errs.push(notSupported(p.child('apiGroup'), s.apiGroup, ['']));
      if (!namespaced && !s.namespace) errs.push(required(p.child('namespace')));
      break;
    case 'User':
    case 'Group':
      if (s.apiGroup !== rbacGroup) errs.push(notSupported(p.child('apiGroup'), s.apiGroup ?? '', [rbacGroup]));
      break;
    default:
      errs.push(notSupported(p.child('kind'), s.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function validateBinding(obj: KubeObject, cluster: boolean): ErrorList {
  const errs: ErrorList = [];
  const ref = (obj.roleRef ?? {}) as RoleRef;
  if (ref.apiGroup !== rbacGroup)
    errs.push(notSupported(Path.of('roleRef', 'apiGroup'), ref.apiGroup ?? '', [rbacGroup]));
  const kinds = cluster ? ['ClusterRole'] : ['Role', 'ClusterRole'];
  if (!kinds.includes(ref.kind ?? '')) errs.push(notSupported(Path.of('roleRef', 'kind'), ref.kind ?? '', kinds));
  if (!ref.name) errs.push(required(Path.of('roleRef', 'name')));
  else
    for (const msg of validateRBACName(ref.name, false)) errs.push(invalid(Path.of('roleRef', 'name'), ref.name, msg));
  list<Subject>(obj.subjects).forEach((s, i) =>
    appendAll(errs, validateSubject(s, !cluster, Path.of('subjects').index(i))),
  );
  return errs;
}

function validateBindingUpdate(obj: KubeObject, old: KubeObject, cluster: boolean): ErrorList {
  const errs = validateBinding(obj, cluster);
  const a = (obj.roleRef ?? {}) as RoleRef;
  const b = (old.roleRef ?? {}) as RoleRef;
  if (a.apiGroup !== b.apiGroup || a.kind !== b.kind || a.name !== b.name)
    errs.push(
      invalid(
        Path.of('roleRef'),
        { apiGroup: a.apiGroup ?? '', kind: a.kind ?? '', name: a.name ?? '' },
        'cannot change roleRef',
      ),
    );
  return errs;
}

// pkg/apis/rbac/v1/defaults.go: SetDefaults_RoleRef, SetDefaults_Subject.
function defaultBinding(obj: KubeObject): void {
  const ref = obj.roleRef as RoleRef | undefined;
  if (ref && typeof ref === 'object' && !ref.apiGroup) ref.apiGroup = rbacGroup;
  for (const s of list<Subject>(obj.subjects)) {
    if (!s || typeof s !== 'object' || s.apiGroup) continue;
    if (s.kind === 'User' || s.kind === 'Group') s.apiGroup = rbacGroup;
  }
}

const roleStrategy = (namespaced: boolean, cluster: boolean): Strategy => ({
  namespaceScoped: namespaced,
  validateName: validateRBACName,
  allowUnconditionalUpdate: true,
  validate: (obj) => [...validateRules(obj, namespaced), ...(cluster ? validateAggregationRule(obj) : [])],
  validateUpdate: (obj) => [...validateRules(obj, namespaced), ...(cluster ? validateAggregationRule(obj) : [])],
});

const bindingStrategy = (namespaced: boolean, cluster: boolean): Strategy => ({
  namespaceScoped: namespaced,
  validateName: validateRBACName,
  allowUnconditionalUpdate: true,
  prepareForCreate: defaultBinding,
  prepareForUpdate: defaultBinding,
  validate: (obj) => validateBinding(obj, cluster),
  validateUpdate: (obj, old) => validateBindingUpdate(obj, old, cluster),
});

// --- protobuf (k8s.io/api/rbac/v1/generated.proto) and known fields ---

const ruleSchema: Schema = {
  1: { name: 'verbs', type: 'strings' },
  2: { name: 'apiGroups', type: 'strings' },
  3: { name: 'resources', type: 'strings' },
  4: { name: 'resourceNames', type: 'strings' },
  5: { name: 'nonResourceURLs', type: 'strings' },
};
const labelSelectorSchema: Schema = {
  1: { name: 'matchLabels', type: 'map', value: 'string' },
  2: {
    name: 'matchExpressions',
    type: 'message',
    repeated: true,
    schema: {
      1: { name: 'key', type: 'string' },
      2: { name: 'operator', type: 'string' },
      3: { name: 'values', type: 'strings' },
    },
  },
};
const subjectSchema: Schema = {
  1: { name: 'kind', type: 'string' },
  2: { name: 'apiGroup', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'namespace', type: 'string' },
};
const roleRefSchema: Schema = {
  1: { name: 'apiGroup', type: 'string' },
  2: { name: 'kind', type: 'string' },
  3: { name: 'name', type: 'string' },
};
const meta = { metadata: objectMetaFields } satisfies KnownFields;
const ruleFields: KnownFields = {
  verbs: true,
  apiGroups: true,
  resources: true,
  resourceNames: true,
  nonResourceURLs: true,
};
const selectorFields: KnownFields = {
  matchLabels: true,
  matchExpressions: [{ key: true, operator: true, values: true }],
};
const bindingFields: KnownFields = {
  ...meta,
  subjects: [{ kind: true, apiGroup: true, name: true, namespace: true }],
  roleRef: { apiGroup: true, kind: true, name: true },
};

function kindInfo(kind: string, schema: Schema, fields: KnownFields): KindInfo {
  return {
    group: rbacGroup,
    version,
    kind,
    schema: { 1: { name: 'metadata', type: 'message', schema: objectMetaSchema }, ...schema },
    fields,
  };
}

// --- Table columns ---

const col = (name: string, description: string, priority = 0): TableColumnDefinition => ({
  name,
  type: 'string',
  format: '',
  description,
  priority,
});
const ageCol = col(
  'Age',
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
);

/** rbac.SubjectsStrings: users, groups and service accounts (`namespace/name`). */
function subjectsStrings(obj: KubeObject): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of list<Subject>(obj.subjects)) {
    if (s.kind === 'ServiceAccount') sas.push(`${s.namespace ?? ''}/${s.name ?? ''}`);
    else if (s.kind === 'User') users.push(s.name ?? '');
    else if (s.kind === 'Group') groups.push(s.name ?? '');
  }
  return [users.join(', '), groups.join(', '), sas.join(', ')];
}

function bindingTable(what: string, roleRefDoc: string) {
  return {
    columns: [
      nameColumn,
      col('Role', roleRefDoc),
      ageCol,
      col('Users', `Users in the ${what}`, 1),
      col('Groups', `Groups in the ${what}`, 1),
      col('ServiceAccounts', `ServiceAccounts in the ${what}`, 1),
    ],
    cells: (obj: KubeObject, now: Date) => {
      const ref = (obj.roleRef ?? {}) as RoleRef;
      return [obj.metadata.name, `${ref.kind ?? ''}/${ref.name ?? ''}`, age(obj, now), ...subjectsStrings(obj)];
    },
  };
}

function resource(name: string, kind: string, namespaced: boolean) {
  return { name, singularName: kind.toLowerCase(), namespaced, kind, verbs };
}

export const roles: ResourceDefinition = {
  group: rbacGroup,
  version,
  resource: resource('roles', 'Role', true),
  listKind: 'RoleList',
  strategy: roleStrategy(true, false),
  kindInfo: kindInfo(
    'Role',
    { 2: { name: 'rules', type: 'message', repeated: true, schema: ruleSchema } },
    { ...meta, rules: [ruleFields] },
  ),
  table: defaultTableConvertor,
};

export const clusterRoles: ResourceDefinition = {
  group: rbacGroup,
  version,
  resource: resource('clusterroles', 'ClusterRole', false),
  listKind: 'ClusterRoleList',
  strategy: roleStrategy(false, true),
  kindInfo: kindInfo(
    'ClusterRole',
    {
      2: { name: 'rules', type: 'message', repeated: true, schema: ruleSchema },
      3: {
        name: 'aggregationRule',
        type: 'message',
        schema: { 1: { name: 'clusterRoleSelectors', type: 'message', repeated: true, schema: labelSelectorSchema } },
      },
    },
    { ...meta, rules: [ruleFields], aggregationRule: { clusterRoleSelectors: [selectorFields] } },
  ),
  table: defaultTableConvertor,
};

const bindingSchema: Schema = {
  2: { name: 'subjects', type: 'message', repeated: true, schema: subjectSchema },
  3: { name: 'roleRef', type: 'message', schema: roleRefSchema },
};

export const roleBindings: ResourceDefinition = {
  group: rbacGroup,
  version,
  resource: resource('rolebindings', 'RoleBinding', true),
  listKind: 'RoleBindingList',
  strategy: bindingStrategy(true, false),
  kindInfo: kindInfo('RoleBinding', bindingSchema, bindingFields),
  table: bindingTable(
    'roleBinding',
    'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  ),
};

export const clusterRoleBindings: ResourceDefinition = {
  group: rbacGroup,
  version,
  resource: resource('clusterrolebindings', 'ClusterRoleBinding', false),
  listKind: 'ClusterRoleBindingList',
  strategy: bindingStrategy(false, true),
  kindInfo: kindInfo('ClusterRoleBinding', bindingSchema, bindingFields),
  table: bindingTable(
    'clusterRoleBinding',
    'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  ),
};

/** The group's resources, in upstream's discovery order. */
export const rbacResources: readonly ResourceDefinition[] = [clusterRoleBindings, clusterRoles, roleBindings, roles];
