// Case groups against one server: after every group the process must be alive, the liveness
// probe must pass, the server's RSS must be back within a generous bound of its baseline, and no
// credential the group sent may appear in the server's log. Figures go to the test's diagnostics
// (and, with RELIABILITY_FIGURES=<file>, one JSON line per group to that file).

import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { probe } from './probe.ts';
import type { ServerUnderTest } from './server.ts';

/** RSS growth allowed over the baseline after a group (bytes); the figures measured are far below. */
export const rssBound = 160 << 20;

export interface GroupContext {
  server: ServerUnderTest;
  /** Registers a credential that must never appear in the server's log. */
  secret(s: string): string;
  /** Counts one case (reported per group). */
  count(n?: number): void;
}

export interface Baseline {
  rss: number;
}

export async function baseline(server: ServerUnderTest): Promise<Baseline> {
  // A few ordinary requests first, so that lazily built parts are part of the baseline.
  for (let i = 0; i < 3; i++) await probe(server.port, server.token);
  return { rss: server.rss() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs one group, then the checks. `ms` bounds the group itself (the cases bound their own loops;
 * this catches a wedge).
 */
export async function group(
  t: TestContext,
  server: ServerUnderTest,
  base: Baseline,
  name: string,
  fn: (g: GroupContext) => Promise<void>,
  ms = 30_000,
): Promise<void> {
  const secrets: string[] = [];
  let cases = 0;
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    fn({
      server,
      secret: (s) => (secrets.push(s), s),
      count: (n = 1) => void (cases += n),
    }),
    new Promise(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`group ${name} did not finish within ${ms} ms`)), ms)),
    ),
  ]).finally(() => clearTimeout(timer));
  const elapsed = performance.now() - started;
  assert.ok(server.alive(), `the server died during ${name}:\n${server.log().slice(-4000)}`);
  await probe(server.port, server.token);
  // RSS: the peak right after the group, then (bounded) until it settles under the bound.
  const peak = server.rss();
  let after = peak;
  for (let i = 0; i < 20 && after - base.rss > rssBound; i++) {
    await sleep(100);
    after = server.rss();
  }
  const log = server.log();
  for (const s of secrets) assert.ok(!log.includes(s), `a credential of ${name} appears in the server's log`);
  const mb = (b: number) => (b / (1 << 20)).toFixed(1);
  const figures = {
    group: name,
    cases,
    ms: Math.round(elapsed),
    baselineMB: mb(base.rss),
    peakMB: mb(peak),
    afterMB: mb(after),
  };
  t.diagnostic(JSON.stringify(figures));
  if (process.env.RELIABILITY_FIGURES) appendFileSync(process.env.RELIABILITY_FIGURES, JSON.stringify(figures) + '\n');
  assert.ok(cases > 0, `${name} ran no case`);
  assert.ok(after - base.rss <= rssBound, `RSS after ${name}: ${mb(after)} MiB, baseline ${mb(base.rss)} MiB`);
}
