// WithRetryAfter (server/filters/with_retry_after.go; only with --shutdown-send-retry-after):
// once NotAcceptingNewRequest fired, every non-exempt request gets the plain-text 429 with
// `Retry-After: 5` and `Connection: close` (the retry-after shutdown mode). It sits outside HSTS and
// Cache-Control, so the 429 carries neither.

import type { Handler } from '../endpoints/request/context.ts';
import { httpError } from '../endpoints/responsewriters/status.ts';
import type { LifecycleSignal } from '../util/lifecycle-signal.ts';
import { isShutdownExempt } from './common.ts';

/**
 * Once the server stops accepting new requests (shutdown), answers the 429 with `Retry-After: 5` and
 * `Connection: close` (`--shutdown-send-retry-after`).
 *
 * @example
 * ```ts
 * app.use(honoMiddleware(withRetryAfter, { lifecycleSignals: server.config.lifecycleSignals }));
 * ```
 */
export function withRetryAfter(
  next: Handler,
  c: { lifecycleSignals: { NotAcceptingNewRequest: LifecycleSignal } },
): Handler {
  const shuttingDown = c.lifecycleSignals.NotAcceptingNewRequest;
  return (ctx) => {
    if (!shuttingDown.hasFired || isShutdownExempt(ctx)) return next(ctx);
    // Connection-specific headers are illegal on HTTP/2: there, ask the listener for the GOAWAY
    // that Go derives from `Connection: close`.
    if (ctx.transport.protocol === 'h2') {
      ctx.transport.goaway?.();
      return httpError('The apiserver is shutting down, please try again later.', 429, { 'Retry-After': '5' });
    }
    return httpError('The apiserver is shutting down, please try again later.', 429, {
      Connection: 'close',
      'Retry-After': '5',
    });
  };
}
