// API errors as k8s.io/apimachinery/pkg/api/errors/errors.go builds them (messages, reasons, codes
// and details byte for byte), over the one Status type of responsewriters/status.ts; Invalid carries
// the field errors of src/util/validation/field.ts.

import { aggregateMessage, statusCauses, type ErrorList } from '../util/validation/field.ts';
import { errorMessage, StatusError, type Status } from './responsewriters/status.ts';
import { goQuote } from '../util/go.ts';

/** schema.GroupResource; String() is `resource` or `resource.group`. */
export interface GroupResource {
  group: string;
  resource: string;
}

export function groupResourceString(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/** schema.GroupKind; String() is `kind` or `kind.group`. */
export interface GroupKind {
  group: string;
  kind: string;
}

function failure(code: number, reason: string, message: string, details?: Status['details']): StatusError {
  const status: Status = { status: 'Failure', message, reason, code };
  if (details) status.details = details;
  return new StatusError(status);
}

export function newNotFound(gr: GroupResource, name: string): StatusError {
  return failure(404, 'NotFound', `${groupResourceString(gr)} ${goQuote(name)} not found`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

export function newAlreadyExists(gr: GroupResource, name: string): StatusError {
  return failure(409, 'AlreadyExists', `${groupResourceString(gr)} ${goQuote(name)} already exists`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

export function newConflict(gr: GroupResource, name: string, err: unknown): StatusError {
  return failure(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${groupResourceString(gr)} ${goQuote(name)}: ${errorMessage(err)}`,
    { name, group: gr.group, kind: gr.resource },
  );
}

/** registry/generic/registry/store.go OptimisticLockErrorMsg. */
export const OptimisticLockErrorMsg =
  'the object has been modified; please apply your changes to the latest version and try again';

export function newGone(message: string): StatusError {
  return failure(410, 'Gone', message);
}

export function newResourceExpired(message: string): StatusError {
  return failure(410, 'Expired', message);
}

export function newBadRequest(message: string): StatusError {
  return failure(400, 'BadRequest', message);
}

/** 413 RequestEntityTooLarge (apierrors.NewRequestEntityTooLargeError). */
export function newRequestEntityTooLarge(message: string): StatusError {
  return failure(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`);
}

export function newInternalError(err: unknown): StatusError {
  return failure(500, 'InternalError', `Internal error occurred: ${errorMessage(err)}`, {
    causes: [{ message: errorMessage(err) }],
  });
}

/** 504 Timeout: the message gets upstream's `Timeout: ` prefix. */
export function newTimeoutError(message: string, retryAfterSeconds: number): StatusError {
  return failure(504, 'Timeout', `Timeout: ${message}`, { retryAfterSeconds });
}

export function newServerTimeout(gr: GroupResource, operation: string, retryAfterSeconds: number): StatusError {
  return failure(
    500,
    'ServerTimeout',
    `The ${operation} operation against ${groupResourceString(gr)} could not be completed at this time, please try again.`,
    { name: operation, group: gr.group, kind: gr.resource, retryAfterSeconds },
  );
}

export function newTooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return failure(429, 'TooManyRequests', message, { retryAfterSeconds });
}

export function newServiceUnavailable(message: string): StatusError {
  return failure(503, 'ServiceUnavailable', message);
}

export function newMethodNotSupported(gr: GroupResource, action: string): StatusError {
  return failure(
    405,
    'MethodNotAllowed',
    `${action} is not supported on resources of kind ${goQuote(groupResourceString(gr))}`,
    {
      group: gr.group,
      kind: gr.resource,
    },
  );
}

export function newInvalid(gk: GroupKind, name: string, errs: ErrorList): StatusError {
  const causes = statusCauses(errs);
  const what = `${gk.group ? `${gk.kind}.${gk.group}` : gk.kind} ${goQuote(name)} is invalid`;
  const message = errs.length ? `${what}: ${aggregateMessage(errs)}` : what;
  return failure(422, 'Invalid', message, { name, group: gk.group, kind: gk.kind, causes });
}

export function isStatusError(err: unknown): err is StatusError {
  return err instanceof StatusError;
}

export function reasonForError(err: unknown): string | undefined {
  return err instanceof StatusError ? err.status.reason : undefined;
}

export const isNotFound = (err: unknown) => reasonForError(err) === 'NotFound';
export const isAlreadyExists = (err: unknown) => reasonForError(err) === 'AlreadyExists';
export const isConflict = (err: unknown) => reasonForError(err) === 'Conflict';
export const isResourceExpired = (err: unknown) => reasonForError(err) === 'Expired';
export const isGone = (err: unknown) => reasonForError(err) === 'Gone';
export const isInvalid = (err: unknown) => reasonForError(err) === 'Invalid';
export const isBadRequest = (err: unknown) => reasonForError(err) === 'BadRequest';
export const isTimeout = (err: unknown) => reasonForError(err) === 'Timeout';
export const isInternalError = (err: unknown) => reasonForError(err) === 'InternalError';
