// WithProbabilisticGoaway (server/filters/goaway.go): on HTTP/2, with probability
// `--goaway-chance`, the connection is told to GOAWAY after this response (Go sets
// `Connection: close`; here the listener's Transport.goaway hook). Never short-circuits.

import type { Handler } from '../endpoints/request/context.ts';

/**
 * Asks an HTTP/2 client to reconnect elsewhere (GOAWAY) with probability `goawayChance` per request,
 * so long-lived connections rebalance across servers; absent at 0.
 *
 * @example
 * ```ts
 * app.use(honoMiddleware(withProbabilisticGoaway, { goawayChance: 0.001 }));
 * ```
 */
export function withProbabilisticGoaway(
  next: Handler,
  c: { goawayChance: number },
  random: () => number = Math.random,
): Handler {
  const chance = c.goawayChance;
  if (!(chance > 0)) return next;
  return (ctx) => {
    if (ctx.transport.protocol === 'h2' && random() < chance) ctx.transport.goaway?.();
    return next(ctx);
  };
}
