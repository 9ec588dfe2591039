// authorizer.Attributes / Authorizer as in k8s.io/apiserver/pkg/authorization/authorizer.

import type { UserInfo } from '../endpoints/request/context.ts';

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface Attributes {
  user?: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  namespace: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
  fieldSelector?: string;
  labelSelector?: string;
}

export interface AuthorizationResult {
  decision: Decision;
  reason: string;
  error?: Error;
}

export interface Authorizer {
  authorize(attributes: Attributes): Promise<AuthorizationResult>;
}
