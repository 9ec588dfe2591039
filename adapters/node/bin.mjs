#!/usr/bin/env -S node --max-semi-space-size=32 --heap-growing-percent=50
// `edge-apiserver` bin: runs the CLI (adapters/node/cli.ts). In order of preference:
//   1. dist/cli/cli.mjs, the bundle `npm run build` (and `npm ci`) makes, while it is newer than
//      every source it was built from (dist/cli/inputs.json): start-up is mostly module loading,
//      and one bundled module loads in a fraction of the time of the sources;
//   2. dist/adapters/node/cli.js (tsc's output) when installed under node_modules, where Node
//      refuses type stripping;
//   3. the TypeScript sources by Node's type stripping (Node >= 22.18); on an older `node` on PATH
//      this re-runs itself with the Node the repository installs (node_modules/.bin/node),
//      forwarding signals and the exit code.
// EDGE_APISERVER_SOURCES=1 skips the bundle.
// The #! line's Node flags are node-flags.mjs's (why: there; docs/node.md "Node flags").
import { existsSync, readFileSync, statSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { nodeFlags } from './node-flags.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));

/** The bundle, when it was built after the last change to any of its sources. */
function freshBundle() {
  if (process.env.EDGE_APISERVER_SOURCES === '1') return undefined;
  try {
    const { stamp, inputs } = JSON.parse(readFileSync(`${root}dist/cli/inputs.json`, 'utf8'));
    for (const f of inputs) if (statSync(root + f).mtimeMs >= stamp) return undefined;
    return `${root}dist/cli/cli.mjs`;
  } catch {
    return undefined;
  }
}

// Start-up is mostly module compilation; the cache saves a part of it on later starts.
module.enableCompileCache?.();
const [major, minor] = process.versions.node.split('.').map(Number);
const bundle = major > 22 || (major === 22 && minor >= 12) ? freshBundle() : undefined;
const built = fileURLToPath(new URL('../../dist/adapters/node/cli.js', import.meta.url));
if (bundle) {
  const { main } = await import(bundle);
  process.exit(await main(process.argv.slice(2)));
} else if (here.includes('/node_modules/') && existsSync(built)) {
  const { main } = await import(built);
  process.exit(await main(process.argv.slice(2)));
} else if (process.features.typescript) {
  const { main } = await import('./cli.ts');
  process.exit(await main(process.argv.slice(2)));
} else {
  const bundled = [`${here}../../node_modules/.bin/node`, `${here}../../../.bin/node`].find((p) => existsSync(p));
  if (!bundled) {
    console.error(
      `Error: edge-apiserver needs Node >= 22.18 (found ${process.version}); run \`npm ci\` or put a newer node on PATH`,
    );
    process.exit(1);
  }
  // Its own process group: a terminal's Ctrl-C reaches only this process, which forwards it
  // once (two deliveries would count as the "second signal" that exits at once).
  const { spawn } = await import('node:child_process');
  const child = spawn(bundled, [...nodeFlags, here + 'bin.mjs', ...process.argv.slice(2)], {
    stdio: 'inherit',
    detached: true,
  });
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
}
