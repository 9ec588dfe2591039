// `edge-apiserver --processes[=N]`: N server processes on one machine behind one port. One Node
// process is one event loop; kube-apiserver scales by running several instances over one etcd, and
// this starts them on this machine: each child is the same command without --processes, with
// --permit-port-sharing (SO_REUSEPORT: the kernel spreads connections over the children), over the
// etcd named by --etcd-servers. The first child starts alone so the others find its generated
// serving certificate and admin credential in --cert-dir; a child that dies is started again; the
// first SIGTERM/SIGINT is passed to every child and the supervisor exits when they have.
//
// The embedded SQLite store is refused: its watch fan-out and revision order live in the process
// that opened it (kine polls the table for other writers; ours does not), so a second process
// would not see the first one's writes in its watches and caches.

import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { ServerOptions } from '../../src/server/options/options.ts';
import { EtcdOptions } from '../../src/server/options/etcd.ts';

export interface ProcessesFlag {
  /** The process count asked for (undefined: flag absent). */
  processes?: number;
  /** argv without the flag. */
  rest: string[];
  error?: string;
}

/** Takes `--processes` / `--processes=N` out of argv (without a value: the number of cores). */
export function takeProcessesFlag(argv: readonly string[]): ProcessesFlag {
  let processes: number | undefined;
  const rest: string[] = [];
  for (const a of argv) {
    const m = /^--?processes(?:=(.*))?$/.exec(a);
    if (!m) {
      rest.push(a);
      continue;
    }
    if (m[1] === undefined) {
      processes = availableParallelism();
      continue;
    }
    const n = Number(m[1]);
    if (!/^\d+$/.test(m[1]) || !Number.isSafeInteger(n) || n < 1)
      return { rest, error: `invalid argument "${m[1]}" for "--processes" flag: must be a positive integer` };
    processes = n;
  }
  return { processes, rest };
}

/** Why the flags cannot run as several processes (undefined when they can). */
export function multiProcessError(argv: readonly string[], n: number): string | undefined {
  const o = new ServerOptions();
  try {
    o.parse(argv);
  } catch {
    return undefined; // the first child prints the flag error and the supervisor exits with it
  }
  const etcd = o.groups.find((g): g is EtcdOptions => g instanceof EtcdOptions);
  const type = etcd?.storageConfig().type;
  if (type === 'etcd3') return undefined;
  return (
    `--processes=${n} needs --etcd-servers: the ${type === 'memory' ? 'memory' : 'embedded SQLite'} store ` +
    `belongs to the one process that opened it (its watches and watch caches are fed in that process), ` +
    `so other processes would serve stale lists and miss watch events; point every process at one etcd ` +
    `with --etcd-servers, or run one process`
  );
}

/** A port that was free a moment ago (for `--secure-port=0`: every child must bind the same one). */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, host || undefined, () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function flagValue(argv: readonly string[], name: string): string | undefined {
  let v: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === `--${name}` && i + 1 < argv.length) v = argv[++i];
    else if (a.startsWith(`--${name}=`)) v = a.slice(name.length + 3);
  }
  return v;
}

export interface SuperviseOptions {
  stderr: (s: string) => void;
  /** The script a child runs (default: this adapter's cli). */
  cli?: string;
  /** Delay before a dead child is started again (default 1 s, doubling to 30 s while it keeps dying early). */
  restartDelayMs?: number;
}

/** Runs `n` children of the CLI with `argv` until SIGTERM/SIGINT; resolves with the exit code. */
export async function superviseProcesses(argv: string[], n: number, opts: SuperviseOptions): Promise<number> {
  const bad = multiProcessError(argv, n);
  if (bad) {
    opts.stderr(`Error: ${bad}\n`);
    return 1;
  }
  const args = [...argv];
  const port = flagValue(args, 'secure-port');
  if (port === '0') {
    const chosen = await freePort(flagValue(args, 'bind-address') ?? '');
    args.push(`--secure-port=${chosen}`);
  }
  args.push('--permit-port-sharing=true');
  const cli = opts.cli ?? binPath();
  // Loaded here: a single-process start (the common case) does not pay for node:child_process.
  const { spawn } = await import('node:child_process');
  const children = new Map<number, ChildProcess>();
  let stopping = false;
  let firstExit: number | undefined;
  let anyServed = false;
  let delay = (opts.restartDelayMs ?? 1000) / 2;
  const restarts = new Set<ReturnType<typeof setTimeout>>();

  const startChild = (i: number): Promise<boolean> =>
    new Promise((ready) => {
      const child = spawn(process.execPath, [...process.execArgv, cli, ...args], {
        // The IPC channel closes when the supervisor dies, however it dies: the child then shuts down.
        stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
        env: { ...process.env, EDGE_APISERVER_PROCESS_INDEX: String(i) },
      });
      children.set(i, child);
      const startedAt = Date.now();
      let serving = false;
      let seen = '';
      child.stderr!.setEncoding('utf8').on('data', (d: string) => {
        opts.stderr(d);
        if (!serving) {
          seen = (seen + d).slice(-4096);
          if (seen.includes('Serving securely on')) {
            serving = true;
            anyServed = true;
            ready(true);
          }
        }
      });
      child.once('exit', (code, signal) => {
        if (children.get(i) === child) children.delete(i);
        if (!serving) ready(false);
        if (stopping) return;
        if (!serving && !anyServed) {
          // The first child failed to start (bad flags, port in use): that is the command's answer.
          firstExit = code ?? 1;
          stopAll();
          return;
        }
        const lived = Date.now() - startedAt;
        delay = lived > 60_000 ? (opts.restartDelayMs ?? 1000) : Math.min(delay * 2, 30_000);
        opts.stderr(
          `I supervisor: process ${i} (pid ${child.pid}) exited (${signal ?? `code ${code}`}); starting it again in ${delay} ms\n`,
        );
        const t = setTimeout(() => {
          if (!stopping) void startChild(i);
        }, delay);
        restarts.add(t);
      });
    });

  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));
  const stopAll = () => {
    stopping = true;
    for (const t of restarts) clearTimeout(t);
    if (children.size === 0) resolveDone(firstExit ?? 0);
    for (const c of children.values()) {
      c.kill('SIGTERM');
      c.once('exit', () => {
        if (children.size === 0) resolveDone(firstExit ?? 0);
      });
    }
  };
  let signals = 0;
  const onSignal = () => {
    if (++signals > 1) {
      for (const c of children.values()) c.kill('SIGKILL');
      process.exit(1);
    }
    opts.stderr(`I supervisor: stopping ${children.size} processes\n`);
    stopAll();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    opts.stderr(`I supervisor: starting ${n} processes sharing one port\n`);
    if (await startChild(0)) {
      for (let i = 1; i < n && !stopping; i++) void startChild(i);
    }
    return await done;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

/**
 * The `edge-apiserver` bin (adapters/node/bin.mjs), which picks the bundle, the build or the
 * sources as the supervisor's own start did: found beside this module in the sources, two levels
 * up from the bundle (dist/cli/), three from tsc's output (dist/adapters/node/).
 */
function binPath(): string {
  const candidates = ['./bin.mjs', '../../adapters/node/bin.mjs', '../../../adapters/node/bin.mjs'];
  const paths = candidates.map((c) => fileURLToPath(new URL(c, import.meta.url)));
  return paths.find((p) => existsSync(p)) ?? paths[0]!;
}
