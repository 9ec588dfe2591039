// WithMuxAndDiscoveryComplete (endpoints/filters/mux_discovery_complete.go): marks requests
// that arrive before MuxAndDiscoveryComplete, so the final not-found handler answers 503
// instead of a spurious 404. Never short-circuits.

import type { Handler } from '../endpoints/request/context.ts';
import type { LifecycleSignal } from '../util/lifecycle-signal.ts';

export function withMuxAndDiscoveryComplete(next: Handler, c: { lifecycleSignals: { MuxAndDiscoveryComplete: LifecycleSignal } }): Handler {
  const signal = c.lifecycleSignals.MuxAndDiscoveryComplete;
  return (ctx) => {
    if (!signal.hasFired) ctx.muxAndDiscoveryIncomplete = true;
    return next(ctx);
  };
}
