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
import { appendAll } from '../util/append.ts';

/** The first Allow or Deny wins; all NoOpinion → NoOpinion with joined reasons and errors. */
export class UnionAuthorizer implements Authorizer {
  readonly authorizers: readonly Authorizer[];
  constructor(authorizers: readonly Authorizer[]) {
    this.authorizers = authorizers;
  }
  authorize(a: Attributes): AuthorizationResult | Promise<AuthorizationResult> {
    // Synchronous while the authorizers are (the built-in ones); from the first Promise on, the
    // rest of the walk awaits.
    const acc: UnionAccumulator = { errors: undefined, reasons: undefined };
    const list = this.authorizers;
    for (let i = 0; i < list.length; i++) {
      let r: AuthorizationResult | Promise<AuthorizationResult>;
      try {
        r = list[i]!.authorize(a);
      } catch (err) {
        r = failed(err);
      }
      if (r instanceof Promise) return this.authorizeFrom(a, i, r, acc);
      if (decided(r, acc)) return r;
    }
    return noOpinion(acc);
  }

  private async authorizeFrom(
    a: Attributes,
    i: number,
    first: Promise<AuthorizationResult>,
    acc: UnionAccumulator,
  ): Promise<AuthorizationResult> {
    const list = this.authorizers;
    let pending: Promise<AuthorizationResult> | undefined = first;
    for (; i < list.length; i++) {
      let r: AuthorizationResult;
      try {
        r = await (pending ?? list[i]!.authorize(a));
      } catch (err) {
        r = failed(err);
      }
      pending = undefined;
      if (decided(r, acc)) return r;
    }
    return noOpinion(acc);
  }
}

interface UnionAccumulator {
  errors: Error[] | undefined;
  reasons: string[] | undefined;
}

function failed(err: unknown): AuthorizationResult {
  return { decision: 'NoOpinion', reason: '', error: err instanceof Error ? err : new Error(String(err)) };
}

/** Records a result's error and reason; true when it decides (Allow or Deny). */
function decided(r: AuthorizationResult, acc: UnionAccumulator): boolean {
  if (r.error) (acc.errors ??= []).push(r.error);
  if (r.reason) (acc.reasons ??= []).push(r.reason);
  return r.decision === 'Allow' || r.decision === 'Deny';
}

function noOpinion(acc: UnionAccumulator): AuthorizationResult {
  const error = acc.errors ? aggregateErrors(acc.errors) : undefined;
  const reason = acc.reasons?.join('\n') ?? '';
  return error ? { decision: 'NoOpinion', reason, error } : { decision: 'NoOpinion', reason };
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
      appendAll(resourceRules, res.resourceRules);
      appendAll(nonResourceRules, res.nonResourceRules);
    }
    const error = aggregateErrors(errors);
    return error
      ? { resourceRules, nonResourceRules, incomplete, error }
      : { resourceRules, nonResourceRules, incomplete };
  }
}
