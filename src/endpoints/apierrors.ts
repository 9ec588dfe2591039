// API errors as k8s.io/apimachinery/pkg/api/errors/errors.go builds them (messages, reasons, codes
// and details byte for byte), over the one Status type of responsewriters/status.ts, plus the
// field.Error list of k8s.io/apimachinery/pkg/util/validation/field/errors.go that Invalid carries.

import { errorMessage, goQuote, StatusError, type Status, type StatusCause } from './responsewriters/status.ts';

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
export const OptimisticLockErrorMsg = 'the object has been modified; please apply your changes to the latest version and try again';

export function newGone(message: string): StatusError {
  return failure(410, 'Gone', message);
}

export function newResourceExpired(message: string): StatusError {
  return failure(410, 'Expired', message);
}

export function newBadRequest(message: string): StatusError {
  return failure(400, 'BadRequest', message);
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

export function newServiceUnavailable(message: string): StatusError {
  return failure(503, 'ServiceUnavailable', message);
}

export function newMethodNotSupported(gr: GroupResource, action: string): StatusError {
  return failure(405, 'MethodNotAllowed', `${action} is not supported on resources of kind ${goQuote(groupResourceString(gr))}`, {
    group: gr.group,
    kind: gr.resource,
  });
}

/** field.ErrorType values as they appear in a StatusCause's reason. */
export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

/** field.Error. `badValue` is rendered as Go's %#v would for strings, numbers, booleans and string lists. */
export interface FieldError {
  type: FieldErrorType;
  field: string;
  badValue?: unknown;
  detail?: string;
}

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

function goValue(v: unknown): string {
  if (typeof v === 'string') return goQuote(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return `[]string{${v.map(goQuote).join(', ')}}`;
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** field.Error.ErrorBody. */
export function fieldErrorBody(e: FieldError): string {
  let s = typeText[e.type];
  const omitValue =
    e.type === 'FieldValueRequired' ||
    e.type === 'FieldValueForbidden' ||
    e.type === 'FieldValueTooLong' ||
    e.type === 'InternalError' ||
    e.badValue === undefined;
  if (!omitValue) s += `: ${goValue(e.badValue)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** field.Error.Error(): `<field>: <body>`, where a nil path prints `<nil>`. */
export function fieldErrorString(e: FieldError): string {
  return `${e.field || '<nil>'}: ${fieldErrorBody(e)}`;
}

export const field = {
  invalid: (path: string, badValue: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field: path, badValue, detail }),
  required: (path: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field: path, detail }),
  forbidden: (path: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field: path, detail }),
  notSupported: (path: string, badValue: unknown, valid: string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field: path,
    badValue,
    detail: valid.length ? `supported values: ${valid.map(goQuote).join(', ')}` : '',
  }),
};

/** utilerrors.NewAggregate(...).Error(): one message alone, several as `[a, b]` (duplicates dropped). */
export function aggregateMessage(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

export function newInvalid(gk: GroupKind, name: string, errs: FieldError[]): StatusError {
  const causes: StatusCause[] = errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  const what = `${gk.group ? `${gk.kind}.${gk.group}` : gk.kind} ${goQuote(name)} is invalid`;
  const message = errs.length ? `${what}: ${aggregateMessage(errs.map(fieldErrorString))}` : what;
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
