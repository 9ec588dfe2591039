// Storage errors (k8s.io/apiserver/pkg/storage/errors.go) and their mapping onto API errors
// (k8s.io/apiserver/pkg/storage/errors/storage.go, pkg/storage/etcd3/errors.go).

import {
  newAlreadyExists,
  newConflict,
  newInternalError,
  newInvalid,
  newNotFound,
  newRequestEntityTooLarge,
  newResourceExpired,
  newServerTimeout,
  newTimeoutError,
  type GroupResource,
} from '../endpoints/apierrors.ts';
import { aggregateMessage, type ErrorList } from '../util/validation/field.ts';
import { StatusError } from '../endpoints/responsewriters/status.ts';
import { ValueTooLargeError } from './kv.ts';

export const ErrCodeKeyNotFound = 1;
export const ErrCodeKeyExists = 2;
export const ErrCodeResourceVersionConflicts = 3;
export const ErrCodeInvalidObj = 4;
export const ErrCodeUnreachable = 5;
export const ErrCodeTimeout = 6;
export const ErrCodeCorruptObj = 7;

const codeMessage: Record<number, string> = {
  [ErrCodeKeyNotFound]: 'key not found',
  [ErrCodeKeyExists]: 'key exists',
  [ErrCodeResourceVersionConflicts]: 'resource version conflicts',
  [ErrCodeInvalidObj]: 'invalid object',
  [ErrCodeUnreachable]: 'server unreachable',
  [ErrCodeTimeout]: 'request timeout',
  [ErrCodeCorruptObj]: 'corrupt object',
};

export const ErrResourceVersionSetOnCreate = 'resourceVersion should not be set on objects to be created';
export const ErrStorageNotReady = 'storage not ready';

/** storage.StorageError; Error() as upstream formats it. */
export class StorageError extends Error {
  readonly code: number;
  readonly key: string;
  readonly resourceVersion: number;
  readonly inner?: string;
  constructor(code: number, key: string, resourceVersion = 0, inner?: string) {
    super(
      `StorageError: ${codeMessage[code]}, Code: ${code}, Key: ${key}, ResourceVersion: ${resourceVersion}, ` +
        `AdditionalErrorMsg: ${inner ?? '<nil>'}`,
    );
    this.name = 'StorageError';
    this.code = code;
    this.key = key;
    this.resourceVersion = resourceVersion;
    this.inner = inner;
  }
}

export const newKeyNotFoundError = (key: string, rv: number) => new StorageError(ErrCodeKeyNotFound, key, rv);
export const newKeyExistsError = (key: string, rv: number) => new StorageError(ErrCodeKeyExists, key, rv);
export const newResourceVersionConflictsError = (key: string, rv: number) =>
  new StorageError(ErrCodeResourceVersionConflicts, key, rv);
export const newUnreachableError = (key: string, rv: number) => new StorageError(ErrCodeUnreachable, key, rv);
export const newTimeoutStorageError = (key: string, msg: string) => new StorageError(ErrCodeTimeout, key, 0, msg);
export const newInvalidObjError = (key: string, msg: string) => new StorageError(ErrCodeInvalidObj, key, 0, msg);
export const newCorruptObjError = (key: string, err: unknown) =>
  new StorageError(ErrCodeCorruptObj, key, 0, err instanceof Error ? err.message : String(err));

const isCode = (err: unknown, code: number) => err instanceof StorageError && err.code === code;
export const isNotFound = (err: unknown) => isCode(err, ErrCodeKeyNotFound);
export const isExist = (err: unknown) => isCode(err, ErrCodeKeyExists);
export const isConflict = (err: unknown) => isCode(err, ErrCodeResourceVersionConflicts);
export const isInvalidObj = (err: unknown) => isCode(err, ErrCodeInvalidObj);
export const isUnreachable = (err: unknown) => isCode(err, ErrCodeUnreachable);
export const isRequestTimeout = (err: unknown) => isCode(err, ErrCodeTimeout);
export const isCorruptObject = (err: unknown) => isCode(err, ErrCodeCorruptObj);

/** storage.InvalidError: a field.ErrorList (the watch cache's invalid-options answer). */
export class InvalidError extends Error {
  readonly errs: ErrorList;
  constructor(errs: ErrorList) {
    super(aggregateMessage(errs));
    this.name = 'InvalidError';
    this.errs = errs;
  }
}

/** storage.InternalError: an engine fault with its reason. */
export class InternalError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'InternalError';
  }
}

export const isInvalidError = (err: unknown): err is InvalidError => err instanceof InvalidError;
export const isInternalError = (err: unknown): err is InternalError => err instanceof InternalError;

/** storage.NewTooLargeResourceVersionError: 504 with cause ResourceVersionTooLarge. */
export function newTooLargeResourceVersionError(minimum: number, current: number, retrySeconds: number): StatusError {
  const err = newTimeoutError(`Too large resource version: ${minimum}, current: ${current}`, retrySeconds);
  err.status.details!.causes = [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }];
  return err;
}

export function isTooLargeResourceVersion(err: unknown): boolean {
  return (
    err instanceof StatusError &&
    err.status.reason === 'Timeout' &&
    !!err.status.details?.causes?.some((c) => c.reason === 'ResourceVersionTooLarge')
  );
}

// pkg/storage/etcd3/errors.go messages.
export const expiredListMessage = 'The resourceVersion for the provided list is too old.';
export const expiredWatchMessage = 'The resourceVersion for the provided watch is too old.';
export const continueExpiredMessage =
  'The provided continue parameter is too old to display a consistent list result. ' +
  'You can start a new list without the continue parameter.';
export const inconsistentContinueMessage =
  'The provided continue parameter is too old to display a consistent list result. ' +
  'You can start a new list without the continue parameter, or use the continue token in this response to ' +
  'retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - ' +
  'objects that were created, modified, or deleted between the time the first chunk was returned and now may ' +
  'show up in the list.';

/** 410 Expired for a compacted paged list: carries a continue token at rv -1 (continue from the latest). */
export function newInconsistentContinueError(continueToken: string): StatusError {
  const err = newResourceExpired(inconsistentContinueMessage);
  err.status.metadata = { continue: continueToken };
  return err;
}

// pkg/storage/errors/storage.go: storage errors → API errors, per operation. Anything else passes
// through unchanged (StatusErrors stay as they are; the handlers turn other errors into 500s).

export function interpretListError(err: unknown, gr: GroupResource): unknown {
  if (isNotFound(err)) return newNotFound(gr, '');
  if (isUnreachable(err) || isRequestTimeout(err)) return newServerTimeout(gr, 'list', 2);
  if (isInternalError(err) || isCorruptObject(err)) return newInternalError(err);
  return err;
}

export function interpretGetError(err: unknown, gr: GroupResource, name: string): unknown {
  if (isNotFound(err)) return newNotFound(gr, name);
  if (isUnreachable(err)) return newServerTimeout(gr, 'get', 2);
  if (isInternalError(err) || isCorruptObject(err)) return newInternalError(err);
  return err;
}

/** An object over the engine's size limit is the client's mistake: 413, as over the body limit. */
function tooLarge(err: unknown): StatusError | undefined {
  if (!(err instanceof ValueTooLargeError)) return undefined;
  return newRequestEntityTooLarge(err.limit > 0 ? `limit is ${err.limit}` : err.message);
}

export function interpretCreateError(err: unknown, gr: GroupResource, name: string): unknown {
  const big = tooLarge(err);
  if (big) return big;
  if (isExist(err)) return newAlreadyExists(gr, name);
  if (isUnreachable(err)) return newServerTimeout(gr, 'create', 2);
  if (isInternalError(err) || isCorruptObject(err)) return newInternalError(err);
  return err;
}

export function interpretUpdateError(err: unknown, gr: GroupResource, name: string): unknown {
  const big = tooLarge(err);
  if (big) return big;
  if (isConflict(err) || isExist(err) || isInvalidObj(err)) return newConflict(gr, name, err);
  if (isUnreachable(err)) return newServerTimeout(gr, 'update', 2);
  if (isNotFound(err)) return newNotFound(gr, name);
  if (isInternalError(err) || isCorruptObject(err)) return newInternalError(err);
  return err;
}

export function interpretDeleteError(err: unknown, gr: GroupResource, name: string): unknown {
  if (isNotFound(err)) return newNotFound(gr, name);
  if (isUnreachable(err)) return newServerTimeout(gr, 'delete', 2);
  if (isConflict(err) || isExist(err) || isInvalidObj(err)) return newConflict(gr, name, err);
  if (isInternalError(err) || isCorruptObject(err)) return newInternalError(err);
  return err;
}

export function interpretWatchError(err: unknown, gr: GroupResource, name: string): unknown {
  if (isInvalidError(err)) return newInvalid({ group: gr.group, kind: gr.resource }, name, err.errs);
  if (isInternalError(err) || isCorruptObject(err)) return newInternalError(err);
  return err;
}
