// Child of test/storage-kill9.test.ts: writes through the revision log on node:sqlite in a loop —
// a create of a new key, then an update of one hot key, over and over, a few writes in flight at
// once — and prints "ACK <op> <key> <revision> <value>" once each write has resolved. The parent
// SIGKILLs it in the middle of this.
import { openSQLiteKV } from '../../adapters/node/sqlite.ts';

const path = process.argv[2]!;
const kv = openSQLiteKV(path);
const enc = new TextEncoder();
const hot = '/registry/configmaps/default/hot';
let hotRev = (await kv.create(hot, enc.encode('h-0'))).revision;
console.log(`ACK create ${hot} ${hotRev} h-0`);
for (let i = 1; ; i++) {
  const key = `/registry/configmaps/default/cm-${i}`;
  const value = `{"kind":"ConfigMap","metadata":{"name":"cm-${i}"},"data":{"i":"${i}"}}`;
  const writes = [
    kv
      .create(key, enc.encode(value))
      .then((r) => r.succeeded && console.log(`ACK create ${key} ${r.revision} ${value}`)),
    kv.update(hot, enc.encode(`h-${i}`), hotRev).then((r) => {
      if (!r.succeeded) throw new Error(`hot update lost at ${hotRev}`);
      hotRev = r.revision;
      console.log(`ACK update ${hot} ${r.revision} h-${i}`);
    }),
  ];
  await Promise.all(writes);
  if (i % 64 === 0) await new Promise((r) => setImmediate(r));
}
