// authorizer.Attributes / Authorizer / RuleResolver as in k8s.io/apiserver/pkg/authorization/authorizer.

import type { UserInfo } from '../endpoints/request/context.ts';

/** DecisionDeny (the zero value), DecisionAllow, DecisionNoOpinion. */
export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

/** authorizer.AttributesRecord: what a request wants to do. */
export interface Attributes {
  user?: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  /** Decoded URL path (non-resource requests). */
  path: string;
  namespace: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
  /** Raw `fieldSelector` (list/watch/deletecollection), for webhooks. */
  fieldSelector?: string;
  /** Raw `labelSelector` (list/watch/deletecollection), for webhooks. */
  labelSelector?: string;
}

export interface AuthorizationResult {
  decision: Decision;
  /** Human-readable reason; appended to 403 messages as `: <reason>`. */
  reason: string;
  /** An evaluation error; with a non-Allow decision the filter answers 500. */
  error?: Error;
}

export interface Authorizer {
  /**
   * A result, or a Promise of one. The built-in authorizers answer synchronously, so the
   * authorization filter (and every filter outside it) stays off the Promise path.
   */
  authorize(attributes: Attributes): AuthorizationResult | Promise<AuthorizationResult>;
}

/** authorizer.ResourceRuleInfo (authorization.k8s.io ResourceRule). */
export interface ResourceRuleInfo {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
}

/** authorizer.NonResourceRuleInfo. */
export interface NonResourceRuleInfo {
  verbs: string[];
  nonResourceURLs: string[];
}

export interface RulesResult {
  resourceRules: ResourceRuleInfo[];
  nonResourceRules: NonResourceRuleInfo[];
  /** True when the list may be missing rules (e.g. a webhook authorizer is in the chain). */
  incomplete: boolean;
  error?: Error;
}

/** authorizer.RuleResolver: what SelfSubjectRulesReview reports. */
export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): Promise<RulesResult>;
}

/** An authorizer that also resolves rules (every built-in one does). */
export interface AuthorizerWithRules extends Authorizer, RuleResolver {}

/** Attributes with every string field empty; spread your own over it. */
export function attributes(init: Partial<Attributes>): Attributes {
  return {
    verb: '',
    isResourceRequest: false,
    path: '',
    namespace: '',
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    name: '',
    ...init,
  };
}

/** utilerrors.NewAggregate: one error as is, several as `[a, b]`; undefined for none. */
export function aggregateErrors(errors: readonly Error[]): Error | undefined {
  if (errors.length === 0) return undefined;
  if (errors.length === 1) return errors[0];
  const err = new Error(`[${errors.map((e) => e.message).join(', ')}]`);
  err.name = 'AggregateError';
  return err;
}
