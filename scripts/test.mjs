// `npm test`: the import-cycle check, type-check, then run every *.test.ts with node's test runner on the repo's
// own Node (node_modules/.bin/node, put first on PATH by npm).
import { spawnSync } from 'node:child_process';
import { globSync } from 'node:fs';

const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(
    `npm test needs Node >= 22.12 (found ${process.version}); run it through npm so node_modules/.bin/node is used.`,
  );
  process.exit(1);
}

// No import cycle between folders (scripts/check-import-cycles.mjs prints one if there is).
const cycles = spawnSync(process.execPath, ['scripts/check-import-cycles.mjs'], { stdio: 'inherit' });
if (cycles.status !== 0) process.exit(cycles.status ?? 1);

const tsc = spawnSync('node_modules/.bin/tsc', ['--noEmit', '-p', 'tsconfig.json'], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

const only = process.argv.slice(2);
const files = only.length ? only : globSync(['src/**/*.test.ts', 'adapters/**/*.test.ts', 'test/**/*.test.ts']).sort();
const run = spawnSync(process.execPath, ['--test', '--test-concurrency=2', '--test-timeout=120000', ...files], {
  stdio: 'inherit',
  env: { ...process.env, NODE_NO_WARNINGS: '1' },
});
process.exit(run.status ?? 1);
