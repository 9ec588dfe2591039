// WithMuxAndDiscoveryComplete (endpoints/filters/mux_discovery_complete.go): marks requests
// that arrive before MuxAndDiscoveryComplete, so the final not-found handler answers 503
// instead of a spurious 404. Never short-circuits.

import type { Handler } from '../endpoints/request/context.ts';
import type { LifecycleSignal } from '../util/lifecycle-signal.ts';

/**
 * Marks requests that arrive before MuxAndDiscoveryComplete fires, so the not-found handler answers
 * them 503 (try again) instead of 404.
 *
 * @example
 * ```ts
 * app.use(honoMiddleware(withMuxAndDiscoveryComplete, { lifecycleSignals: new LifecycleSignals() }));
 * ```
 */
export function withMuxAndDiscoveryComplete(
  next: Handler,
  c: { lifecycleSignals: { MuxAndDiscoveryComplete: LifecycleSignal } },
): Handler {
  const signal = c.lifecycleSignals.MuxAndDiscoveryComplete;
  return (ctx) => {
    if (!signal.hasFired) ctx.muxAndDiscoveryIncomplete = true;
    return next(ctx);
  };
}
