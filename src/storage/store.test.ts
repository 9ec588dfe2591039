// The storage conformance suite (src/storage/testing/storage-cases.ts) over the store on the memory engine.
import { test } from 'node:test';
import { MemoryKV } from './memory/kv.ts';
import { storageCases } from './testing/storage-cases.ts';
import { storeSubject } from './testing/subjects.ts';

for (const c of storageCases) {
  test(`store on memory: ${c.name}`, async () => {
    const kv = new MemoryKV({ progressNotifyIntervalMs: 200 });
    try {
      await c.run(storeSubject(kv));
    } finally {
      await kv.close();
    }
  });
}
