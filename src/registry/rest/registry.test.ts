import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ResourceRegistry } from './registry.ts';
import { builtinResources } from '../core/resources.ts';
import { StorageFactory } from '../../storage/storagebackend/factory.ts';
import { MemoryKV } from '../../storage/memory/kv.ts';

test('the registry serves each definition from its own Store, and adds and removes resources at run time', async () => {
  const factory = new StorageFactory({ kv: new MemoryKV(), watchCache: false });
  const registry = new ResourceRegistry(factory, builtinResources);
  try {
    const cms = registry.store('', 'configmaps');
    assert.ok(cms);
    assert.equal(registry.store('coordination.k8s.io', 'leases')?.apiVersion, 'coordination.k8s.io/v1');
    assert.equal(registry.store('', 'pods'), undefined);
    assert.throws(() => registry.add(builtinResources[1]!), /already registered/);

    const events: string[] = [];
    registry.onChange((e, r) => events.push(`${e} ${r.definition.resource.name}`));
    const widget = { ...builtinResources[1]!, group: 'example.com', custom: true };
    widget.resource = { ...widget.resource, name: 'widgets', kind: 'Widget' };
    const store = registry.add(widget);
    const created = await store.create({ metadata: { name: 'w1', namespace: 'default' } }, { namespace: 'default' });
    assert.equal(created.metadata.name, 'w1');
    assert.equal(store.key('default', 'w1'), '/example.com/widgets/default/w1');
    registry.remove('example.com', 'widgets');
    assert.equal(registry.store('example.com', 'widgets'), undefined);
    assert.deepEqual(events, ['add widgets', 'remove widgets']);
  } finally {
    factory.destroy();
  }
});
