// The storage conformance suite over the watch cache (above the store on the memory engine).
import { test } from 'node:test';
import { MemoryKV } from '../memory/kv.ts';
import { storageCases } from '../testing/storage-cases.ts';
import { cacherSubject } from '../testing/subjects.ts';

for (const c of storageCases) {
  test(`watch cache on memory: ${c.name}`, async () => {
    const kv = new MemoryKV({ progressNotifyIntervalMs: 200 });
    try {
      await c.run(cacherSubject(kv));
    } finally {
      await kv.close();
    }
  });
}
