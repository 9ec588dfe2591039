#!/usr/bin/env -S node --max-semi-space-size=32
// `edge-apiserver` bin: runs adapters/node/cli.ts. The CLI is TypeScript run by Node's type
// stripping (Node >= 22.18); on an older `node` on PATH this re-runs itself with the Node the
// repository installs (node_modules/.bin/node), forwarding signals and the exit code.
// --max-semi-space-size=32 (MiB, default 16): a request's objects mostly die young, and under a
// flood they live for a few event-loop turns; a larger young generation keeps them out of the
// old one (fewer, shorter GC pauses; bench/apf.ts, docs/node.md "Node flags").
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));

// Node refuses type stripping under node_modules: an installed package runs the build (dist/).
const built = fileURLToPath(new URL('../../dist/adapters/node/cli.js', import.meta.url));
if (here.includes('/node_modules/') && existsSync(built)) {
  const { main } = await import(built);
  process.exit(await main(process.argv.slice(2)));
} else if (process.features.typescript) {
  // Start-up is mostly module compilation; the cache saves a part of it on later starts.
  module.enableCompileCache?.();
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
  const child = spawn(bundled, ['--max-semi-space-size=32', cli, ...process.argv.slice(2)], {
    stdio: 'inherit',
    detached: true,
  });
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
}
