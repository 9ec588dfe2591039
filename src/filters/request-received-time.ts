// WithRequestReceivedTimestamp (endpoints/filters/request_received_time.go): the time the
// request deadline, audit and httplog latency count from. Never short-circuits.

import type { Handler } from '../endpoints/request/context.ts';

/**
 * Records when the request was received (`ctx.receivedTimestamp`), which deadlines and audit events use.
 *
 * @example
 * ```ts
 * app.use(honoMiddleware(withRequestReceivedTimestamp, {}));
 * ```
 */
export function withRequestReceivedTimestamp(next: Handler, _c?: unknown): Handler {
  return (ctx) => {
    ctx.receivedTimestamp = Date.now();
    return next(ctx);
  };
}
