// WithLatencyTrackers (endpoints/filters/webhook_duration.go): attaches per-request latency
// trackers (authentication, authorization, APF queue wait, webhooks …) that inner layers add to
// and audit annotations read. Watches get none. Observable only through audit.

import type { Handler, RequestContext } from '../endpoints/request/context.ts';

const key = Symbol('latencyTrackers');

/** Accumulated milliseconds per tracked stage (`authentication`, `authorization`, `apf_queue_wait` …). */
export type LatencyTrackers = Map<string, number>;

/**
 * Gives inner filters a per-request map of stage latencies (authentication, authorization, APF wait …)
 * that audit annotations and slow-request logs read.
 *
 * @example
 * ```ts
 * app.use(honoMiddleware(withLatencyTrackers, {}));
 * ```
 */
export function withLatencyTrackers(next: Handler, _c?: unknown): Handler {
  return (ctx) => {
    // `null`: attached, created on first use (most requests never track anything).
    if (ctx.requestInfo?.verb !== 'watch') ctx.values.set(key, null);
    return next(ctx);
  };
}

/** The request's trackers: undefined when none are attached (watches) or nothing was tracked yet. */
export function latencyTrackersFrom(ctx: RequestContext): LatencyTrackers | undefined {
  return (ctx.values.get(key) as LatencyTrackers | null | undefined) ?? undefined;
}

/** Adds `ms` to a stage's total (no-op without trackers, e.g. for watches). */
export function trackLatency(ctx: RequestContext, stage: string, ms: number): void {
  let t = ctx.values.get(key) as LatencyTrackers | null | undefined;
  if (t === undefined) return;
  if (t === null) {
    t = new Map();
    ctx.values.set(key, t);
  }
  t.set(stage, (t.get(stage) ?? 0) + ms);
}
