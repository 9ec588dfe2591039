// The structured `--authentication-config` file (apiserver.config.k8s.io AuthenticationConfiguration)
// and the legacy `--oidc-*` flags, both turned into JWTAuthenticatorConfig. CEL expressions
// (claim/user validation rules, expression mappings, extra) are rejected with a clear error.

import { parse as parseYAML } from 'yaml';
import type { JWTAuthenticatorConfig } from './jwt.ts';

export interface AuthenticationConfiguration {
  jwt: JWTAuthenticatorConfig[];
  /** `anonymous` section: when present it replaces --anonymous-auth. */
  anonymous?: { enabled: boolean; conditions: { path: string }[] };
}

const apiVersions = [
  'apiserver.config.k8s.io/v1alpha1',
  'apiserver.config.k8s.io/v1beta1',
  'apiserver.config.k8s.io/v1',
];
const celUnsupported = 'CEL expressions are not supported by edge-apiserver yet; use claim-based mappings and rules';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/**
 * Parses and validates the file (YAML or JSON). Throws an Error whose message lists every
 * field error, upstream style (`jwt[0].issuer.url: Required value`), aggregated as `[a, b]`.
 */
export function parseAuthenticationConfiguration(
  text: string,
  disallowedIssuers: readonly string[] = [],
): AuthenticationConfiguration {
  let doc: unknown;
  try {
    doc = parseYAML(text);
  } catch (err) {
    throw new Error(`failed to decode authentication configuration: ${(err as Error).message}`);
  }
  if (!isObj(doc)) throw new Error('failed to decode authentication configuration: not an object');
  const kind = doc.kind;
  const apiVersion = doc.apiVersion;
  if (kind !== 'AuthenticationConfiguration' || typeof apiVersion !== 'string' || !apiVersions.includes(apiVersion)) {
    throw new Error(`no kind "${String(kind)}" is registered for version "${String(apiVersion)}"`);
  }
  const errs: string[] = [];
  const out: AuthenticationConfiguration = { jwt: [] };
  const jwts = doc.jwt ?? [];
  if (!Array.isArray(jwts)) errs.push('jwt: Invalid value: must be a list');
  const seen = new Set<string>();
  (Array.isArray(jwts) ? jwts : []).forEach((j: unknown, i: number) => {
    const p = `jwt[${i}]`;
    if (!isObj(j)) {
      errs.push(`${p}: Invalid value: must be an object`);
      return;
    }
    const iss = isObj(j.issuer) ? j.issuer : {};
    const url = str(iss.url) ?? '';
    if (!url) errs.push(`${p}.issuer.url: Required value`);
    else {
      let u: URL | undefined;
      try {
        u = new URL(url);
      } catch {
        errs.push(`${p}.issuer.url: Invalid value: ${JSON.stringify(url)}: url must be a valid URL`);
      }
      if (u && u.protocol !== 'https:')
        errs.push(`${p}.issuer.url: Invalid value: ${JSON.stringify(url)}: URL scheme must be https`);
      if (u && (u.search || u.hash || u.username || u.password))
        errs.push(
          `${p}.issuer.url: Invalid value: ${JSON.stringify(url)}: URL must not contain a query, fragment or user info`,
        );
      if (seen.has(url)) errs.push(`${p}.issuer.url: Duplicate value: ${JSON.stringify(url)}`);
      if (disallowedIssuers.includes(url)) {
        errs.push(
          `${p}.issuer.url: Invalid value: ${JSON.stringify(url)}: URL must not overlap with disallowed issuers: [${disallowedIssuers.join(' ')}]`,
        );
      }
      seen.add(url);
    }
    const discoveryURL = str(iss.discoveryURL);
    if (discoveryURL !== undefined && discoveryURL !== '') {
      try {
        if (new URL(discoveryURL).protocol !== 'https:')
          errs.push(
            `${p}.issuer.discoveryURL: Invalid value: ${JSON.stringify(discoveryURL)}: URL scheme must be https`,
          );
      } catch {
        errs.push(`${p}.issuer.discoveryURL: Invalid value: ${JSON.stringify(discoveryURL)}: url must be a valid URL`);
      }
      if (discoveryURL === url)
        errs.push(
          `${p}.issuer.discoveryURL: Invalid value: ${JSON.stringify(discoveryURL)}: discoveryURL must be different from URL`,
        );
    }
    const audiences = Array.isArray(iss.audiences)
      ? iss.audiences.filter((a): a is string => typeof a === 'string')
      : [];
    if (!audiences.length)
      errs.push(`${p}.issuer.audiences: Required value: at least one ${p}.issuer.audiences is required`);
    audiences.forEach((a, k) => {
      if (!a) errs.push(`${p}.issuer.audiences[${k}]: Required value`);
    });
    const policy = str(iss.audienceMatchPolicy) ?? '';
    if (audiences.length > 1 && policy !== 'MatchAny') {
      errs.push(
        `${p}.issuer.audienceMatchPolicy: Invalid value: ${JSON.stringify(policy)}: audienceMatchPolicy must be MatchAny for multiple audiences`,
      );
    } else if (policy && policy !== 'MatchAny') {
      errs.push(
        `${p}.issuer.audienceMatchPolicy: Invalid value: ${JSON.stringify(policy)}: audienceMatchPolicy must be empty or MatchAny for single audience`,
      );
    }
    const ca = str(iss.certificateAuthority);
    if (ca !== undefined && ca !== '' && !ca.includes('-----BEGIN CERTIFICATE-----')) {
      errs.push(
        `${p}.issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates`,
      );
    }

    const rules: { claim: string; requiredValue: string }[] = [];
    const rawRules = Array.isArray(j.claimValidationRules) ? j.claimValidationRules : [];
    rawRules.forEach((r: unknown, k: number) => {
      const rp = `${p}.claimValidationRules[${k}]`;
      if (!isObj(r)) return;
      if (r.expression !== undefined)
        errs.push(`${rp}.expression: Invalid value: ${JSON.stringify(r.expression)}: ${celUnsupported}`);
      const claim = str(r.claim) ?? '';
      if (!claim && r.expression === undefined) errs.push(`${rp}: Required value: claim or expression is required`);
      if (claim) rules.push({ claim, requiredValue: str(r.requiredValue) ?? '' });
    });

    const cm = isObj(j.claimMappings) ? j.claimMappings : {};
    const username = isObj(cm.username) ? cm.username : {};
    const celIn = (o: Obj, field: string) => {
      if (o.expression !== undefined)
        errs.push(
          `${p}.claimMappings.${field}.expression: Invalid value: ${JSON.stringify(o.expression)}: ${celUnsupported}`,
        );
    };
    celIn(username, 'username');
    const uclaim = str(username.claim) ?? '';
    if (!uclaim && username.expression === undefined)
      errs.push(`${p}.claimMappings.username: Required value: claim or expression is required`);
    if (uclaim && username.prefix === undefined) {
      errs.push(
        `${p}.claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing`,
      );
    }
    const groups = isObj(cm.groups) ? cm.groups : undefined;
    if (groups) {
      celIn(groups, 'groups');
      if (groups.claim && groups.prefix === undefined) {
        errs.push(
          `${p}.claimMappings.groups.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing`,
        );
      }
    }
    const uid = isObj(cm.uid) ? cm.uid : undefined;
    if (uid) celIn(uid, 'uid');
    if (Array.isArray(cm.extra) && cm.extra.length)
      errs.push(`${p}.claimMappings.extra: Invalid value: ${cm.extra.length} mapping(s): ${celUnsupported}`);
    if (Array.isArray(j.userValidationRules) && j.userValidationRules.length) {
      errs.push(`${p}.userValidationRules: Invalid value: ${j.userValidationRules.length} rule(s): ${celUnsupported}`);
    }

    const cfg: JWTAuthenticatorConfig = {
      issuer: { url, audiences },
      claimMappings: { username: { claim: uclaim, prefix: str(username.prefix) ?? '' } },
    };
    if (discoveryURL) cfg.issuer.discoveryURL = discoveryURL;
    if (policy) cfg.issuer.audienceMatchPolicy = policy;
    if (ca) cfg.issuer.certificateAuthority = ca;
    if (rules.length) cfg.claimValidationRules = rules;
    if (groups && str(groups.claim))
      cfg.claimMappings.groups = { claim: str(groups.claim), prefix: str(groups.prefix) ?? '' };
    if (uid && str(uid.claim)) cfg.claimMappings.uid = { claim: str(uid.claim) };
    out.jwt.push(cfg);
  });

  if (doc.anonymous !== undefined) {
    const a = isObj(doc.anonymous) ? doc.anonymous : {};
    const enabled = a.enabled === true;
    const conditions = (Array.isArray(a.conditions) ? a.conditions : []).map((c: unknown) => ({
      path: isObj(c) ? (str(c.path) ?? '') : '',
    }));
    if (!enabled && conditions.length)
      errs.push('anonymous.conditions: Invalid value: "": enabled should be set to true when conditions are defined');
    const paths = new Set<string>();
    conditions.forEach((c, k) => {
      if (!c.path) errs.push(`anonymous.conditions[${k}].path: Required value`);
      else if (paths.has(c.path))
        errs.push(`anonymous.conditions[${k}].path: Duplicate value: ${JSON.stringify(c.path)}`);
      paths.add(c.path);
    });
    out.anonymous = { enabled, conditions };
  }
  if (errs.length) throw new Error(errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`);
  return out;
}

/** The legacy `--oidc-*` flags as a JWT authenticator configuration. */
export interface LegacyOIDCFlags {
  issuerURL: string;
  clientID: string;
  caPEM?: string;
  usernameClaim: string;
  usernamePrefix: string;
  groupsClaim: string;
  groupsPrefix: string;
  requiredClaims: Record<string, string>;
}

export function legacyOIDCConfig(f: LegacyOIDCFlags): JWTAuthenticatorConfig {
  // Usernames from claims other than email are prefixed with the issuer URL unless a prefix is
  // given; "-" disables prefixing.
  let prefix = f.usernamePrefix;
  if (prefix === '-') prefix = '';
  else if (prefix === '' && f.usernameClaim !== 'email') prefix = f.issuerURL + '#';
  const cfg: JWTAuthenticatorConfig = {
    issuer: { url: f.issuerURL, audiences: [f.clientID] },
    claimMappings: { username: { claim: f.usernameClaim, prefix } },
  };
  if (f.caPEM) cfg.issuer.certificateAuthority = f.caPEM;
  if (f.groupsClaim) cfg.claimMappings.groups = { claim: f.groupsClaim, prefix: f.groupsPrefix };
  const rules = Object.entries(f.requiredClaims).map(([claim, requiredValue]) => ({ claim, requiredValue }));
  if (rules.length) cfg.claimValidationRules = rules;
  return cfg;
}
