// Scale-out benchmark (not part of npm test): requests/s of a ConfigMap GET and of ConfigMap
// creates through the whole chain (TLS, authentication, RBAC, APF, registry, storage) with
//   - 1 process over etcd            (`edge-apiserver --etcd-servers=…`)
//   - 2 processes over etcd          (`edge-apiserver --processes=2 --etcd-servers=…`, one port)
//   - 1 process over the embedded SQLite store
// driven by wrk (HTTP/1.1 keep-alive, BENCH_CONNECTIONS connections, one thread), the variants one
// after another in the same run; ratios: 2 processes ÷ 1, SQLite ÷ etcd. etcd, the servers and wrk
// share this machine's cores: read the ratios with the load average printed beside them.
//   node bench/scaleout.ts      BENCH_DURATION (s per phase, 4), BENCH_CONNECTIONS (16), BENCH_VARIANTS
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { loadavg, tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { etcdAvailable, etcdPackageHint, freePort, startEtcd } from '../test/etcd-harness.ts';

const duration = Number(process.env.BENCH_DURATION ?? 4);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const variants = (process.env.BENCH_VARIANTS ?? 'etcd-1,etcd-2,sqlite-1').split(',');
const token = 'bench-scaleout-token';
const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'adapters/node/bin.mjs');

if (spawnSync('wrk', ['--version']).error) {
  console.error('wrk not found: apt-get install -y wrk');
  process.exit(1);
}
if (!etcdAvailable()) {
  console.error(etcdPackageHint);
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), 'bench-scaleout-'));
const tokenFile = join(dir, 'tokens.csv');
writeFileSync(tokenFile, `${token},admin,admin-uid,system:masters\n`);

function req(port: number, method: string, path: string, body?: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const r = https.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        rejectUnauthorized: false,
        agent: false,
        headers: { authorization: `Bearer ${token}`, ...(data ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    r.on('error', reject);
    r.end(data);
  });
}

async function startServers(args: string[], expect: number): Promise<{ port: number; proc: ChildProcess }> {
  const port = await freePort();
  const proc = spawn(
    process.execPath,
    [
      bin,
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--cert-dir=${join(dir, `certs-${port}`)}`,
      `--token-auth-file=${tokenFile}`,
      ...args,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_NO_WARNINGS: '1' } },
  );
  let err = '';
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-100_000)));
  const deadline = Date.now() + 60_000;
  while ((err.match(/Serving securely on/g) ?? []).length < expect) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`servers did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  for (;;) {
    if ((await req(port, 'GET', '/readyz').catch(() => 0)) === 200) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { port, proc };
}

function wrk(port: number, script?: string, path = '/'): number {
  const args = ['-t', '1', '-c', String(connections), '-d', `${duration}s`];
  if (script) args.push('-s', script);
  else args.push('-H', `Authorization: Bearer ${token}`);
  const r = spawnSync('wrk', [...args, `https://127.0.0.1:${port}${path}`], { encoding: 'utf8' });
  const m = /Requests\/sec:\s+([\d.]+)/.exec(r.stdout);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(r.stdout);
  if (!m) throw new Error(`wrk: ${r.stdout} ${r.stderr}`);
  if (non2xx) console.error(`  (${non2xx[1]} non-2xx responses)`);
  return Number(m[1]);
}

function createScript(tag: string): string {
  const p = join(dir, `create-${tag}.lua`);
  writeFileSync(
    p,
    `local n = 0
request = function()
  n = n + 1
  local body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${tag}-' .. n .. '"},"data":{"k":"v"}}'
  return wrk.format("POST", "/api/v1/namespaces/bench/configmaps",
    {["Content-Type"] = "application/json", ["Authorization"] = "Bearer ${token}"}, body)
end
`,
  );
  return p;
}

interface Result {
  get: number;
  create: number;
  load: [number, number];
}

async function measure(variant: string, etcdURL: string): Promise<Result> {
  const [store, n] = variant.split('-') as [string, string];
  const args =
    store === 'etcd' ? [`--etcd-servers=${etcdURL}`, `--etcd-prefix=/${variant}`] : [`--storage-backend=sqlite`];
  if (Number(n) > 1) args.push(`--processes=${n}`);
  const { port, proc } = await startServers(args, Number(n));
  try {
    await req(port, 'POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
    await req(port, 'POST', '/api/v1/namespaces/bench/configmaps', {
      metadata: { name: 'bench' },
      data: { k: 'v'.repeat(200) },
    });
    const before = loadavg()[0]!;
    wrk(port, undefined, '/api/v1/namespaces/bench/configmaps/bench'); // warm-up, discarded
    const get = wrk(port, undefined, '/api/v1/namespaces/bench/configmaps/bench');
    const create = wrk(port, createScript(variant));
    return { get, create, load: [before, loadavg()[0]!] };
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
  }
}

const etcd = await startEtcd();
const results = new Map<string, Result>();
try {
  console.log(
    `scale-out: ${cpus().length} cores, wrk -t1 -c${connections} -d${duration}s per phase, load before ${loadavg()[0]!.toFixed(2)}`,
  );
  for (const v of variants) {
    const r = await measure(v, etcd.clientURL);
    results.set(v, r);
    console.log(
      `${v.padEnd(9)} GET ${r.get.toFixed(0).padStart(6)} req/s   create ${r.create.toFixed(0).padStart(6)} req/s   (load ${r.load[0].toFixed(1)}→${r.load[1].toFixed(1)})`,
    );
  }
  const ratio = (a: string, b: string, k: 'get' | 'create') => {
    const x = results.get(a)?.[k];
    const y = results.get(b)?.[k];
    return x && y ? (x / y).toFixed(2) : '–';
  };
  console.log(
    `2 processes ÷ 1 (etcd): GET ${ratio('etcd-2', 'etcd-1', 'get')}, create ${ratio('etcd-2', 'etcd-1', 'create')}`,
  );
  console.log(
    `SQLite ÷ etcd (1 process): GET ${ratio('sqlite-1', 'etcd-1', 'get')}, create ${ratio('sqlite-1', 'etcd-1', 'create')}`,
  );
} finally {
  await etcd.stop();
  rmSync(dir, { recursive: true, force: true });
}
