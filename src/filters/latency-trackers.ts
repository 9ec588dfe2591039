// WithLatencyTrackers (endpoints/filters/webhook_duration.go): attaches per-request latency
// trackers (authentication, authorization, APF queue wait, webhooks …) that inner layers add to
// and audit annotations read. Watches get none. Observable only through audit (§11.2).

import type { Handler, RequestContext } from '../endpoints/request/context.ts';

const key = Symbol('latencyTrackers');

/** Accumulated milliseconds per tracked stage (`authentication`, `authorization`, `apf_queue_wait` …). */
export type LatencyTrackers = Map<string, number>;

export function withLatencyTrackers(next: Handler, _c?: unknown): Handler {
  return (ctx) => {
    if (ctx.requestInfo?.verb !== 'watch') ctx.values.set(key, new Map());
    return next(ctx);
  };
}

/** The request's trackers, if attached. */
export function latencyTrackersFrom(ctx: RequestContext): LatencyTrackers | undefined {
  return ctx.values.get(key) as LatencyTrackers | undefined;
}

/** Adds `ms` to a stage's total (no-op without trackers, e.g. for watches). */
export function trackLatency(ctx: RequestContext, stage: string, ms: number): void {
  const t = latencyTrackersFrom(ctx);
  if (t) t.set(stage, (t.get(stage) ?? 0) + ms);
}
