// union.New for authorizers and rule resolvers (k8s.io/apiserver/pkg/authorization/union).
// Reasons of NoOpinion authorizers are joined with "\n"
// (v1.34; later releases prefix each with the authorizer's name).

import type { UserInfo } from '../endpoints/request/context.ts';
import {
  aggregateErrors,
  type Attributes,
  type AuthorizationResult,
  type Authorizer,
  type NonResourceRuleInfo,
  type ResourceRuleInfo,
  type RuleResolver,
  type RulesResult,
} from './authorizer.ts';

/** The first Allow or Deny wins; all NoOpinion → NoOpinion with joined reasons and errors. */
export class UnionAuthorizer implements Authorizer {
  readonly authorizers: readonly Authorizer[];
  constructor(authorizers: readonly Authorizer[]) {
    this.authorizers = authorizers;
  }
  async authorize(a: Attributes): Promise<AuthorizationResult> {
    let errors: Error[] | undefined;
    let reasons: string[] | undefined;
    for (const authz of this.authorizers) {
      let r: AuthorizationResult;
      try {
        r = await authz.authorize(a);
      } catch (err) {
        r = { decision: 'NoOpinion', reason: '', error: err instanceof Error ? err : new Error(String(err)) };
      }
      if (r.error) (errors ??= []).push(r.error);
      if (r.reason) (reasons ??= []).push(r.reason);
      if (r.decision === 'Allow' || r.decision === 'Deny') return r;
    }
    const error = errors ? aggregateErrors(errors) : undefined;
    return error
      ? { decision: 'NoOpinion', reason: reasons?.join('\n') ?? '', error }
      : { decision: 'NoOpinion', reason: reasons?.join('\n') ?? '' };
  }
}

/** unionAuthzRulesHandler: concatenated rules; incomplete if any is; errors aggregated. */
export class UnionRuleResolver implements RuleResolver {
  readonly resolvers: readonly RuleResolver[];
  constructor(resolvers: readonly RuleResolver[]) {
    this.resolvers = resolvers;
  }
  async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    const resourceRules: ResourceRuleInfo[] = [];
    const nonResourceRules: NonResourceRuleInfo[] = [];
    const errors: Error[] = [];
    let incomplete = false;
    for (const r of this.resolvers) {
      const res = await r.rulesFor(user, namespace);
      if (res.incomplete) incomplete = true;
      if (res.error) errors.push(res.error);
      resourceRules.push(...res.resourceRules);
      nonResourceRules.push(...res.nonResourceRules);
    }
    const error = aggregateErrors(errors);
    return error
      ? { resourceRules, nonResourceRules, incomplete, error }
      : { resourceRules, nonResourceRules, incomplete };
  }
}
