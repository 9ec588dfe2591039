// Conformance target: Deno (Deno.serve over TLS), one process for the file. Deno comes from npm;
// --node-modules-dir=manual reuses npm's tree (auto would rewrite it), --no-lock leaves no
// deno.lock behind.
import { BIN } from './harness.ts';
import { registerProcessRuntime } from './process-runtime.ts';

registerProcessRuntime({
  name: 'Deno (Deno.serve, TLS)',
  command: BIN + 'deno',
  args: [
    'run',
    '--node-modules-dir=manual',
    '--no-lock',
    '--unstable-no-legacy-abort',
    '--allow-net=127.0.0.1',
    '--allow-env',
    '--allow-read',
    'test/conformance/deno-server.ts',
  ],
  env: { DENO_NO_UPDATE_CHECK: '1' },
  timeoutMs: 60_000,
});
