// WithWaitGroup (server/filters/waitgroup.go): tracks non-long-running requests so shutdown can
// drain them (the server's run() waits on config.nonLongRunningRequestWaitGroup). Once draining
// has begun, new non-exempt requests get the 503 "apiserver is shutting down".

import type { Handler, RequestContext } from '../endpoints/request/context.ts';
import { encodeStatus, newServiceUnavailable } from '../endpoints/responsewriters/status.ts';
import type { LongRunningRequestCheck } from '../endpoints/request/longrunning.ts';
import type { SafeWaitGroup } from '../util/waitgroup.ts';
import { isShutdownExempt, requestInfoOr500 } from './common.ts';

const shuttingDownBody = encodeStatus(newServiceUnavailable('apiserver is shutting down')) + '\n';

/** waitGroupWriteRetryAfterToResponse: the JSON Status, encoder newline plus Fprintln's. */
export function shuttingDownResponse(): Response {
  return new Response(shuttingDownBody, {
    status: 503,
    headers: { 'Retry-After': '1', 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff' },
  });
}

/**
 * Counts non-long-running requests in `nonLongRunningRequestWaitGroup` so shutdown can drain them; once
 * draining, new requests get the 503 "apiserver is shutting down". Needs RequestInfo.
 *
 * @example
 * ```ts
 * const wg = new SafeWaitGroup();
 * app.use(honoMiddleware(withWaitGroup, { longRunningFunc: kubeLongRunningRequestCheck, nonLongRunningRequestWaitGroup: wg }));
 * // on shutdown: wg.wait() resolves when the last one is done
 * ```
 */
export function withWaitGroup(
  next: Handler,
  c: { longRunningFunc: LongRunningRequestCheck; nonLongRunningRequestWaitGroup: SafeWaitGroup },
  isExempt: (ctx: RequestContext) => boolean = isShutdownExempt,
): Handler {
  const wg = c.nonLongRunningRequestWaitGroup;
  const longRunning = c.longRunningFunc;
  return (ctx) => {
    const info = requestInfoOr500(ctx);
    if (info instanceof Response) return info;
    if (longRunning(ctx.request, info)) return next(ctx);
    if (wg.isWaiting) {
      if (isExempt(ctx)) return next(ctx);
      return shuttingDownResponse();
    }
    wg.add(1);
    let result: Response | Promise<Response>;
    try {
      result = next(ctx);
    } catch (err) {
      wg.done();
      throw err;
    }
    if (result instanceof Promise) return result.finally(() => wg.done());
    wg.done();
    return result;
  };
}
