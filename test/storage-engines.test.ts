// The shared conformance cases — the KV cases (src/storage/testing/kv-cases.ts) on the engine and
// the storage.Interface suite (storage-cases.ts) over the store on it — against the revision log in
// every other runtime, one process per runtime: bun:sqlite in Bun and node:sqlite in Deno
// (test/storage-engines/cases-main.ts prints one JSON line per case), and the Store Durable Object
// in workerd under `wrangler dev` (test/storage-workerd/: the cases run in the Worker, the engine
// in the object, every call over DO RPC). Node's own run: adapters/node/sqlite-conformance.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, REPO_ROOT, spawnUntil } from './conformance/harness.ts';
import { kvCases } from '../src/storage/testing/kv-cases.ts';
import { storageCases } from '../src/storage/testing/storage-cases.ts';

interface CaseResult {
  suite: string;
  name: string;
  ok: boolean;
  error?: string;
  ms?: number;
}

/** Runs cases-main.ts in a runtime; resolves with its per-case lines once it prints DONE and exits. */
function runProcess(command: string, args: string[], env: Record<string, string> = {}): Promise<CaseResult[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 170_000);
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const lines = out.split('\n').filter((l) => l.startsWith('{'));
      if (!out.includes('\nDONE')) {
        reject(
          new Error(`${command} ${args.join(' ')} exited (code ${code}, signal ${signal}) before DONE\n${out}\n${err}`),
        );
        return;
      }
      resolve(lines.map((l) => JSON.parse(l) as CaseResult));
    });
  });
}

/** One subtest per case; every shared case must have run, in order (extra engine-specific cases may follow). */
async function report(t: test.TestContext, results: CaseResult[]): Promise<void> {
  for (const [suite, cases] of [
    ['kv', kvCases],
    ['storage', storageCases],
  ] as const) {
    const ran = results.filter((r) => r.suite === suite).map((r) => r.name);
    assert.deepEqual(
      ran.slice(0, cases.length),
      cases.map((c) => c.name),
      `every ${suite} case ran`,
    );
  }
  for (const r of results) {
    await t.test(`${r.suite}: ${r.name}`, () => {
      if (!r.ok) assert.fail(r.error ?? 'failed');
    });
  }
}

describe('the revision log in Bun, Deno and workerd', { concurrency: 3 }, () => {
  test('Bun (bun:sqlite): the KV conformance cases', { timeout: 180_000 }, async (t) => {
    await report(t, await runProcess(BIN + 'bun', ['test/storage-engines/cases-main.ts', 'bun']));
  });

  test('Deno (node:sqlite): the KV conformance cases', { timeout: 180_000 }, async (t) => {
    const results = await runProcess(
      BIN + 'deno',
      [
        'run',
        '--node-modules-dir=manual',
        '--no-lock',
        '--allow-read',
        '--allow-write',
        '--allow-env',
        'test/storage-engines/cases-main.ts',
        'deno',
      ],
      { DENO_NO_UPDATE_CHECK: '1' },
    );
    await report(t, results);
  });

  test('workerd (Store Durable Object over RPC): the KV conformance cases', { timeout: 240_000 }, async (t) => {
    const persist = mkdtempSync(join(tmpdir(), 'storage-workerd-'));
    t.after(() => rmSync(persist, { recursive: true, force: true }));
    const proc = await spawnUntil(
      BIN + 'wrangler',
      [
        'dev',
        '--config',
        'test/storage-workerd/wrangler.toml',
        '--ip',
        '127.0.0.1',
        '--port',
        '0',
        '--inspector-port',
        '0',
        '--show-interactive-dev-session=false',
        '--log-level',
        'info',
        '--persist-to',
        persist,
      ],
      {
        ready: /Ready on http:\/\/127\.0\.0\.1:(\d+)/,
        timeoutMs: 60_000,
        env: { PATH: `${BIN}:${process.env.PATH}`, WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1' },
        cwd: REPO_ROOT,
      },
    );
    t.after(() => proc.stop());
    const base = `http://127.0.0.1:${proc.match[1]}`;
    const names = (await (await fetch(base + '/cases')).json()) as { suite: string; name: string }[];
    // Each case has its own object, so they may run side by side (four at a time).
    const results: CaseResult[] = new Array(names.length);
    let next = 0;
    await Promise.all(
      [0, 1, 2, 3].map(async () => {
        while (next < names.length) {
          const i = next++;
          const { suite, name } = names[i]!;
          const r = await fetch(`${base}/run?suite=${suite}&case=${encodeURIComponent(name)}`);
          const body = (await r.json()) as { ok: boolean; error?: string };
          results[i] = { suite, name, ...body };
        }
      }),
    );
    await report(t, results);
  });
});
