// House rule: src/ is portable. Nothing under src/ (tests aside) imports node:* or a Node
// built-in by its bare name, so the same code runs on workerd, Deno, Bun and in browsers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';

const builtins = [
  'fs',
  'http',
  'https',
  'http2',
  'net',
  'tls',
  'crypto',
  'os',
  'path',
  'child_process',
  'stream',
  'events',
  'url',
  'util',
  'buffer',
  'zlib',
  'dns',
  'worker_threads',
  'async_hooks',
  'process',
];
const importPattern = new RegExp(
  String.raw`(?:from\s+|import\s*\(\s*|require\s*\(\s*|import\s+)['"](node:[^'"]+|${builtins.join('|')})(?:/[^'"]*)?['"]`,
);

test('no file under src/ imports a Node built-in', () => {
  const files = globSync('src/**/*.ts').filter((f) => !f.endsWith('.test.ts'));
  assert.ok(files.length > 10, 'found the sources');
  const offenders = files.filter((f) => importPattern.test(readFileSync(f, 'utf8')));
  assert.deepEqual(offenders, []);
});

test('the portability check catches an offender', () => {
  assert.ok(importPattern.test(`import { readFile } from 'node:fs/promises';`));
  assert.ok(importPattern.test(`import * as tls from "tls";`));
  assert.ok(importPattern.test(`const x = await import('node:crypto');`));
  assert.ok(!importPattern.test(`import { Hono } from 'hono';`));
});

/** Source without comments, so prose that mentions process.env is not an offence. */
function code(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
}

test('src/ uses no Node-only globals', () => {
  const files = globSync('src/**/*.ts').filter((f) => !f.endsWith('.test.ts'));
  const offenders = files.filter((f) => /\b(process\.(env|argv|exit|on)|Buffer\.|__dirname|require\()/.test(code(f)));
  assert.deepEqual(offenders, []);
});
