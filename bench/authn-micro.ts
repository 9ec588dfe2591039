// In-process cost of authentication on the full chain (no listener): `node bench/authn-micro.ts`.
// Cases alternate in rounds so a noisy machine affects them alike; prints the median µs/request
// and the ratio to the chain without an authenticator. Not a test: nothing asserts on speed.

import 'reflect-metadata';
import { exportPKCS8, generateKeyPair } from 'jose';
import {
  complete,
  newConfig,
  newServer,
  newEmptyDelegate,
  notFoundHandler,
  type GenericAPIServer,
} from '../src/index.ts';
import { discardLogger } from '../src/util/logger.ts';
import { AuthenticationOptions } from '../src/server/options/authentication.ts';
import { FlagSet } from '../src/server/options/flags.ts';
import { MemoryFileSystem } from '../src/util/filesystem.ts';
import { mintServiceAccountToken } from '../src/authentication/serviceaccount.ts';

const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const pem = await exportPKCS8(privateKey);
const issuer = 'https://kubernetes.default.svc.cluster.local';
const fileSystem = new MemoryFileSystem({ '/tokens.csv': 'bench-token,bench,1,"system:masters"\n', '/sa.key': pem });
const jwt = await mintServiceAccountToken({
  signingKey: pem,
  issuer,
  namespace: 'default',
  name: 'bench',
  expirationSeconds: 86400,
});

async function build(args: string[] | undefined, cacheTTL?: number): Promise<GenericAPIServer> {
  const c = newConfig({ logger: discardLogger });
  if (args) {
    const o = new AuthenticationOptions();
    const fs = new FlagSet('bench');
    o.addFlags(fs);
    fs.parse(args);
    if (cacheTTL !== undefined) o.tokenSuccessCacheTTL = cacheTTL;
    await o.applyTo(c, { fileSystem, logger: discardLogger });
  }
  c.routeInstallers.push((s) => s.handler.nonGoRestfulMux.handle('/bench', () => new Response('ok')));
  const s = newServer(complete(c), 'kube-apiserver', newEmptyDelegate(notFoundHandler));
  s.prepareRun();
  s.config.lifecycleSignals.MuxAndDiscoveryComplete.signal();
  return s;
}

const saFlags = ['--service-account-issuer', issuer, '--service-account-signing-key-file=/sa.key'];
const cases: { name: string; server: GenericAPIServer; headers: Record<string, string> }[] = [
  { name: 'no authenticator', server: await build(undefined), headers: {} },
  { name: 'anonymous', server: await build([]), headers: {} },
  {
    name: 'token file (cached)',
    server: await build(['--token-auth-file=/tokens.csv']),
    headers: { authorization: 'Bearer bench-token' },
  },
  {
    name: 'token file (uncached)',
    server: await build(['--token-auth-file=/tokens.csv'], 0),
    headers: { authorization: 'Bearer bench-token' },
  },
  { name: 'SA JWT RS256 (cached)', server: await build(saFlags), headers: { authorization: `Bearer ${jwt}` } },
  { name: 'SA JWT RS256 (uncached)', server: await build(saFlags, 0), headers: { authorization: `Bearer ${jwt}` } },
];

const n = Number(process.env.N ?? 3000);
const rounds = Number(process.env.ROUNDS ?? 5);
const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
for (const c of cases) {
  const r = await c.server.fetch(new Request('https://h/bench', { headers: c.headers }));
  if (r.status !== 200) throw new Error(`${c.name}: ${r.status} ${await r.text()}`);
}
for (let round = 0; round < rounds; round++) {
  for (const c of cases) {
    for (let i = 0; i < 200; i++) await c.server.fetch(new Request('https://h/bench', { headers: c.headers }));
    const t = performance.now();
    for (let i = 0; i < n; i++) await c.server.fetch(new Request('https://h/bench', { headers: c.headers }));
    samples.get(c.name)!.push(((performance.now() - t) * 1000) / n);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const base = median(samples.get('no authenticator')!);
console.log(`${rounds} rounds × ${n} requests, in-process fetch through the full chain`);
for (const c of cases) {
  const m = median(samples.get(c.name)!);
  console.log(`${c.name.padEnd(26)} ${m.toFixed(1).padStart(7)} µs/req   ×${(m / base).toFixed(2)}`);
}
