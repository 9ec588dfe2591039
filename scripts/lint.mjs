// `npm run lint`: eslint, prettier --check and (once it exists) the import-cycle check, the first
// two side by side. Both keep a cache in node_modules/.cache, so a second run only reads what
// changed. Exits non-zero if any of them fails.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

function run(name, cmd, args) {
  const start = performance.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit' });
    child.on('error', (err) => {
      console.error(`${name}: ${err.message}`);
      resolve(1);
    });
    child.on('close', (code) => {
      const s = ((performance.now() - start) / 1000).toFixed(1);
      console.error(`${name}: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${s}s`);
      resolve(code ?? 1);
    });
  });
}

const jobs = [
  run('eslint', 'node_modules/.bin/eslint', [
    '--cache',
    '--cache-strategy',
    'content',
    '--cache-location',
    'node_modules/.cache/eslint/',
    '.',
  ]),
  run('prettier', 'node_modules/.bin/prettier', ['--check', '--cache', '--log-level', 'warn', '.']),
];
if (existsSync('scripts/check-import-cycles.mjs')) {
  jobs.push(run('import cycles', process.execPath, ['scripts/check-import-cycles.mjs']));
}
const codes = await Promise.all(jobs);
process.exit(codes.some((c) => c !== 0) ? 1 : 0);
