// Fails when the import graph of src/ and adapters/ has a cycle between folders.
//
// Reads relative imports (`import … from './x.ts'`, `export … from`, `import('./x.ts')`) of every .ts file except
// tests (*.test.ts and the test helpers named testing.ts), resolves them to files, and finds strongly connected
// components (Tarjan) twice: over files and over folders (an edge a → b for every file import that crosses from folder a to folder b). A folder-level cycle fails
// the check and is printed as a path of imports; file-level cycles inside one folder are reported, not failed.
//
//   node scripts/check-import-cycles.mjs            check (exit 1 on a folder cycle)
//   node scripts/check-import-cycles.mjs --verbose  also list every file-level cycle
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// Cycles known and owned elsewhere, each with why it is tolerated for now. A folder cycle fails unless its folders
// are exactly one of these sets; remove an entry when its cycle is gone. None today.
/** @type {string[][]} */
const tolerated = [];

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const roots = ['src', 'adapters'];
const verbose = process.argv.includes('--verbose');

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.ts$/.test(name) && !/(\.test|\.d)\.ts$/.test(name) && name !== 'testing.ts') out.push(path);
  }
  return out;
}

const files = roots.flatMap((r) => walk(join(root, r), [])).map((f) => relative(root, f));
const known = new Set(files);
// Static imports/exports (also `import type`: a type cycle is still a design cycle) and dynamic import().
const importRe =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** @type {Map<string, Set<string>>} */
const fileEdges = new Map();
for (const file of files) {
  const text = readFileSync(join(root, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const deps = new Set();
  for (const m of text.matchAll(importRe)) {
    const spec = m[1] ?? m[2];
    const target = relative(root, resolve(root, dirname(file), spec));
    if (known.has(target)) deps.add(target);
  }
  fileEdges.set(file, deps);
}

/** Tarjan's strongly connected components; returns the components with more than one node (or a self-loop). */
function cycles(edges) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  const strong = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const comp = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || edges.get(v)?.has(v)) out.push(comp.sort());
    }
  };
  for (const v of edges.keys()) if (!idx.has(v)) strong(v);
  return out;
}

/** One concrete cycle through `start` inside `comp` (breadth-first, shortest). */
function pathIn(edges, comp, start) {
  const inComp = new Set(comp);
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of edges.get(v) ?? []) {
      if (!inComp.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let x = v; x !== start; x = prev.get(x)) path.splice(1, 0, x);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

const folderEdges = new Map();
const witness = new Map(); // "a\0b" → an import that makes the folder edge
for (const [file, deps] of fileEdges) {
  const a = dirname(file);
  if (!folderEdges.has(a)) folderEdges.set(a, new Set());
  for (const dep of deps) {
    const b = dirname(dep);
    if (a === b) continue;
    folderEdges.get(a).add(b);
    if (!witness.has(`${a}\0${b}`)) witness.set(`${a}\0${b}`, `${file} → ${dep}`);
  }
}

const fileCycles = cycles(fileEdges);
const folderCycles = cycles(folderEdges);
const largest = fileCycles.reduce((n, c) => Math.max(n, c.length), 0);
console.log(
  `import cycles: ${fileCycles.length} file-level (largest ${largest} files), ${folderCycles.length} folder-level ` +
    `(${files.length} files)`,
);
if (verbose) {
  for (const comp of fileCycles) {
    console.log(`\nfile cycle of ${comp.length}: ${pathIn(fileEdges, comp, comp[0]).join(' → ')}`);
    console.log(`  members: ${comp.join(', ')}`);
  }
}
const isTolerated = (comp) => tolerated.some((t) => t.length === comp.length && t.every((f) => comp.includes(f)));
let failed = 0;
for (const comp of folderCycles) {
  const path = pathIn(folderEdges, comp, comp[0]);
  const known = isTolerated(comp);
  if (!known) failed++;
  const out = known ? console.log : console.error;
  out(`\n${known ? 'tolerated ' : ''}folder cycle (${comp.join(', ')}):`);
  for (let i = 0; i + 1 < path.length; i++) out(`  ${witness.get(`${path[i]}\0${path[i + 1]}`)}`);
}
if (failed) process.exit(1);
