// The published shape: Node resolves `edge-apiserver` (and each adapter subpath) to the build in
// dist/ (Node will not strip types under node_modules); Deno, Bun and workerd take the .ts
// sources. The test builds into a temporary folder, so it checks the sources as they are now.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
type Conditions = {
  deno: string;
  bun: string;
  workerd: string;
  node: { types: string; default: string };
  default: string;
};

test('every export maps the runtimes to sources and Node to dist', () => {
  for (const [subpath, c] of Object.entries(pkg.exports as Record<string, Conditions>)) {
    assert.deepEqual(Object.keys(c), ['deno', 'bun', 'workerd', 'node', 'default'], subpath);
    assert.ok(existsSync(c.default), `${subpath}: ${c.default}`);
    assert.equal(c.node.default, './dist/' + c.default.slice(2).replace(/\.ts$/, '.js'));
    assert.equal(c.node.types, './dist/' + c.default.slice(2).replace(/\.ts$/, '.d.ts'));
  }
  assert.equal(import.meta.resolve('edge-apiserver'), pathToFileURL(join(process.cwd(), 'dist/src/index.js')).href);
});

test('the build runs on plain Node: a server from the built package answers /healthz', async () => {
  // Inside the repository, so the build resolves hono, jose … from node_modules.
  const out = mkdtempSync(join(process.cwd(), '.build-test-'));
  try {
    const tsc = spawnSync(
      process.execPath,
      ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', out, '--sourceMap', 'false'],
      { encoding: 'utf8' },
    );
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
    for (const c of Object.values(pkg.exports as Record<string, Conditions>)) {
      assert.ok(existsSync(join(out, c.node.default.slice('./dist/'.length))), c.node.default);
    }
    // A fresh process without type stripping proves the build needs no .ts at run time.
    const script = `
      const m = await import(${JSON.stringify(pathToFileURL(join(out, 'src/index.js')).href)});
      const s = m.newServer(m.complete(m.newConfig({ logger: m.discardLogger })), 'built').prepareRun();
      const r = await s.fetch(new Request('https://127.0.0.1/healthz'));
      console.log(r.status, await r.text());`;
    const run = spawnSync(process.execPath, ['--no-experimental-strip-types', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    assert.equal(run.stdout.trim(), '200 ok', run.stderr);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
