import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceRegistry } from '../../registry/rest/registry.ts';
import { builtinResources } from '../../registry/core/resources.ts';
import { StorageFactory } from '../../storage/storagebackend/factory.ts';
import { MemoryKV } from '../../storage/memory/kv.ts';
import { discardLogger } from '../../util/logger.ts';
import { IdentityLeaseComponentLabelKey, newAPIServerIdentityController } from './apiserveridentity.ts';
import { microTime } from '../leaderelection/leaderelection.ts';

test('identity Lease: created with the label, renewed; expired ones of other servers collected; deleted on stop', async () => {
  const factory = new StorageFactory({ kv: new MemoryKV(), watchCache: false });
  const registry = new ResourceRegistry(factory, builtinResources);
  const leases = registry.store('coordination.k8s.io', 'leases')!;
  const ns = { namespace: 'kube-system' };
  const foreign = (name: string, renewedAgoMs: number) =>
    leases.create(
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, labels: { [IdentityLeaseComponentLabelKey]: 'kube-apiserver' } },
        spec: { holderIdentity: name, leaseDurationSeconds: 3600, renewTime: microTime(Date.now() - renewedAgoMs) },
      },
      ns,
    );
  await foreign('apiserver-dead', 3601_000);
  await foreign('apiserver-alive', 60_000);
  // Not an identity lease: never touched.
  await leases.create(
    { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'other' }, spec: {} },
    ns,
  );
  const stop = new AbortController();
  const run = newAPIServerIdentityController('apiserver-me', { renewIntervalMs: 20, gcPeriodMs: 0 }).run(
    registry,
    stop.signal,
    discardLogger,
  );
  try {
    let mine;
    for (let i = 0; i < 200 && !mine; i++) {
      mine = await Promise.resolve(leases.get('kube-system', 'apiserver-me')).catch(() => undefined);
      if (!mine) await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(mine, 'own identity lease created');
    assert.equal(mine.metadata.labels?.[IdentityLeaseComponentLabelKey], 'kube-apiserver');
    assert.deepEqual(
      {
        holder: (mine.spec as { holderIdentity: string }).holderIdentity,
        d: (mine.spec as { leaseDurationSeconds: number }).leaseDurationSeconds,
      },
      { holder: 'apiserver-me', d: 3600 },
    );
    const first = mine.metadata.resourceVersion;
    let renewed = first;
    for (let i = 0; i < 200 && renewed === first; i++) {
      await new Promise((r) => setTimeout(r, 10));
      renewed = (await leases.get('kube-system', 'apiserver-me')).metadata.resourceVersion;
    }
    assert.notEqual(renewed, first, 'renewed');
    const names = (await leases.list('kube-system', { resourceVersion: '' })).items.map((l) => l.metadata.name).sort();
    assert.deepEqual(names, ['apiserver-alive', 'apiserver-me', 'other']);
  } finally {
    stop.abort();
    await run;
  }
  const after = (await leases.list('kube-system', { resourceVersion: '' })).items.map((l) => l.metadata.name).sort();
  assert.deepEqual(after, ['apiserver-alive', 'other'], 'own lease deleted on a graceful stop');
  factory.destroy();
});
