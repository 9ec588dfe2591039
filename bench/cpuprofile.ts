// Summarises a V8 .cpuprofile (from `node --cpu-prof`): the functions with the most self time and
// the files with the most self time, as a share of all samples.
//   node bench/cpuprofile.ts /tmp/prof/CPU.*.cpuprofile [top=30]

import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/cpuprofile.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const hits = new Map<number, number>();
for (const s of profile.samples) hits.set(s, (hits.get(s) ?? 0) + 1);
const total = profile.samples.length;

const short = (url: string) =>
  url.replace(/^file:\/\/.*?\/(src|adapters|bench|dist|node_modules)\//, '$1/') || '(native)';
const selfFn = new Map<string, number>();
const selfFile = new Map<string, number>();
for (const [id, h] of hits) {
  const n = byId.get(id)!;
  const f = n.callFrame;
  const key = `${f.functionName || '(anonymous)'} ${short(f.url)}:${f.lineNumber + 1}`;
  selfFn.set(key, (selfFn.get(key) ?? 0) + h);
  const fileKey = short(f.url).replace(/^node_modules\/((@[^/]+\/)?[^/]+).*/, 'node_modules/$1');
  selfFile.set(fileKey, (selfFile.get(fileKey) ?? 0) + h);
}

// Inclusive time per function (each sample counted once per distinct function on its stack).
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map<string, number>();
for (const [id, h] of hits) {
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const f = byId.get(cur)!.callFrame;
    if (!/\/(src|adapters|dist)\//.test(f.url)) continue;
    const key = `${f.functionName || '(anonymous)'} ${short(f.url)}:${f.lineNumber + 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    incl.set(key, (incl.get(key) ?? 0) + h);
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
