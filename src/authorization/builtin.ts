// The simple authorizers: AlwaysAllow, AlwaysDeny and the privileged-group authorizer
// (k8s.io/apiserver/pkg/authorization/authorizerfactory/builtin.go).

import type { UserInfo } from '../endpoints/request/context.ts';
import type { Attributes, AuthorizationResult, AuthorizerWithRules, RulesResult } from './authorizer.ts';

const allowResult: AuthorizationResult = Object.freeze({ decision: 'Allow', reason: '' });

/** AlwaysAllow: every request, and a rules list of `*`. */
export class AlwaysAllowAuthorizer implements AuthorizerWithRules {
  authorize(): AuthorizationResult {
    return allowResult;
  }
  async rulesFor(): Promise<RulesResult> {
    return {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    };
  }
}

/** AlwaysDeny: NoOpinion with reason `Everything is forbidden.` (so later authorizers may still allow). */
export class AlwaysDenyAuthorizer implements AuthorizerWithRules {
  authorize(): AuthorizationResult {
    return { decision: 'NoOpinion', reason: 'Everything is forbidden.' };
  }
  async rulesFor(): Promise<RulesResult> {
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }
}

/**
 * NewPrivilegedGroups: Allow when the user is in one of the groups (kube-apiserver puts this
 * first for `system:masters`, whatever the modes), else NoOpinion.
 */
export class PrivilegedGroupAuthorizer {
  readonly groups: readonly string[];
  constructor(groups: readonly string[]) {
    this.groups = groups;
  }
  authorize(a: Attributes): AuthorizationResult {
    if (!a.user) return { decision: 'NoOpinion', reason: 'Error', error: new Error('no user on request.') };
    for (const g of a.user.groups ?? []) if (this.groups.includes(g)) return allowResult;
    return { decision: 'NoOpinion', reason: '' };
  }
}

/** A user's display form for logs (`name[uid]` is not used upstream; name and groups). */
export function userString(u: UserInfo | undefined): string {
  if (!u) return '<none>';
  return `${u.name}${u.groups?.length ? ` [${u.groups.join(',')}]` : ''}`;
}
