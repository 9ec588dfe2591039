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

/** Shared by every request without `?exclude=` (never written: nothing to delete from it). */
const noneExcluded = new Set<string>();

interface RootState {
  excluded: Set<string>;
  unmatched: Set<string>;
  body: string;
  failed: boolean;
}

function rootHandler(endpoint: string, checks: readonly HealthChecker[], observer: HealthObserver): Handler {
  const record = (s: RootState, name: string, error: unknown) => {
    observer.onCheck?.(endpoint, name, error);
    if (error === undefined) s.body += `[+]${name} ok\n`;
    else {
      s.failed = true;
      s.body += `[-]${name} failed: reason withheld\n`;
    }
  };
  // Synchronous while the checks are (most answer at once): no Promise per probe for those.
  const evaluate = (ctx: RequestContext, s: RootState, from: number): Response | Promise<Response> => {
    for (let i = from; i < checks.length; i++) {
      const check = checks[i]!;
      if (s.excluded.has(check.name)) {
        s.unmatched.delete(check.name);
        s.body += `[+]${check.name} excluded: ok\n`;
        continue;
      }
      if (check.group && s.excluded.has(check.group)) {
        s.unmatched.delete(check.group);
        s.body += `[+]${check.name} excluded with ${check.group}: ok\n`;
        continue;
      }
      let pending: void | Promise<void>;
      try {
        pending = check.check(ctx);
      } catch (err) {
        record(s, check.name, err ?? new Error('unknown error'));
        continue;
      }
      if (pending) {
        const next = i + 1;
        return pending.then(
          () => (record(s, check.name, undefined), evaluate(ctx, s, next)),
          (err: unknown) => (record(s, check.name, err ?? new Error('unknown error')), evaluate(ctx, s, next)),
        );
      }
      record(s, check.name, undefined);
    }
    return respond(ctx, s);
  };
  const respond = (ctx: RequestContext, s: RootState): Response => {
    let body = s.body;
    const { unmatched, failed } = s;
    const params = ctx.url.search ? ctx.url.searchParams : undefined;
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
  return (ctx) => {
    // Hot path (health probes, benchmarks): no query string, no parsing of one.
    const excluded = ctx.url.search
      ? new Set(ctx.url.searchParams.getAll('exclude').map((x) => x.trim()))
      : noneExcluded;
    const unmatched = excluded.size ? new Set(excluded) : excluded;
    return evaluate(ctx, { excluded, unmatched, body: '', failed: false }, 0);
  };
}
