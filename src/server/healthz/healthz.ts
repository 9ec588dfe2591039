// Health endpoints (k8s.io/apiserver/pkg/server/healthz): /healthz, /livez, /readyz, their
// per-check subpaths, `?verbose`, `?exclude=`, byte-for-byte as upstream (healthz.go).

import type { Handler, RequestContext } from '../../endpoints/request/context.ts';
import { errorMessage } from '../../endpoints/responsewriters/status.ts';
import { goQuote } from '../../util/go.ts';
import type { PathRecorderMux } from '../mux/pathrecorder.ts';

export interface HealthChecker {
  readonly name: string;
  /** Resolves when healthy; throws (or rejects) with the reason otherwise. */
  check(ctx: RequestContext): void | Promise<void>;
  /** GroupedHealthChecker: excluding the group name excludes this check too (`etcd` covers `etcd-override-0`). */
  readonly group?: string;
}

/** Builds a checker from a function. */
export function namedCheck(name: string, check: HealthChecker['check'], group?: string): HealthChecker {
  return { name, check, group };
}

/** healthz.PingHealthz: always ok. */
export const pingHealthz: HealthChecker = namedCheck('ping', () => {});

/**
 * healthz.LogHealthz. Upstream fails when klog has not flushed for two minutes; our logger
 * writes synchronously, so there is no flush to wait for and the check is always ok.
 */
export const logHealthz: HealthChecker = namedCheck('log', () => {});

/** Wraps a boot-sequence check so it reports ok until `delayMs` after creation (livez grace). */
export function delayedHealthCheck(check: HealthChecker, delayMs: number, now: () => number = Date.now): HealthChecker {
  const startAt = now() + delayMs;
  return {
    name: check.name,
    group: check.group,
    check: (ctx) => (now() < startAt ? undefined : check.check(ctx)),
  };
}

const textHeaders = { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' };

/** Hooks the health handler reports through (metrics, logging, HasBeenReady). */
export interface HealthObserver {
  /** Called with the endpoint name (`healthz`, `livez`, `readyz`) after every root request. */
  onResult?(endpoint: string, ok: boolean): void;
  /** Called for each evaluated check (for kubernetes_healthcheck metrics and verbose logs). */
  onCheck?(endpoint: string, name: string, error: unknown): void;
}

/**
 * InstallPathHandler: registers `/<endpoint>` and `/<endpoint>/<check>` on the mux, listed.
 * `checks` is read on every request, so checks added before installation all appear.
 */
export function installPathHandler(
  mux: PathRecorderMux,
  path: string,
  checks: readonly HealthChecker[],
  observer: HealthObserver = {},
): void {
  const endpoint = path.replace(/^\//, '');
  mux.handle(path, rootHandler(endpoint, checks, observer));
  for (const check of checks) {
    mux.handle(`${path}/${check.name}`, async (ctx) => {
      try {
        await check.check(ctx);
        // Go sniffs text/plain for the bare `ok`.
        return new Response('ok', { headers: { 'content-type': 'text/plain; charset=utf-8' } });
      } catch (err) {
        return new Response(`internal server error: ${errorMessage(err)}\n`, { status: 500, headers: textHeaders });
      }
    });
  }
}

function rootHandler(endpoint: string, checks: readonly HealthChecker[], observer: HealthObserver): Handler {
  return async (ctx) => {
    // Hot path (health probes, benchmarks): no query string, no parsing of one.
    const params = ctx.url.search ? ctx.url.searchParams : undefined;
    const excluded = new Set(params?.getAll('exclude').map((s) => s.trim()));
    const unmatched = excluded.size ? new Set(excluded) : excluded;
    let body = '';
    let failed = false;
    for (const check of checks) {
      if (excluded.has(check.name)) {
        unmatched.delete(check.name);
        body += `[+]${check.name} excluded: ok\n`;
        continue;
      }
      if (check.group && excluded.has(check.group)) {
        unmatched.delete(check.group);
        body += `[+]${check.name} excluded with ${check.group}: ok\n`;
        continue;
      }
      let error: unknown;
      try {
        // Most checks answer synchronously: no Promise hop for those.
        const pending = check.check(ctx);
        if (pending) await pending;
      } catch (err) {
        error = err ?? new Error('unknown error');
      }
      observer.onCheck?.(endpoint, check.name, error);
      if (error === undefined) body += `[+]${check.name} ok\n`;
      else {
        failed = true;
        body += `[-]${check.name} failed: reason withheld\n`;
      }
    }
    if (unmatched.size) {
      const names = [...unmatched].sort().map(goQuote).join(',');
      body += `warn: some health checks cannot be excluded: no matches for ${names}\n`;
    }
    observer.onResult?.(endpoint, !failed);
    if (failed) {
      return new Response(`${body}${endpoint} check failed\n`, { status: 500, headers: textHeaders });
    }
    if (!params?.has('verbose')) return new Response('ok', { headers: textHeaders });
    return new Response(`${body}${endpoint} check passed\n`, { headers: textHeaders });
  };
}
