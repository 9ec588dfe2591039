// `npm run build` (and `prepare`, so `npm ci` on a clean clone builds it):
//   1. dist/src, dist/adapters: tsc's per-file JavaScript and declarations (the package's exports);
//   2. dist/cli/: the CLI (adapters/node/cli.ts) as one ES module plus a chunk per lazily imported
//      part (esbuild, code splitting), which adapters/node/bin.mjs runs while it is newer than every
//      source it was built from (dist/cli/inputs.json). Start-up is mostly module loading: one
//      file instead of hundreds saves the resolution and most of the compilation.
// `node scripts/build.mjs --cli` builds only the second (about a second; scripts/test.mjs runs it).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');
const cliOnly = process.argv.includes('--cli');

if (!cliOnly) {
  const tsc = spawnSync(join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
}

const out = join(root, 'dist/cli');
// Sources changed from here on are newer than the stamp, so bin.mjs will not trust this build.
const stamp = Date.now();
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { cli: 'adapters/node/cli.ts' },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunk-[hash]',
  // Identifiers stay (class names appear in errors and logs); whitespace and syntax are minified.
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  metafile: true,
  logLevel: 'warning',
  // CommonJS dependencies bundled into an ES module still call require() for Node's built-ins.
  banner: {
    js: "import { createRequire as __edgeRequire } from 'node:module'; const require = __edgeRequire(import.meta.url);",
  },
});
const inputs = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('node_modules/'));
inputs.push('package-lock.json');
writeFileSync(join(out, 'inputs.json'), JSON.stringify({ stamp, inputs }) + '\n');
