// The KV conformance cases (src/storage/testing/kv-cases.ts) against the memory engine.
import { test } from 'node:test';
import { MemoryKV } from './kv.ts';
import { kvCases } from '../testing/kv-cases.ts';

for (const c of kvCases) {
  test(`memory KV: ${c.name}`, async () => {
    const kv = new MemoryKV({ progressNotifyIntervalMs: 100 });
    try {
      await c.run(kv);
    } finally {
      await kv.close();
    }
  });
}

test('memory KV: every case on one shared engine, one after another', async () => {
  const kv = new MemoryKV({ progressNotifyIntervalMs: 100 });
  try {
    for (const c of kvCases) await c.run(kv);
  } finally {
    await kv.close();
  }
});
