// Instructions per request of one API operation in process, for callgrind: the server of
// bench/api.ts (token, RBAC, registry Store, watch cache, memory engine) or bare Hono over a Map
// (bench/bare-api.ts),
// W warm-up requests, then M measured ones between a zeroing and a dump of callgrind's counters
// (callgrind_control -z / -d on this process), so start-up and shutdown stay out. Not a test.
//
//   OP=get valgrind --tool=callgrind --callgrind-out-file=/tmp/cg --smc-check=all-non-file \
//     node --single-threaded bench/instructions.ts            # then: grep summary /tmp/cg.1 (÷ M)
//
// Environment: OP (get, create, bare-get, bare-create; get), W (3000), M (2000). Outside valgrind
// (no CALLGRIND) it just runs. The JIT compiler and the GC share the count (callgrind_annotate
// names their functions: v8::internal::compiler::…, …Marking…, …Scavenger…): compare the rest,
// or runs made side by side, when the JIT's timing moves the total.

import { execFileSync } from 'node:child_process';
import { EdgeServer } from '../src/app/edge.ts';
import { discardLogger } from '../src/util/logger.ts';
import { bareAPI, configMapJSON } from './bare-api.ts';

const op = process.env.OP ?? 'get';
const warm = Number(process.env.W ?? 3000);
const measured = Number(process.env.M ?? 2000);
const underCallgrind = process.env.CALLGRIND !== '0' && /valgrind/.test(process.env.LD_PRELOAD ?? '');
const TOKEN = 'bench-admin';
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json' };
const cm = (name: string) => configMapJSON({ name });

const edge = new EdgeServer({
  flags: `--authorization-mode=RBAC --token-auth-file=/bench/tokens.csv --event-ttl=1h`,
  files: { '/bench/tokens.csv': `${TOKEN},admin,uid-admin,system:masters\n` },
  logger: discardLogger,
});
await edge.ready();
const transport = { remoteAddress: '127.0.0.1' };
const edgeFetch = (method: string, path: string, body?: string) =>
  edge.fetch(new Request(`https://127.0.0.1${path}`, { method, body, headers }), transport);

const bare = bareAPI();
const bareFetch = async (method: string, path: string, body?: string) =>
  bare.fetch(new Request(`https://127.0.0.1${path}`, { method, body, headers }));

for (const name of ['bench', 'bench-w']) {
  const r = await edgeFetch('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name } }));
  if (r.status !== 201) throw new Error(`namespace: ${r.status} ${await r.text()}`);
}
for (let i = 0; i < 100; i++) {
  for (const f of [edgeFetch, bareFetch]) {
    const r = await f('POST', '/api/v1/namespaces/bench/configmaps', cm(`cm-${i}`));
    if (r.status !== 201) throw new Error(`fixture: ${r.status} ${await r.text()}`);
    await r.arrayBuffer();
  }
}

const f = op.startsWith('bare-') ? bareFetch : edgeFetch;
const create = op.endsWith('create');
let created = 0;
const once = async (i: number) => {
  const r = create
    ? await f('POST', '/api/v1/namespaces/bench-w/configmaps', cm(`new-${created++}`))
    : await f('GET', `/api/v1/namespaces/bench/configmaps/cm-${i % 100}`);
  if (r.status !== (create ? 201 : 200)) throw new Error(`${op}: ${r.status} ${await r.text()}`);
  await r.arrayBuffer();
};
const callgrind = (flag: string) => {
  if (underCallgrind) execFileSync('callgrind_control', [flag, String(process.pid)], { stdio: 'ignore' });
};
for (let i = 0; i < warm; i++) await once(i);
callgrind('-z');
for (let i = warm; i < warm + measured; i++) await once(i);
callgrind('-d');
await edge.stop();
process.exit(0);
