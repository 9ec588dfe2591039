// The server under attack: the real `edge-apiserver` command (cli.ts main, via cli-fixture.ts) in a child
// process on a free port, with a token file (one user per role), its log captured (to prove no
// credential reaches it), its RSS readable from /proc, and a liveness probe.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeFlags } from '../../adapters/node/node-flags.mjs';
import { probe } from './probe.ts';

const root = new URL('../..', import.meta.url).pathname;
const fixture = join(root, 'test/reliability/cli-fixture.ts');

/** The token of the token-file user `admin` (group system:masters). */
export const adminToken = 'reliability-admin-token-6f1d2c';

export interface ServerUnderTest {
  port: number;
  /** A token of a system:masters user: the token file's admin, or the secure default's admin.kubeconfig token. */
  token: string;
  proc: ChildProcess;
  dir: string;
  /** Everything the process wrote to stdout and stderr so far. */
  log(): string;
  /** Resident set size of the server process (bytes), from /proc/<pid>/status. */
  rss(): number;
  /** True while the process has not exited. */
  alive(): boolean;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const p = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return p;
}

/**
 * Starts the command with `args` after the defaults (loopback bind, cert dir, token file);
 * resolves once `/healthz` answers over both protocols.
 */
export async function startServer(
  args: string[] = [],
  { tokenFile = true, env = {} }: { tokenFile?: boolean; env?: Record<string, string> } = {},
): Promise<ServerUnderTest> {
  const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-reliability-'));
  const port = await freePort();
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, `${adminToken},admin,admin-uid,"system:masters"\n`);
  const proc = spawn(
    process.execPath,
    [
      ...nodeFlags,
      fixture,
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--cert-dir=${join(dir, 'certs')}`,
      ...(tokenFile ? [`--token-auth-file=${tokens}`] : []),
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_NO_WARNINGS: '1', ...env } },
  );
  let out = '';
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const s: ServerUnderTest = {
    port,
    token: adminToken,
    proc,
    dir,
    log: () => out,
    rss: () => {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'));
      return m ? Number(m[1]) * 1024 : 0;
    },
    alive: () => proc.exitCode === null && proc.signalCode === null,
    stop: async () => {
      if (s.alive()) {
        proc.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  // Generous: on a loaded 2-core machine module loading alone has taken 15 s.
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (!s.alive()) throw new Error(`server exited during start-up:\n${out}`);
    try {
      if (!tokenFile) {
        // The secure default writes an admin kubeconfig next to the serving certificate.
        const m = /token: (\S+)/.exec(readFileSync(join(dir, 'certs', 'admin.kubeconfig'), 'utf8'));
        if (!m) throw new Error('no token in admin.kubeconfig');
        s.token = m[1]!;
      }
      await probe(port, s.token);
      return s;
    } catch (err) {
      if (Date.now() > deadline) {
        await s.stop();
        throw new Error(`server not serving within 90 s: ${(err as Error).message}\n${out}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
