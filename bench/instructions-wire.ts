// Instructions per request of one variant over the wire: its server (bench/server.ts) under
// callgrind, driven by h2load over TLS; W warm-up requests, then M measured ones between a zeroing
// and a dump of callgrind's counters (callgrind_control -z / -d). Everything in the server's
// process counts (TLS, HTTP parsing and writing, the chain, JIT and GC), nothing of the kernel's:
// unlike req/s or CPU time, the count barely moves with the machine's load, so two trees or a
// variant and its baseline compare on a busy machine. Not a test.
//
//   node bench/instructions-wire.ts api-get h1        # variant, protocol (h1 or h2; default h2)
//
// Environment: M (measured requests, 4000), W (warm-up, M/2), C (connections, 4; one request at a
// time each). Needs valgrind (Debian's) and h2load. A run takes about two minutes.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import 'reflect-metadata';
import { generateSelfSignedCertKey } from '../src/server/dynamiccertificates/generate.ts';
import { apiVariants } from './api-variants.ts';
import { benchPath, diagnostics, serverNodeFlags, variants } from './variants.ts';

const [name, protocol = 'h2'] = process.argv.slice(2);
const variant = [...variants, ...apiVariants, ...diagnostics].find((v) => v.name === name);
if (!variant || (protocol !== 'h1' && protocol !== 'h2')) {
  console.error('usage: node bench/instructions-wire.ts <variant> [h1|h2]');
  process.exit(2);
}
for (const bin of ['valgrind', 'callgrind_control', 'h2load'])
  if (spawnSync('sh', ['-c', `command -v ${bin}`]).status !== 0) {
    console.error(`${bin} not found: sudo apt-get install -y valgrind nghttp2-client`);
    process.exit(1);
  }
const measured = Number(process.env.M ?? 4000);
const warm = Number(process.env.W ?? measured / 2);
const connections = process.env.C ?? '4';

const dir = mkdtempSync(join(tmpdir(), 'edge-bench-callgrind-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const pem = await generateSelfSignedCertKey({ host: '127.0.0.1', alternateDNS: ['localhost'] });
writeFileSync(join(dir, 'apiserver.crt'), pem.cert);
writeFileSync(join(dir, 'apiserver.key'), pem.key);
const headers = (await variant.prepare?.(dir)) ?? {};

const out = join(dir, 'callgrind.out');
const server = spawn(
  'valgrind',
  [
    '--tool=callgrind',
    `--callgrind-out-file=${out}`,
    '--smc-check=all-non-file',
    process.execPath,
    '--single-threaded',
    ...serverNodeFlags,
    join(import.meta.dirname, 'server.ts'),
    variant.name,
    dir,
  ],
  { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, NODE_NO_WARNINGS: '1' } },
);
const port = await new Promise<number>((resolve, reject) => {
  createInterface({ input: server.stdout! }).on('line', (line) => {
    const m = /^PORT (\d+)$/.exec(line);
    if (m) resolve(Number(m[1]));
  });
  server.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
});

const { path = benchPath, method, body } = variant.request ?? {};
const args = [...(protocol === 'h1' ? ['--h1'] : []), '-c', connections, '-m', '1'];
for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
if (method === 'POST') {
  writeFileSync(join(dir, 'body.json'), body ?? '');
  args.push('-H', 'content-type: application/json', '-d', join(dir, 'body.json'));
}
const load = (n: number) => {
  const r = spawnSync('h2load', [...args, '-n', String(n), `https://127.0.0.1:${port}${path}`], { encoding: 'utf8' });
  const done = /requests: .* (\d+) succeeded/.exec(r.stdout);
  if (Number(done?.[1]) !== n) throw new Error(`h2load: ${r.stdout}${r.stderr}`);
};
const control = (flag: string) => spawnSync('callgrind_control', [flag, String(server.pid)], { stdio: 'ignore' });

load(warm);
control('-z');
load(measured);
control('-d');
server.kill('SIGTERM');
await new Promise((r) => server.once('exit', r));
// The dump after the zeroing holds the measured requests only (the final one at exit: shutdown).
const dumps = readdirSync(dir)
  .filter((f) => f.startsWith('callgrind.out.'))
  .sort();
const summary = /^summary: (\d+)/m.exec(readFileSync(join(dir, dumps[0]!), 'utf8'));
console.log(`${variant.name} ${protocol}: ${Math.round(Number(summary![1]) / measured)} instructions per request`);
