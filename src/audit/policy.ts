// The audit Policy (audit.k8s.io/v1): loading (pkg/audit/policy/reader.go), validation
// (pkg/apis/audit/validation) and rule matching (pkg/audit/policy/checker.go), with upstream's
// error texts.
//
//   const evaluator = newPolicyRuleEvaluator(await loadPolicyFromFile(fs, '/etc/audit/policy.yaml'));
//   evaluator.evaluatePolicyRule(attributes) // → { level, omitStages, omitManagedFields }

import { parseDocument } from 'yaml';
import type { Attributes } from '../authorization/authorizer.ts';
import { goQuote } from '../util/go.ts';
import type { FileSystem } from '../util/filesystem.ts';
import type { Logger } from '../util/logger.ts';
import { levels, stages, type Level, type RequestAuditConfig, type Stage } from './types.ts';

export interface GroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

export interface PolicyRule {
  level: Level;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

export interface Policy {
  rules: PolicyRule[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

/** PolicyRuleEvaluator: decides the audit level and stages for a request. */
export interface PolicyRuleEvaluator {
  evaluatePolicyRule(attributes: Attributes): RequestAuditConfig;
}

export class PolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyError';
  }
}

// --- decoding ---

class TypeError_ extends Error {}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function jsonType(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;
}

interface DecodeState {
  unknown: string[];
}

function typeError(v: Json, struct: string, path: string, goType: string): never {
  throw new TypeError_(
    `json: cannot unmarshal ${jsonType(v)} into Go struct field ${struct}.${path} of type ${goType}`,
  );
}

function decodeString(v: Json, struct: string, path: string, goType = 'string'): string | undefined {
  if (v === null) return undefined;
  if (typeof v !== 'string') typeError(v, struct, path, goType);
  return v;
}

function decodeBool(v: Json, struct: string, path: string, goType = 'bool'): boolean | undefined {
  if (v === null) return undefined;
  if (typeof v !== 'boolean') typeError(v, struct, path, goType);
  return v;
}

function decodeStrings(
  v: Json,
  struct: string,
  path: string,
  goType = '[]string',
  itemType = 'string',
): string[] | undefined {
  if (v === null) return undefined;
  if (!Array.isArray(v)) typeError(v, struct, path, goType);
  return v.map((x) => {
    if (typeof x !== 'string') typeError(x, struct, path, itemType);
    return x;
  });
}

function decodeFields(
  v: Json,
  struct: string,
  path: string,
  goType: string,
  st: DecodeState,
  fields: Record<string, (value: Json, fieldPath: string) => void>,
  unknownPrefix: string,
): void {
  if (v === null) return;
  if (typeof v !== 'object' || Array.isArray(v)) typeError(v, struct, path, goType);
  for (const [k, value] of Object.entries(v)) {
    const f = fields[k];
    if (!f) {
      st.unknown.push(`unknown field ${goQuote(unknownPrefix + k)}`);
      continue;
    }
    f(value, path ? `${path}.${k}` : k);
  }
}

const objectMetaFields = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

function decodeRule(v: Json, index: number, st: DecodeState): PolicyRule {
  const rule = {} as PolicyRule;
  const prefix = `rules[${index}].`;
  decodeFields(
    v,
    'Policy',
    'rules',
    '[]v1.PolicyRule',
    st,
    {
      level: (x, p) => (rule.level = decodeString(x, 'PolicyRule', p, 'v1.Level') as Level),
      users: (x, p) => (rule.users = decodeStrings(x, 'PolicyRule', p)),
      userGroups: (x, p) => (rule.userGroups = decodeStrings(x, 'PolicyRule', p)),
      verbs: (x, p) => (rule.verbs = decodeStrings(x, 'PolicyRule', p)),
      namespaces: (x, p) => (rule.namespaces = decodeStrings(x, 'PolicyRule', p)),
      nonResourceURLs: (x, p) => (rule.nonResourceURLs = decodeStrings(x, 'PolicyRule', p)),
      omitStages: (x, p) => (rule.omitStages = decodeStrings(x, 'PolicyRule', p, '[]v1.Stage', 'v1.Stage') as Stage[]),
      omitManagedFields: (x, p) => (rule.omitManagedFields = decodeBool(x, 'PolicyRule', p)),
      resources: (x, p) => {
        if (x === null) return;
        if (!Array.isArray(x)) typeError(x, 'PolicyRule', p, '[]v1.GroupResources');
        rule.resources = x.map((item, j) => {
          const gr: GroupResources = {};
          decodeFields(
            item,
            'PolicyRule',
            p,
            'v1.GroupResources',
            st,
            {
              group: (y, q) => (gr.group = decodeString(y, 'GroupResources', q)),
              resources: (y, q) => (gr.resources = decodeStrings(y, 'GroupResources', q)),
              resourceNames: (y, q) => (gr.resourceNames = decodeStrings(y, 'GroupResources', q)),
            },
            `${prefix}resources[${j}].`,
          );
          return gr;
        });
      },
    },
    prefix,
  );
  return rule;
}

/**
 * LoadPolicyFromBytes: YAML or JSON. Unknown fields are reported as a strict decoding error and
 * then tolerated with a warning (upstream falls back to lenient decoding); type errors, a wrong
 * kind/apiVersion, validation errors and an empty rule list are rejected.
 */
export function loadPolicyFromBytes(text: string, logger?: Logger): Policy {
  const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: true });
  if (doc.errors.length) {
    const e = doc.errors[0]!;
    const pos = e.linePos?.[0];
    throw new PolicyError(
      `failed decoding: yaml: ${pos ? `line ${pos.line}: ` : ''}${e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
    );
  }
  const raw = (doc.toJS({ maxAliasCount: 100 }) ?? null) as Json;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new PolicyError(
      `failed decoding: couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(raw)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  const dataText = JSON.stringify(raw);
  const kind = typeof raw.kind === 'string' ? raw.kind : '';
  const apiVersion = typeof raw.apiVersion === 'string' ? raw.apiVersion : '';
  if (!kind) throw new PolicyError(`failed decoding: Object 'Kind' is missing in '${dataText}'`);
  if (!apiVersion) throw new PolicyError(`failed decoding: Object 'apiVersion' is missing in '${dataText}'`);
  if (apiVersion !== 'audit.k8s.io/v1' || kind !== 'Policy') {
    throw new PolicyError(
      `failed decoding: no kind ${goQuote(kind)} is registered for version ${goQuote(apiVersion)} in scheme "pkg/audit/scheme.go:30"`,
    );
  }

  const st: DecodeState = { unknown: [] };
  const policy: Policy = { rules: [] };
  try {
    decodeFields(
      raw,
      'Policy',
      '',
      'v1.Policy',
      st,
      {
        apiVersion: () => {},
        kind: () => {},
        metadata: (x, p) =>
          decodeFields(
            x,
            'Policy',
            p,
            'v1.ObjectMeta',
            st,
            Object.fromEntries([...objectMetaFields].map((f) => [f, () => {}])),
            'metadata.',
          ),
        rules: (x, p) => {
          if (x === null) return;
          if (!Array.isArray(x)) typeError(x, 'Policy', p, '[]v1.PolicyRule');
          policy.rules = x.map((r, i) => decodeRule(r, i, st));
        },
        omitStages: (x, p) => (policy.omitStages = decodeStrings(x, 'Policy', p, '[]v1.Stage', 'v1.Stage') as Stage[]),
        omitManagedFields: (x, p) => (policy.omitManagedFields = decodeBool(x, 'Policy', p)),
      },
      '',
    );
  } catch (err) {
    if (err instanceof TypeError_) throw new PolicyError(`failed decoding: ${err.message}`);
    throw err;
  }
  const duplicates = duplicateKeys(text);
  const strictErrors = [...st.unknown, ...duplicates];
  if (strictErrors.length) {
    logger?.warning(
      `Audit policy contains errors, falling back to lenient decoding: strict decoding error: ${strictErrors.join(', ')}`,
    );
  }

  const errs = validatePolicy(policy);
  if (errs.length) throw new PolicyError(errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`);
  if (policy.rules.length === 0) throw new PolicyError('loaded illegal policy with 0 rules');
  return policy;
}

/** Duplicate mapping keys (a strict decoding error upstream; the last value wins leniently). */
function duplicateKeys(text: string): string[] {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  return doc.errors.filter((e) => e.code === 'DUPLICATE_KEY').map((e) => `yaml: ${e.message.split('\n')[0]}`);
}

/** LoadPolicyFromFile: errors name the file (`…: from file <path>`). */
export async function loadPolicyFromFile(fs: FileSystem, path: string, logger?: Logger): Promise<Policy> {
  if (!path) throw new PolicyError('file path not specified');
  let data: Uint8Array;
  try {
    data = await fs.readFile(path);
  } catch (err) {
    throw new PolicyError(
      `failed to read file path ${goQuote(path)}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  try {
    return loadPolicyFromBytes(new TextDecoder().decode(data), logger);
  } catch (err) {
    if (err instanceof PolicyError) throw new PolicyError(`${err.message}: from file ${path}`);
    throw err;
  }
}

// --- validation (field.ErrorList texts) ---

const quotedLevels = levels.map((l) => goQuote(l)).join(', ');
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dns1123SubdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** Go's %#v of a []string. */
function goStringSlice(v: readonly string[]): string {
  return `[]string{${v.map(goQuote).join(', ')}}`;
}

function validateOmitStages(omit: readonly string[] | undefined, path: string, errs: string[]): void {
  (omit ?? []).forEach((s, i) => {
    if (!(stages as readonly string[]).includes(s)) {
      errs.push(`${path}[${i}]: Invalid value: ${goQuote(s)}: allowed stages are ${stages.join(',')}`);
    }
  });
}

/** ValidatePolicy. */
export function validatePolicy(policy: Policy): string[] {
  const errs: string[] = [];
  validateOmitStages(policy.omitStages, 'omitStages', errs);
  policy.rules.forEach((rule, i) => {
    const p = `rules[${i}]`;
    if (!rule.level) errs.push(`${p}.level: Required value`);
    else if (!(levels as readonly string[]).includes(rule.level)) {
      errs.push(`${p}.level: Unsupported value: ${goQuote(rule.level)}: supported values: ${quotedLevels}`);
    }
    (rule.nonResourceURLs ?? []).forEach((url, j) => {
      if (url === '*') return;
      if (!url.startsWith('/'))
        errs.push(
          `${p}.nonResourceURLs[${j}]: Invalid value: ${goQuote(url)}: non-resource URL rules must begin with a '/' character`,
        );
      if (url !== '' && url.slice(0, -1).includes('*')) {
        errs.push(
          `${p}.nonResourceURLs[${j}]: Invalid value: ${goQuote(url)}: non-resource URL wildcards '*' must be the final character of the rule`,
        );
      }
    });
    for (const gr of rule.resources ?? []) {
      const g = gr.group ?? '';
      if (g !== '' && g !== '*') {
        const msgs: string[] = [];
        if (g.length > 253) msgs.push('must be no more than 253 characters');
        if (!dns1123Subdomain.test(g)) msgs.push(dns1123SubdomainMessage);
        if (msgs.length) errs.push(`${p}.resources.group: Invalid value: ${goQuote(g)}: ${msgs.join(',')}`);
      }
      if (gr.resourceNames?.length && !gr.resources?.length) {
        errs.push(
          `${p}.resources.resourceNames: Invalid value: ${goStringSlice(gr.resourceNames)}: using resourceNames requires at least one resource`,
        );
      }
    }
    validateOmitStages(rule.omitStages, `${p}.omitStages`, errs);
    if (rule.nonResourceURLs?.length && (rule.resources?.length || rule.namespaces?.length)) {
      errs.push(
        `${p}.nonResourceURLs: Invalid value: ${goStringSlice(rule.nonResourceURLs)}: rules cannot apply to both regular resources and non-resource URLs`,
      );
    }
  });
  return errs;
}

// --- matching ---

interface CompiledRule {
  rule: PolicyRule;
  omitStages: Stage[];
  omitManagedFields: boolean;
}

/** NewPolicyRuleEvaluator: rule omitStages are unioned with the policy's. */
export function newPolicyRuleEvaluator(policy: Policy): PolicyRuleEvaluator {
  const policyOmit = [...new Set(policy.omitStages ?? [])];
  const policyOmitManaged = policy.omitManagedFields ?? false;
  const rules: CompiledRule[] = policy.rules.map((rule) => ({
    rule,
    omitStages: [...new Set([...policyOmit, ...(rule.omitStages ?? [])])],
    omitManagedFields: rule.omitManagedFields ?? policyOmitManaged,
  }));
  const defaultConfig: RequestAuditConfig = Object.freeze({
    level: 'None',
    omitStages: policyOmit,
    omitManagedFields: policyOmitManaged,
  });
  const configs = rules.map((r) =>
    Object.freeze({ level: r.rule.level, omitStages: r.omitStages, omitManagedFields: r.omitManagedFields }),
  );
  return {
    evaluatePolicyRule(attrs) {
      for (let i = 0; i < rules.length; i++) {
        if (ruleMatches(rules[i]!.rule, attrs)) return configs[i]!;
      }
      return defaultConfig;
    },
  };
}

/** A fixed level for every request (NewFakePolicyRuleEvaluator; tests and embedders). */
export function fixedPolicyRuleEvaluator(
  level: Level,
  omitStages: Stage[] = [],
  omitManagedFields = false,
): PolicyRuleEvaluator {
  const config: RequestAuditConfig = Object.freeze({ level, omitStages, omitManagedFields });
  return { evaluatePolicyRule: () => config };
}

export function ruleMatches(r: PolicyRule, attrs: Attributes): boolean {
  const user = attrs.user;
  if (r.users?.length) {
    if (!user || !r.users.includes(user.name)) return false;
  }
  if (r.userGroups?.length) {
    if (!user || !(user.groups ?? []).some((g) => r.userGroups!.includes(g))) return false;
  }
  if (r.verbs?.length && !r.verbs.includes(attrs.verb)) return false;
  if (r.namespaces?.length || r.resources?.length) return ruleMatchesResource(r, attrs);
  if (r.nonResourceURLs?.length) return ruleMatchesNonResource(r, attrs);
  return true;
}

function ruleMatchesNonResource(r: PolicyRule, attrs: Attributes): boolean {
  if (attrs.isResourceRequest) return false;
  return r.nonResourceURLs!.some((spec) => pathMatches(attrs.path, spec));
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function ruleMatchesResource(r: PolicyRule, attrs: Attributes): boolean {
  if (!attrs.isResourceRequest) return false;
  if (r.namespaces?.length && !r.namespaces.includes(attrs.namespace)) return false;
  if (!r.resources?.length) return true;
  const { apiGroup, resource, subresource, name } = attrs;
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const gr of r.resources) {
    const group = gr.group ?? '';
    if (group !== apiGroup && group !== '*') continue;
    if (!gr.resources?.length) return true;
    for (const res of gr.resources) {
      if (gr.resourceNames?.length && !gr.resourceNames.includes(name)) continue;
      if (res === combined || res === '*') return true;
      if (subresource && res.startsWith('*/') && subresource === res.slice(2)) return true;
      if (res.endsWith('/*') && resource === res.slice(0, -2)) return true;
    }
  }
  return false;
}
