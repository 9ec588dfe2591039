// The edge-apiserver CLI as a child process in its secure default (TLS, admin kubeconfig in
// --cert-dir) and a pinned kubectl to drive it: shared by the end-to-end tests.
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { freePort } from './etcd-harness.ts';

/** The pinned kubectl binaries of `versions` and the `skip` option of their cases (in CI a missing one fails). */
export function pinnedKubectl(...versions: string[]): { bins: string[]; skip: string | false } {
  const bins = versions.map((v) => `/usr/lib/google-cloud-sdk/bin/kubectl.${v}`);
  const missing = bins.filter((b) => !existsSync(b));
  if (missing.length && process.env.CI) throw new Error(`kubectl not found: ${missing.join(', ')}`);
  return { bins, skip: missing.length ? `kubectl not found: ${missing.join(', ')}` : false };
}

const pinned132 = pinnedKubectl('1.32');
export const kubectl = pinned132.bins[0]!;
/** The `skip` option of kubectl 1.32 cases (in CI a missing kubectl fails instead). */
export const kubectlSkip = pinned132.skip;

const bin = join(new URL('..', import.meta.url).pathname, 'adapters/node/bin.mjs');
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

export interface CLIServer {
  url: string;
  certDir: string;
  kubeconfig: string;
  /** The admin kubeconfig's bearer token. */
  token: string;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, for tests that do not need a graceful stop. */
  kill(): void;
  /** What the server has written to stderr so far (its log). */
  stderr(): string;
}

/**
 * Starts the CLI with `--cert-dir=<certDir>` and `args`; resolves once it serves. With `adminToken`
 * (a token the args' authentication accepts for a system:masters user) kubectl uses a kubeconfig
 * written here instead of the secure default's admin.kubeconfig.
 */
export async function startCLIServer(certDir: string, args: string[], adminToken?: string): Promise<CLIServer> {
  const port = await freePort();
  const proc = spawn(
    process.execPath,
    [bin, `--secure-port=${port}`, '--bind-address=127.0.0.1', `--cert-dir=${certDir}`, ...args],
    { env: { ...process.env, NODE_NO_WARNINGS: '1' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.add(proc);
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => (children.delete(proc), r(code))));
  let err = '';
  const started = new Promise<void>((resolve, reject) => {
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
  const url = `https://127.0.0.1:${port}`;
  const kubeconfig = join(certDir, adminToken ? 'test.kubeconfig' : 'admin.kubeconfig');
  let token: string;
  try {
    await started;
    if (adminToken) writeFileSync(kubeconfig, tokenKubeconfig(url, adminToken));
    token = /token: "?([^"\s]+)"?/.exec(readFileSync(kubeconfig, 'utf8'))![1]!;
  } catch (e) {
    proc.kill('SIGKILL'); // never left running past a failed start
    throw e;
  }
  return {
    url,
    certDir,
    kubeconfig,
    token,
    stop: () => (proc.kill('SIGTERM'), exited),
    kill: () => proc.kill('SIGKILL'),
    stderr: () => err,
  };
}

function tokenKubeconfig(server: string, token: string): string {
  return `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: "${token}"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

let cacheN = 0;

/**
 * Runs kubectl (`bin`, 1.32 by default) against the server (its admin kubeconfig), with optional
 * stdin. Each run gets a fresh discovery cache, so a resource served a moment ago is seen.
 */
export function runKubectl(server: CLIServer, args: string[], input?: string, bin = kubectl): Promise<KubectlResult> {
  const cache = join(server.certDir, '..', `kubectl-cache-${cacheN++}`);
  return new Promise((resolve) => {
    const child = execFile(
      bin,
      [`--kubeconfig=${server.kubeconfig}`, `--cache-dir=${cache}`, '--request-timeout=20s', ...args],
      { timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = (error as { code?: unknown } | null)?.code;
        resolve({ code: error ? (typeof code === 'number' ? code : 1) : 0, stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** kubectl that must succeed; returns its stdout. */
export async function kubectlOK(server: CLIServer, args: string[], input?: string, bin = kubectl): Promise<string> {
  const r = await runKubectl(server, args, input, bin);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

export interface RawResponse {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * A raw HTTPS request with the admin token (or `headers.authorization`); the generated CA is not
 * trusted, as with kubectl's insecure flag.
 */
export function rawRequest(
  server: CLIServer,
  method: string,
  path: string,
  opts: { body?: string; contentType?: string; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  const { body, contentType = 'application/json', headers = {} } = opts;
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, {
      method,
      rejectUnauthorized: false,
      headers: {
        authorization: `Bearer ${server.token}`,
        ...(body !== undefined ? { 'content-type': contentType } : {}),
        ...headers,
      },
    });
    req.on('response', (res) => {
      let b = '';
      res
        .setEncoding('utf8')
        .on('data', (d: string) => (b += d))
        .on('end', () => resolve({ status: res.statusCode!, body: b, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
