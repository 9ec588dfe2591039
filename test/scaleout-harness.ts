// Several edge-apiserver processes over one real etcd, for the scale-out tests: `startInstance`
// runs the CLI on its own free port (or a given one) with a shared static admin token, and the
// helpers speak HTTPS to it (self-signed serving certificates; the token authenticates).
import { spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './etcd-harness.ts';

const root = new URL('..', import.meta.url).pathname;
export const bin = join(root, 'adapters/node/bin.mjs');
export const token = 'scaleout-admin-token';

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

/** A directory with a token file naming `token` a system:masters user; remove with `rm()`. */
export function workDir(): { dir: string; tokenFile: string; rm(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-scaleout-'));
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${token},admin,admin-uid,system:masters\n`);
  return { dir, tokenFile, rm: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Instance {
  port: number;
  proc: ChildProcess;
  stderr(): string;
  exit: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the CLI with `args` (plus port, cert dir and token file) and waits until it answers /readyz. */
export async function startInstance(
  work: { dir: string; tokenFile: string },
  args: string[],
  opts: { port?: number; waitFor?: string; cli?: string[] } = {},
): Promise<Instance> {
  const port = opts.port ?? (await freePort());
  const proc = spawn(
    process.execPath,
    [
      ...(opts.cli ?? [bin]),
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--cert-dir=${join(work.dir, `certs-${port}`)}`,
      `--token-auth-file=${work.tokenFile}`,
      ...args,
    ],
    { env: { ...process.env, NODE_NO_WARNINGS: '1' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.add(proc);
  let err = '';
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-200_000)));
  const exit = new Promise<number | null>((r) => proc.once('exit', (code) => (children.delete(proc), r(code))));
  const inst: Instance = {
    port,
    proc,
    stderr: () => err,
    exit,
    kill: (signal = 'SIGTERM') => (proc.kill(signal), exit),
  };
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`exited ${proc.exitCode}: ${err}`);
    try {
      const r = await request(port, 'GET', '/readyz');
      if (r.status === 200 && (!opts.waitFor || err.includes(opts.waitFor))) return inst;
    } catch {
      // not listening yet
    }
    if (i > 1200) throw new Error(`not ready: ${err}`);
    await new Promise((res) => setTimeout(res, 25));
  }
}

export interface Reply {
  status: number;
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test JSON bodies are read loosely
  json<T = any>(): T;
}

/** One HTTPS request with the admin token. */
export function request(port: number, method: string, path: string, body?: unknown): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        rejectUnauthorized: false,
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}),
        },
      },
      (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (c: string) => (text += c))
          .on('end', () => resolve({ status: res.statusCode!, body: text, json: () => JSON.parse(text) }))
          .on('error', reject);
      },
    );
    req.setTimeout(20_000, () => req.destroy(new Error(`${method} ${path}: timed out`)));
    req.on('error', reject);
    req.end(data);
  });
}

export interface WatchEventJSON {
  type: string;
  object: { metadata: { name?: string; resourceVersion?: string }; data?: Record<string, string>; code?: number };
}

export interface Watch {
  events: WatchEventJSON[];
  /** Resolves once `n` events arrived (rejects after `ms`). */
  until(n: number, ms?: number): Promise<WatchEventJSON[]>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  stop(): void;
}

/** A watch over HTTPS: `path` with `watch=1` added; events are collected as they arrive. */
export function watch(port: number, path: string): Promise<Watch> {
  return new Promise((resolve, reject) => {
    const events: WatchEventJSON[] = [];
    let waiters: (() => void)[] = [];
    let endResolve!: () => void;
    const ended = new Promise<void>((r) => (endResolve = r));
    const sep = path.includes('?') ? '&' : '?';
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path: `${path}${sep}watch=1`,
        rejectUnauthorized: false,
        agent: false,
        headers: { authorization: `Bearer ${token}` },
      },
      (res) => {
        if (res.statusCode !== 200) {
          let t = '';
          res.setEncoding('utf8').on('data', (c: string) => (t += c));
          res.on('end', () => reject(new Error(`watch ${path}: ${res.statusCode} ${t}`)));
          return;
        }
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          let i;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i).trim();
            buf = buf.slice(i + 1);
            if (!line) continue;
            events.push(JSON.parse(line) as WatchEventJSON);
            const w = waiters;
            waiters = [];
            for (const f of w) f();
          }
        });
        res.on('end', endResolve);
        res.on('error', endResolve);
        res.on('close', endResolve);
        resolve({
          events,
          ended,
          stop: () => req.destroy(),
          until: (n, ms = 20_000) =>
            new Promise((res2, rej2) => {
              const deadline = setTimeout(
                () => rej2(new Error(`watch ${path}: ${events.length} of ${n} events after ${ms} ms`)),
                ms,
              );
              const check = () => {
                if (events.length >= n) {
                  clearTimeout(deadline);
                  res2(events.slice(0, n));
                } else waiters.push(check);
              };
              check();
            }),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export const configMap = (name: string, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});
