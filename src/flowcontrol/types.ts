// flowcontrol.apiserver.k8s.io/v1 FlowSchema and PriorityLevelConfiguration: the shapes, the
// v1 defaults (pkg/apis/flowcontrol/v1/defaults.go) and upstream's validation with its field
// error wording (pkg/apis/flowcontrol/validation).

export const flowcontrolGroupVersion = 'flowcontrol.apiserver.k8s.io/v1';

export interface ObjectMeta {
  name: string;
  uid?: string;
  annotations?: Record<string, string>;
  [k: string]: unknown;
}

export interface UserSubject {
  name: string;
}
export interface GroupSubject {
  name: string;
}
export interface ServiceAccountSubject {
  namespace: string;
  name: string;
}
export interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  user?: UserSubject;
  group?: GroupSubject;
  serviceAccount?: ServiceAccountSubject;
}

export interface ResourcePolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}

export interface NonResourcePolicyRule {
  verbs: string[];
  nonResourceURLs: string[];
}

export interface PolicyRulesWithSubjects {
  subjects: Subject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

export interface FlowSchema {
  apiVersion: string;
  kind: 'FlowSchema';
  metadata: ObjectMeta;
  spec: {
    priorityLevelConfiguration: { name: string };
    matchingPrecedence: number;
    distinguisherMethod?: { type: 'ByUser' | 'ByNamespace' };
    rules?: PolicyRulesWithSubjects[];
  };
}

export interface QueuingConfiguration {
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

export interface LimitResponse {
  type: 'Queue' | 'Reject';
  queuing?: QueuingConfiguration;
}

export interface PriorityLevelConfiguration {
  apiVersion: string;
  kind: 'PriorityLevelConfiguration';
  metadata: ObjectMeta;
  spec: {
    type: 'Exempt' | 'Limited';
    limited?: {
      nominalConcurrencyShares?: number;
      limitResponse: LimitResponse;
      lendablePercent?: number;
      borrowingLimitPercent?: number;
    };
    exempt?: { nominalConcurrencyShares?: number; lendablePercent?: number };
  };
}

// Wildcards (flowcontrol.VerbAll …).
export const verbAll = '*';
export const apiGroupAll = '*';
export const resourceAll = '*';
export const nonResourceAll = '*';
export const nameAll = '*';
export const namespaceEvery = '*';

/** v1 SetDefaults_*: nominalConcurrencyShares 30, lendablePercent 0, queues 64/8/50, precedence 1000. */
export function defaultPriorityLevel(pl: PriorityLevelConfiguration): PriorityLevelConfiguration {
  const spec = pl.spec;
  if (spec.type === 'Limited' && spec.limited) {
    const l = spec.limited;
    if (l.nominalConcurrencyShares === undefined || l.nominalConcurrencyShares === null)
      l.nominalConcurrencyShares = 30;
    if (l.lendablePercent === undefined || l.lendablePercent === null) l.lendablePercent = 0;
    if (l.limitResponse?.type === 'Queue') {
      const q = (l.limitResponse.queuing ??= { queues: 0, handSize: 0, queueLengthLimit: 0 });
      if (!q.queues) q.queues = 64;
      if (!q.handSize) q.handSize = 8;
      if (!q.queueLengthLimit) q.queueLengthLimit = 50;
    }
  }
  if (spec.type === 'Exempt') {
    const e = (spec.exempt ??= {});
    e.nominalConcurrencyShares ??= 0;
    e.lendablePercent ??= 0;
  }
  return pl;
}

export function defaultFlowSchema(fs: FlowSchema): FlowSchema {
  if (fs.spec && (fs.spec.matchingPrecedence === undefined || fs.spec.matchingPrecedence === null))
    fs.spec.matchingPrecedence = 1000;
  return fs;
}

// --- validation (field.Error strings) ---

/** Go %#v-ish rendering of an invalid value, as field.Invalid prints it. */
function goValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[]string{${v.map((x) => JSON.stringify(x)).join(', ')}}`;
  return String(v);
}

const invalid = (path: string, value: unknown, detail: string) =>
  `${path}: Invalid value: ${goValue(value)}: ${detail}`;
const required = (path: string, detail: string) => `${path}: Required value: ${detail}`;
const unsupported = (path: string, value: unknown, supported: string[]) =>
  `${path}: Unsupported value: ${goValue(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`;

function validateName(name: unknown, errs: string[]): void {
  if (typeof name !== 'string' || name === '') {
    errs.push(required('metadata.name', 'name or generateName is required'));
    return;
  }
  // ValidateFlowSchemaName / ValidatePriorityLevelConfigurationName: path segment names.
  if (name === '.' || name === '..') errs.push(invalid('metadata.name', name, `may not be '${name}'`));
  else if (name.includes('/')) errs.push(invalid('metadata.name', name, "may not contain '/'"));
  else if (name.includes('%')) errs.push(invalid('metadata.name', name, "may not contain '%'"));
}

function validateVerbs(path: string, verbs: unknown, errs: string[]): void {
  if (!Array.isArray(verbs) || verbs.length === 0) {
    errs.push(required(path, 'verbs must contain at least one value'));
  } else if (verbs.includes(verbAll) && verbs.length > 1) {
    errs.push(invalid(path, verbs, "if '*' is present, must not specify other verbs"));
  }
}

function validateSubject(path: string, s: Subject, errs: string[]): void {
  switch (s?.kind) {
    case 'ServiceAccount':
      if (!s.serviceAccount)
        errs.push(
          required(`${path}.serviceAccount`, "serviceAccount is required when subject kind is 'ServiceAccount'"),
        );
      else {
        if (!s.serviceAccount.name) errs.push(required(`${path}.serviceAccount.name`, 'name is required'));
        if (!s.serviceAccount.namespace) errs.push(required(`${path}.serviceAccount.namespace`, ''));
      }
      if (s.user) errs.push(`${path}.user: Forbidden: user is forbidden when subject kind is not 'User'`);
      if (s.group) errs.push(`${path}.group: Forbidden: group is forbidden when subject kind is not 'Group'`);
      break;
    case 'User':
      if (!s.user) errs.push(required(`${path}.user`, "user is required when subject kind is 'User'"));
      else if (!s.user.name) errs.push(required(`${path}.user.name`, 'username is required'));
      if (s.serviceAccount)
        errs.push(
          `${path}.serviceAccount: Forbidden: serviceAccount is forbidden when subject kind is not 'ServiceAccount'`,
        );
      if (s.group) errs.push(`${path}.group: Forbidden: group is forbidden when subject kind is not 'Group'`);
      break;
    case 'Group':
      if (!s.group) errs.push(required(`${path}.group`, "group is required when subject kind is 'Group'"));
      else if (!s.group.name) errs.push(required(`${path}.group.name`, 'name is required'));
      if (s.serviceAccount)
        errs.push(
          `${path}.serviceAccount: Forbidden: serviceAccount is forbidden when subject kind is not 'ServiceAccount'`,
        );
      if (s.user) errs.push(`${path}.user: Forbidden: user is forbidden when subject kind is not 'User'`);
      break;
    default:
      errs.push(unsupported(`${path}.kind`, s?.kind ?? '', ['Group', 'ServiceAccount', 'User']));
  }
}

function validateResourceRule(path: string, r: ResourcePolicyRule, errs: string[]): void {
  validateVerbs(`${path}.verbs`, r.verbs, errs);
  if (!Array.isArray(r.apiGroups) || r.apiGroups.length === 0) {
    errs.push(required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  } else if (r.apiGroups.includes(apiGroupAll) && r.apiGroups.length > 1) {
    errs.push(invalid(`${path}.apiGroups`, r.apiGroups, "if '*' is present, must not specify other api groups"));
  }
  if (!Array.isArray(r.resources) || r.resources.length === 0) {
    errs.push(required(`${path}.resources`, 'resource rules must supply at least one resource'));
  } else if (r.resources.includes(resourceAll) && r.resources.length > 1) {
    errs.push(invalid(`${path}.resources`, r.resources, "if '*' is present, must not specify other resources"));
  }
  const ns = r.namespaces ?? [];
  if (ns.length === 0 && !r.clusterScope) {
    errs.push(
      required(`${path}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'),
    );
  } else if (ns.includes(namespaceEvery) && ns.length > 1) {
    errs.push(invalid(`${path}.namespaces`, ns, "if '*' is present, must not specify other namespaces"));
  }
}

function validateNonResourceRule(path: string, r: NonResourcePolicyRule, errs: string[]): void {
  validateVerbs(`${path}.verbs`, r.verbs, errs);
  if (!Array.isArray(r.nonResourceURLs) || r.nonResourceURLs.length === 0) {
    errs.push(required(`${path}.nonResourceURLs`, 'nonResourceURLs must contain at least one value'));
    return;
  }
  if (r.nonResourceURLs.includes(nonResourceAll) && r.nonResourceURLs.length > 1) {
    errs.push(
      invalid(
        `${path}.nonResourceURLs`,
        r.nonResourceURLs,
        "if '*' is present, must not specify other non-resource URLs",
      ),
    );
  }
  r.nonResourceURLs.forEach((u, i) => {
    if (u === nonResourceAll) return;
    if (!u.startsWith('/')) errs.push(invalid(`${path}.nonResourceURLs[${i}]`, u, 'must start with slash'));
    else if (u.slice(0, -1).includes('*'))
      errs.push(invalid(`${path}.nonResourceURLs[${i}]`, u, '* can only be the last character'));
  });
}

/** ValidateFlowSchema: field errors, empty when valid. */
export function validateFlowSchema(fs: FlowSchema): string[] {
  const errs: string[] = [];
  validateName(fs.metadata?.name, errs);
  const spec = fs.spec;
  if (!spec || typeof spec !== 'object') {
    errs.push(required('spec', ''));
    return errs;
  }
  const mp = spec.matchingPrecedence;
  if (typeof mp !== 'number' || !Number.isInteger(mp) || mp <= 0)
    errs.push(invalid('spec.matchingPrecedence', mp, 'must be a positive value'));
  else if (mp > 10000) errs.push(invalid('spec.matchingPrecedence', mp, 'must not be greater than 10000'));
  if (spec.distinguisherMethod && !['ByUser', 'ByNamespace'].includes(spec.distinguisherMethod.type)) {
    errs.push(unsupported('spec.distinguisherMethod.type', spec.distinguisherMethod.type, ['ByNamespace', 'ByUser']));
  }
  if (!spec.priorityLevelConfiguration?.name) {
    errs.push(required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  }
  (spec.rules ?? []).forEach((rule, i) => {
    const p = `spec.rules[${i}]`;
    if (!Array.isArray(rule.subjects) || rule.subjects.length === 0)
      errs.push(required(`${p}.subjects`, 'subjects must contain at least one value'));
    else rule.subjects.forEach((s, j) => validateSubject(`${p}.subjects[${j}]`, s, errs));
    const rr = rule.resourceRules ?? [];
    const nr = rule.nonResourceRules ?? [];
    if (rr.length === 0 && nr.length === 0) {
      errs.push(required(p, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
    }
    rr.forEach((r, j) => validateResourceRule(`${p}.resourceRules[${j}]`, r, errs));
    nr.forEach((r, j) => validateNonResourceRule(`${p}.nonResourceRules[${j}]`, r, errs));
  });
  return errs;
}

/** The entropy check of ValidatePriorityLevelConfigurationSpec (shufflesharding.RequiredEntropyBits). */
function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

/** ValidatePriorityLevelConfiguration: field errors, empty when valid. */
export function validatePriorityLevel(pl: PriorityLevelConfiguration): string[] {
  const errs: string[] = [];
  validateName(pl.metadata?.name, errs);
  const spec = pl.spec;
  if (!spec || typeof spec !== 'object') {
    errs.push(required('spec', ''));
    return errs;
  }
  if (spec.type === 'Exempt') {
    if (spec.limited) errs.push(`spec.limited: Forbidden: must be nil if the type is not Limited`);
    const e = spec.exempt;
    if (
      e?.nominalConcurrencyShares !== undefined &&
      (e.nominalConcurrencyShares < 0 || !Number.isInteger(e.nominalConcurrencyShares))
    ) {
      errs.push(
        invalid('spec.exempt.nominalConcurrencyShares', e.nominalConcurrencyShares, 'must be a non-negative integer'),
      );
    }
    if (e?.lendablePercent !== undefined && (e.lendablePercent < 0 || e.lendablePercent > 100)) {
      errs.push(invalid('spec.exempt.lendablePercent', e.lendablePercent, 'must be between 0 and 100, inclusive'));
    }
    return errs;
  }
  if (spec.type !== 'Limited') {
    errs.push(unsupported('spec.type', spec.type ?? '', ['Exempt', 'Limited']));
    return errs;
  }
  if (spec.exempt) errs.push(`spec.exempt: Forbidden: must be nil if the type is Limited`);
  const l = spec.limited;
  if (!l) {
    errs.push(required('spec.limited', 'must not be empty when type is Limited'));
    return errs;
  }
  const ncs = l.nominalConcurrencyShares ?? 0;
  if (!Number.isInteger(ncs) || ncs < 0)
    errs.push(invalid('spec.limited.nominalConcurrencyShares', ncs, 'must be a non-negative integer'));
  const lp = l.lendablePercent ?? 0;
  if (lp < 0 || lp > 100)
    errs.push(invalid('spec.limited.lendablePercent', lp, 'must be between 0 and 100, inclusive'));
  if (l.borrowingLimitPercent !== undefined && l.borrowingLimitPercent !== null && l.borrowingLimitPercent < 0) {
    errs.push(
      invalid(
        'spec.limited.borrowingLimitPercent',
        l.borrowingLimitPercent,
        'if specified, must be a non-negative integer',
      ),
    );
  }
  const lr = l.limitResponse;
  if (lr?.type === 'Reject') {
    if (lr.queuing)
      errs.push(
        'spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited',
      );
  } else if (lr?.type === 'Queue') {
    const q = lr.queuing;
    if (!q)
      errs.push(
        required('spec.limited.limitResponse.queuing', 'must not be empty if limited.limitResponse.type is Limited'),
      );
    else {
      const p = 'spec.limited.limitResponse.queuing';
      if (!(q.queueLengthLimit > 0))
        errs.push(invalid(`${p}.queueLengthLimit`, q.queueLengthLimit, 'must be positive'));
      if (!(q.queues > 0)) errs.push(invalid(`${p}.queues`, q.queues, 'must be positive'));
      else if (!(q.handSize > 0)) errs.push(invalid(`${p}.handSize`, q.handSize, 'must be positive'));
      else if (q.handSize > q.queues)
        errs.push(invalid(`${p}.handSize`, q.handSize, `should not be greater than queues (${q.queues})`));
      else if (requiredEntropyBits(q.queues, q.handSize) > 60) {
        errs.push(
          invalid(
            `${p}.handSize`,
            q.handSize,
            `required entropy bits of deckSize ${q.queues} and handSize ${q.handSize} should not be greater than 60`,
          ),
        );
      }
    }
  } else {
    errs.push(unsupported('spec.limited.limitResponse.type', lr?.type ?? '', ['Queue', 'Reject']));
  }
  return errs;
}

/** `<Kind>.flowcontrol.apiserver.k8s.io "<name>" is invalid: <errs>` (StatusError text for 422). */
export function invalidMessage(kind: string, name: string, errs: string[]): string {
  return `${kind}.flowcontrol.apiserver.k8s.io ${JSON.stringify(name ?? '')} is invalid: ${errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`}`;
}
