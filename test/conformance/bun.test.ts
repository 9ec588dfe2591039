// Conformance target: Bun (Bun.serve over TLS), one process for the file. Bun comes from npm.
import { BIN } from './harness.ts';
import { registerProcessRuntime } from './process-runtime.ts';

registerProcessRuntime({
  name: 'Bun (Bun.serve, TLS)',
  command: BIN + 'bun',
  args: ['test/conformance/bun-server.ts'],
  timeoutMs: 30_000,
});
