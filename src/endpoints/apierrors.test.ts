import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeStatus } from './responsewriters/status.ts';
import {
  newAlreadyExists,
  newConflict,
  newInvalid,
  newNotFound,
  newServerTimeout,
  OptimisticLockErrorMsg,
} from './apierrors.ts';
import { invalid, Path } from '../util/validation/field.ts';
import { newInconsistentContinueError, newTooLargeResourceVersionError } from '../storage/errors.ts';

const wire = (e: { status: Parameters<typeof encodeStatus>[0] }) => encodeStatus(e.status);

test('API errors: the Status bytes kube-apiserver writes', () => {
  assert.equal(
    wire(newNotFound({ group: '', resource: 'configmaps' }, 'a')),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"a\\" not found","reason":"NotFound","details":{"name":"a","kind":"configmaps"},"code":404}\n',
  );
  assert.equal(
    wire(newAlreadyExists({ group: 'apps', resource: 'deployments' }, 'd')),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"d\\" already exists","reason":"AlreadyExists","details":{"name":"d","group":"apps","kind":"deployments"},"code":409}\n',
  );
  assert.equal(
    newConflict({ group: '', resource: 'configmaps' }, 'a', new Error(OptimisticLockErrorMsg)).status.message,
    'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
  );
  assert.equal(
    wire(newTooLargeResourceVersionError(100, 42, 1)),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 100, current: 42","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}\n',
  );
  const gone = wire(newInconsistentContinueError('tok'));
  assert.ok(
    gone.startsWith(
      '{"kind":"Status","apiVersion":"v1","metadata":{"continue":"tok"},"status":"Failure","message":"The provided continue parameter is too old',
    ),
  );
  assert.ok(gone.endsWith('"reason":"Expired","code":410}\n'));
  assert.equal(
    wire(newServerTimeout({ group: '', resource: 'pods' }, 'get', 2)),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"The get operation against pods could not be completed at this time, please try again.","reason":"ServerTimeout","details":{"name":"get","kind":"pods","retryAfterSeconds":2},"code":500}\n',
  );
  const inv = newInvalid({ group: '', kind: 'ConfigMap' }, 'a', [invalid(Path.of('metadata', 'name'), 'A', 'bad')]);
  assert.equal(inv.status.message, 'ConfigMap "a" is invalid: metadata.name: Invalid value: "A": bad');
  assert.deepEqual(inv.status.details?.causes, [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "A": bad', field: 'metadata.name' },
  ]);
  assert.equal(inv.status.code, 422);
});
