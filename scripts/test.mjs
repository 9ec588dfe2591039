// `npm test`: lint (with the import-cycle check), type-check, then run every *.test.ts with node's test runner on the repo's
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

// Lint: eslint, prettier --check and no import cycle between folders (scripts/lint.mjs). Only for the whole
// suite: `npm test -- file.test.ts` runs just the type-check and those files.
const only = process.argv.slice(2);
if (only.length === 0) {
  const lint = spawnSync(process.execPath, ['scripts/lint.mjs'], { stdio: 'inherit' });
  if (lint.status !== 0) process.exit(lint.status ?? 1);
}

// The CLI bundle (dist/cli/, scripts/build.mjs): adapters/node/bin.mjs runs it while it is newer than its
// sources, so the tests that spawn the CLI run what ships (and start faster).
const build = spawnSync(process.execPath, ['scripts/build.mjs', '--cli'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const tsc = spawnSync('node_modules/.bin/tsc', ['--noEmit', '-p', 'tsconfig.json'], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

const files = only.length ? only : globSync(['src/**/*.test.ts', 'adapters/**/*.test.ts', 'test/**/*.test.ts']).sort();
const run = spawnSync(process.execPath, ['--test', '--test-concurrency=2', '--test-timeout=120000', ...files], {
  stdio: 'inherit',
  env: { ...process.env, NODE_NO_WARNINGS: '1' },
});
process.exit(run.status ?? 1);
