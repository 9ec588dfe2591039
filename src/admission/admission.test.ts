import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdmissionChain } from './chain.ts';
import type { AdmissionPlugin, Attributes } from './interfaces.ts';
import { newNamespaceLifecycle } from './plugin/namespace/lifecycle.ts';
import { StatusError } from '../endpoints/responsewriters/status.ts';
import type { KubeObject } from '../registry/generic/store.ts';

const attrs = (over: Partial<Attributes>): Attributes => ({
  operation: 'CREATE',
  kind: { group: '', version: 'v1', kind: 'ConfigMap' },
  resource: { group: '', version: 'v1', resource: 'configmaps' },
  subresource: '',
  namespace: 'ns1',
  name: 'cm',
  dryRun: false,
  ...over,
});

test('the chain runs every mutating plugin before any validating one, in order, for the operations each handles', async () => {
  const seen: string[] = [];
  const plugin = (name: string, ops: string[]): AdmissionPlugin => ({
    name,
    handles: (op) => ops.includes(op),
    admit: () => void seen.push(`admit ${name}`),
    validate: () => void seen.push(`validate ${name}`),
  });
  const chain = new AdmissionChain([
    plugin('a', ['CREATE']),
    plugin('b', ['CREATE', 'UPDATE']),
    plugin('c', ['DELETE']),
  ]);
  await chain.admit(attrs({}));
  await chain.validate(attrs({}));
  assert.deepEqual(seen, ['admit a', 'admit b', 'validate a', 'validate b']);
});

test('NamespaceLifecycle: 404 in a missing namespace, 403 with the NamespaceTerminating cause in a terminating one', async () => {
  const namespaces = new Map<string, KubeObject>([
    ['live', { metadata: { name: 'live' }, status: { phase: 'Active' } }],
    ['dying', { metadata: { name: 'dying' }, status: { phase: 'Terminating' } }],
  ]);
  const plugin = newNamespaceLifecycle(async (name) => namespaces.get(name));
  await plugin.admit!(attrs({ namespace: 'live' }));
  await assert.rejects(
    async () => plugin.admit!(attrs({ namespace: 'nope' })),
    (err: StatusError) => err.status.code === 404 && err.status.message === 'namespaces "nope" not found',
  );
  await assert.rejects(
    async () => plugin.admit!(attrs({ namespace: 'dying' })),
    (err: StatusError) => {
      assert.deepEqual(err.status, {
        status: 'Failure',
        message:
          'configmaps "cm" is forbidden: unable to create new content in namespace dying because it is being terminated',
        reason: 'Forbidden',
        details: {
          name: 'cm',
          kind: 'configmaps',
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: 'unable to create new content in namespace dying because it is being terminated',
              field: 'dying',
            },
          ],
        },
        code: 403,
      });
      return true;
    },
  );
  // Updates in a terminating namespace and deletes anywhere pass.
  await plugin.admit!(attrs({ namespace: 'dying', operation: 'UPDATE' }));
  await plugin.admit!(attrs({ namespace: 'nope', operation: 'DELETE' }));
});

test('NamespaceLifecycle: the immortal namespaces cannot be deleted', async () => {
  const plugin = newNamespaceLifecycle(async () => undefined);
  const ns = {
    kind: { group: '', version: 'v1', kind: 'Namespace' },
    resource: { group: '', version: 'v1', resource: 'namespaces' },
    namespace: '',
    operation: 'DELETE' as const,
  };
  await assert.rejects(
    async () => plugin.admit!(attrs({ ...ns, name: 'kube-system' })),
    (err: StatusError) =>
      err.status.code === 403 &&
      err.status.message === 'namespaces "kube-system" is forbidden: this namespace may not be deleted',
  );
  await plugin.admit!(attrs({ ...ns, name: 'scratch' }));
});
