// The edge-apiserver CLI as a child process in its secure default (TLS, admin kubeconfig in
// --cert-dir) and a pinned kubectl to drive it: shared by the end-to-end tests.
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './etcd-harness.ts';

export const kubectl = '/usr/lib/google-cloud-sdk/bin/kubectl.1.32';
const haveKubectl = existsSync(kubectl);
if (!haveKubectl && process.env.CI) throw new Error(`kubectl 1.32 not found at ${kubectl}`);
/** The `skip` option of kubectl cases (in CI a missing kubectl fails instead). */
export const kubectlSkip = haveKubectl ? false : `kubectl 1.32 not found at ${kubectl}`;

const bin = join(new URL('..', import.meta.url).pathname, 'adapters/node/bin.mjs');
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

export interface CLIServer {
  url: string;
  kubeconfig: string;
  /** The admin kubeconfig's bearer token. */
  token: string;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts the CLI with `--cert-dir=<certDir>` and `args`; resolves once it serves. */
export async function startCLIServer(certDir: string, args: string[]): Promise<CLIServer> {
  const port = await freePort();
  const proc = spawn(
    process.execPath,
    [bin, `--secure-port=${port}`, '--bind-address=127.0.0.1', `--cert-dir=${certDir}`, ...args],
    { env: { ...process.env, NODE_NO_WARNINGS: '1' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.add(proc);
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => (children.delete(proc), r(code))));
  let err = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 30_000);
    proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      if (err.includes('Serving securely on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => reject(new Error(`server exited with ${code}: ${err}`)));
  });
  const kubeconfig = join(certDir, 'admin.kubeconfig');
  return {
    url: `https://127.0.0.1:${port}`,
    kubeconfig,
    token: /token: "?([^"\s]+)"?/.exec(readFileSync(kubeconfig, 'utf8'))![1]!,
    stop: () => (proc.kill('SIGTERM'), exited),
  };
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl against the server (its admin kubeconfig), with optional stdin. */
export function runKubectl(server: CLIServer, args: string[], input?: string): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(kubectl, [`--kubeconfig=${server.kubeconfig}`, ...args], (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** kubectl that must succeed; returns its stdout. */
export async function kubectlOK(server: CLIServer, args: string[], input?: string): Promise<string> {
  const r = await runKubectl(server, args, input);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
