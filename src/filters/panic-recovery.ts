// WithPanicRecovery (server/filters/wrap.go): anything thrown below (an Error or not) becomes
// upstream's 500 text and the server keeps serving. An abort (ErrAbortHandler, or the request's
// own signal firing: client gone, deadline passed) is not a panic: no 500, no error log; it is
// rethrown so the listener resets the stream, as Go's re-panic does.

import type { Handler } from '../endpoints/request/context.ts';
import { errorMessage, httpError } from '../endpoints/responsewriters/status.ts';
import type { Logger } from '../util/logger.ts';

/** http.ErrAbortHandler: throw it to abort the response without a panic log. */
export class AbortHandlerError extends Error {
  constructor(message = 'net/http: abort Handler') {
    super(message);
    this.name = 'AbortHandlerError';
  }
}

export const ErrAbortHandler = new AbortHandlerError();

/** Whether a thrown value means "abort this response" rather than a bug. */
export function isAbort(err: unknown, signal?: AbortSignal): boolean {
  if (err instanceof AbortHandlerError) return true;
  if (signal?.aborted && err === signal.reason) return true;
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AbortError';
}

const panicMessage = 'This request caused apiserver to panic. Look in the logs for details.';

/**
 * Turns an exception from any inner handler into upstream's plain-text 500 (and logs it); a client
 * that went away is not logged as a panic.
 *
 * @example
 * ```ts
 * app.use(honoMiddleware(withPanicRecovery, { logger: new KlogLogger() }));
 * ```
 */
export function withPanicRecovery(next: Handler, c: { logger: Logger }): Handler {
  const recover = (ctx: Parameters<Handler>[0], err: unknown): Response => {
    const uri = ctx.url.pathname + ctx.url.search;
    if (isAbort(err, ctx.signal)) {
      // Go logs only its explicit ErrAbortHandler panic; a client that went away is not logged.
      if (err instanceof AbortHandlerError)
        c.logger.error('Timeout or abort while handling', {
          method: ctx.request.method,
          URI: uri,
          auditID: ctx.auditID,
        });
      throw err;
    }
    c.logger.error("apiserver panic'd", {
      method: ctx.request.method,
      URI: uri,
      auditID: ctx.auditID,
      err: errorMessage(err),
    });
    return httpError(panicMessage, 500);
  };
  return (ctx) => {
    let result: Response | Promise<Response>;
    try {
      result = next(ctx);
    } catch (err) {
      return recover(ctx, err);
    }
    // Stay synchronous when the handler is (no extra promise per request).
    if (result instanceof Promise) return result.catch((err: unknown) => recover(ctx, err));
    return result;
  };
}
