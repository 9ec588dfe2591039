// Summarises a V8 .cpuprofile (from `node --cpu-prof`): the functions with the most self time and
// the files with the most self time, as a share of all samples.
//   node bench/cpuprofile.ts /tmp/prof/CPU.*.cpuprofile [top=30]
// Or compares two profiles per request (e.g. a variant's server and its baseline's, each under the
// same load for a known number of requests): self µs per request of each, by file and by
// function, largest difference first.
//   node bench/cpuprofile.ts --per-request a.cpuprofile <requests> b.cpuprofile <requests> [top=30]

import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  startTime: number;
  endTime: number;
}

const short = (url: string) =>
  url.replace(/^file:\/\/.*?\/(src|adapters|bench|dist|node_modules)\//, '$1/') || '(native)';
const fnKey = (f: Node['callFrame']) => `${f.functionName || '(anonymous)'} ${short(f.url)}:${f.lineNumber + 1}`;
const fileKey = (f: Node['callFrame']) =>
  short(f.url).replace(/^node_modules\/((@[^/]+\/)?[^/]+).*/, 'node_modules/$1');
const load = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Profile;

/** Samples per key (function or file) of the sampled (innermost) frame. */
function selfTime(profile: Profile, key: (f: Node['callFrame']) => string): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const m = new Map<string, number>();
  for (const s of profile.samples) {
    const k = key(byId.get(s)!.callFrame);
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

const args = process.argv.slice(2);
if (args[0] === '--per-request') {
  const [fa, na, fb, nb, topArg] = args.slice(1);
  if (!fa || !na || !fb || !nb) {
    console.error(
      'usage: node bench/cpuprofile.ts --per-request a.cpuprofile <requests> b.cpuprofile <requests> [top]',
    );
    process.exit(2);
  }
  const top = Number(topArg ?? 30);
  const a = load(fa);
  const b = load(fb);
  // µs per sample: the profile's duration over its samples (the sampling interval, idle included).
  const per = (p: Profile, n: string) => (p.endTime - p.startTime) / p.samples.length / Number(n);
  for (const [title, key] of [
    ['by file', fileKey],
    ['by function', fnKey],
  ] as const) {
    const sa = selfTime(a, key);
    const sb = selfTime(b, key);
    const ua = per(a, na);
    const ub = per(b, nb);
    const rows = [...new Set([...sa.keys(), ...sb.keys()])].map(
      (k) => [k, (sa.get(k) ?? 0) * ua, (sb.get(k) ?? 0) * ub] as const,
    );
    rows.sort((x, y) => Math.abs(y[2] - y[1]) - Math.abs(x[2] - x[1]));
    const total = (m: Map<string, number>, u: number) => [...m.values()].reduce((s, v) => s + v, 0) * u;
    console.log(`\n${title}, self µs per request: a ${total(sa, ua).toFixed(1)}, b ${total(sb, ub).toFixed(1)}`);
    console.log('      a       b   b − a');
    for (const [k, x, y] of rows.slice(0, top))
      console.log(`${x.toFixed(2).padStart(7)} ${y.toFixed(2).padStart(7)} ${(y - x).toFixed(2).padStart(7)}  ${k}`);
  }
  process.exit(0);
}

const [file, topArg] = args;
if (!file) {
  console.error('usage: node bench/cpuprofile.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = load(file);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const total = profile.samples.length;
const selfFn = selfTime(profile, fnKey);
const selfFile = selfTime(profile, fileKey);

// Inclusive time per function (each sample counted once per distinct function on its stack).
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map<string, number>();
for (const s of profile.samples) {
  const seen = new Set<string>();
  for (let cur: number | undefined = s; cur !== undefined; cur = parent.get(cur)) {
    const f = byId.get(cur)!.callFrame;
    if (!/\/(src|adapters|dist)\//.test(f.url)) continue;
    const key = fnKey(f);
    if (seen.has(key)) continue;
    seen.add(key);
    incl.set(key, (incl.get(key) ?? 0) + 1);
  }
}

const show = (title: string, m: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
};
console.log(`${total} samples`);
show('self time by function', selfFn);
show('self time by file', selfFile);
show('inclusive time, src/, adapters/ and dist/ (the bundled CLI) functions', incl);
