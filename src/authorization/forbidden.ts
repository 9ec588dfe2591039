// responsewriters.Forbidden / ForbiddenStatusError and apierrors.NewForbidden, byte-for-byte.
// Upstream: endpoints/handlers/responsewriters/errors.go, apimachinery/pkg/api/errors/errors.go.

import { htmlSanitize, respondWithError, type Status } from '../endpoints/responsewriters/status.ts';
import { goQuote } from '../util/go.ts';
import type { Attributes } from './authorizer.ts';

/** forbiddenMessage: `User "<u>" cannot <verb> …` (Go %q quoting, verb unquoted). */
export function forbiddenMessage(a: Attributes): string {
  const username = a.user?.name ?? '';
  if (!a.isResourceRequest) return `User ${goQuote(username)} cannot ${a.verb} path ${goQuote(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  if (a.namespace) {
    return `User ${goQuote(username)} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.apiGroup)} in the namespace ${goQuote(a.namespace)}`;
  }
  return `User ${goQuote(username)} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.apiGroup)} at the cluster scope`;
}

/** apierrors.NewForbidden(GroupResource{group, resource}, name, err). */
export function newForbidden(group: string, resource: string, name: string, errMsg: string): Status {
  let message: string;
  if (!group && !resource) message = `forbidden: ${errMsg}`;
  else {
    const gr = group ? `${resource}.${group}` : resource;
    message = name ? `${gr} ${goQuote(name)} is forbidden: ${errMsg}` : `${gr} is forbidden: ${errMsg}`;
  }
  const details: Status['details'] = {};
  if (name) details.name = name;
  if (group) details.group = group;
  if (resource) details.kind = resource;
  return { status: 'Failure', message, reason: 'Forbidden', details, code: 403 };
}

/** The Status of responsewriters.Forbidden: sanitised message, then `: <reason>` (not sanitised). */
export function forbiddenStatus(a: Attributes, reason: string): Status {
  const msg = htmlSanitize(forbiddenMessage(a));
  const errMsg = reason ? `${msg}: ${reason}` : msg;
  return newForbidden(a.apiGroup, a.resource, a.name, errMsg);
}

/** responsewriters.Forbidden: negotiated 403 Status with `X-Content-Type-Options: nosniff`. */
export function forbidden(a: Attributes, reason: string, request: Request, url?: URL): Response {
  return respondWithError(forbiddenStatus(a, reason), request, url);
}
