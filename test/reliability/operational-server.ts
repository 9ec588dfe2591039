// The real CLI (test/node-cli-fixture.ts, which runs adapters/node/cli.ts' main) in a child
// process for the operational-fault tests and bench/idle-connections.ts: start-up, its stderr,
// the `[graceful-termination]` events it logs at --v=1, and the request ids it accepted.

import { spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import net from 'node:net';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
export const fixture = join(root, 'test/node-cli-fixture.ts');

export interface ServerProcess {
  proc: ChildProcess;
  pid: number;
  stderr(): string;
  /** Resolves with the address from `Serving securely on <addr>`. */
  serving: Promise<string>;
  exit: Promise<number | null>;
  /** Epoch ms of the exit (after `exit` resolved). */
  exitedAt?: number;
  /** The `x-load-id`s that entered the handler chain (after exit; needs `accepted`). */
  accepted(): Set<string>;
}

const live = new Set<ChildProcess>();
/** Kills whatever a test left running (call from `after`). */
export function killAll(): void {
  for (const c of live) c.kill('SIGKILL');
}

export function startServer(args: string[], opts: { env?: Record<string, string>; accepted?: string } = {}): ServerProcess {
  const proc = spawn(process.execPath, [fixture, ...args], {
    env: { ...process.env, NODE_NO_WARNINGS: '1', ...opts.env, ...(opts.accepted ? { EDGE_APISERVER_TEST_ACCEPTED: opts.accepted } : {}) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  live.add(proc);
  let err = '';
  const out: ServerProcess = {
    proc,
    pid: proc.pid!,
    stderr: () => err,
    serving: undefined as unknown as Promise<string>,
    exit: new Promise<number | null>((resolve) =>
      proc.once('exit', (code) => {
        live.delete(proc);
        out.exitedAt = Date.now();
        resolve(code);
      }),
    ),
    accepted: () => {
      if (!opts.accepted || !existsSync(opts.accepted)) return new Set();
      return new Set(readFileSync(opts.accepted, 'utf8').split('\n').filter(Boolean));
    },
  };
  out.serving = new Promise<string>((resolve, reject) => {
    proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      const m = /Serving securely on (\S+?)"/.exec(err);
      if (m) resolve(m[1]!);
    });
    void out.exit.then((code) => reject(new Error(`exited with ${code} before serving: ${err}`)));
  });
  out.serving.catch(() => {});
  return out;
}

export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const p = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return p;
}

export interface Probe {
  /** Epoch ms when the probe was sent and answered. */
  start: number;
  end: number;
  status?: number;
  error?: string;
  body?: string;
  servedBy?: string;
}

/** One request on a fresh HTTP/1.1 connection (as a load balancer's or kubelet's probe). */
export function probe(port: number, path: string, headers: Record<string, string> = {}, timeoutMs = 5000): Promise<Probe> {
  const start = Date.now();
  return new Promise((resolve) => {
    const req = https.request({ host: '127.0.0.1', port, path, headers, rejectUnauthorized: false, agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ start, end: Date.now(), status: res.statusCode, body, servedBy: res.headers['x-served-by'] as string | undefined }));
      res.on('error', (e: NodeJS.ErrnoException) => resolve({ start, end: Date.now(), error: e.code ?? e.message }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ start, end: Date.now(), error: e.code ?? e.message }));
    req.end();
  });
}

/** Polls `path` until it answers 200 (bounded); throws with the server's stderr otherwise. */
export async function waitServed(s: ServerProcess, port: number, path = '/readyz', timeoutMs = 20_000): Promise<void> {
  await s.serving;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const p = await probe(port, path);
    if (p.status === 200) return;
    if (Date.now() > deadline || s.proc.exitCode !== null) throw new Error(`not served (${p.status ?? p.error}): ${s.stderr()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface LoggedEvent {
  name: string;
  /** Epoch ms from the klog header. */
  at: number;
}

/**
 * The `[graceful-termination]` lines in log order: each shutdown event by its signal name,
 * `PreShutdownHooksStopped`, and `exiting` for `apiserver is exiting`.
 */
export function gracefulEvents(stderr: string): LoggedEvent[] {
  const out: LoggedEvent[] = [];
  const year = new Date().getUTCFullYear();
  const re = /^I(\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3})\d* "\[graceful-termination\] ([^"]+)"(?: name="(\w+)")?/gm;
  for (const m of stderr.matchAll(re)) {
    const at = Date.UTC(year, Number(m[1]) - 1, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
    const name = m[7] === 'apiserver is exiting' ? 'exiting' : m[8];
    if (name) out.push({ name, at });
  }
  return out;
}

/** A --token-auth-file with one user; returns its path. */
export function tokenFile(dir: string, token: string, user = 'load-tester'): string {
  const path = join(dir, 'tokens.csv');
  writeFileSync(path, `${token},${user},uid-${user},"system:authenticated"\n`);
  return path;
}
