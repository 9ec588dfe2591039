// WithMaxInFlightLimit (server/filters/maxinflight.go; used when API Priority and Fairness is
// off): non-blocking read-only (get, list, watch) and mutating (everything else) buckets sized
// by --max-requests-inflight / --max-mutating-requests-inflight (0 = unlimited); long-running
// requests are exempt, system:masters is never rejected; a full bucket is the plain-text 429
// with `Retry-After: 1`. The chain picks withPriorityAndFairness instead when
// config.flowControl is set.

import type { Handler, RequestContext } from '../endpoints/request/context.ts';
import { httpError } from '../endpoints/responsewriters/status.ts';
import { goQuote } from '../util/go.ts';
import type { LongRunningRequestCheck } from '../endpoints/request/longrunning.ts';

const readOnlyVerbs = new Set(['get', 'list', 'watch']);

/** A non-blocking semaphore (a buffered channel used with select/default upstream). */
export class InFlightBucket {
  readonly limit: number;
  inFlight = 0;
  constructor(limit: number) {
    this.limit = limit;
  }
  tryAcquire(): boolean {
    if (this.inFlight >= this.limit) return false;
    this.inFlight++;
    return true;
  }
  release(): void {
    this.inFlight--;
  }
}

/** tooManyRequests: http.Error text with Retry-After. */
export function tooManyRequests(retryAfter = '1'): Response {
  return httpError('Too many requests, please try again later.', 429, { 'Retry-After': retryAfter });
}

/**
 * Caps concurrent read-only and mutating requests (long-running ones exempt); a full bucket is the 429.
 * Used when API Priority and Fairness is off. Needs RequestInfo.
 *
 * @example
 * ```ts
 * app.use(honoMiddleware(withMaxInFlightLimit, { maxRequestsInFlight: 400, maxMutatingRequestsInFlight: 200,
 *   longRunningFunc: kubeLongRunningRequestCheck }));
 * ```
 */
export function withMaxInFlightLimit(
  next: Handler,
  c: { maxRequestsInFlight: number; maxMutatingRequestsInFlight: number; longRunningFunc: LongRunningRequestCheck },
): Handler {
  if (c.maxRequestsInFlight === 0 && c.maxMutatingRequestsInFlight === 0) return next;
  const readOnly = c.maxRequestsInFlight > 0 ? new InFlightBucket(c.maxRequestsInFlight) : undefined;
  const mutating = c.maxMutatingRequestsInFlight > 0 ? new InFlightBucket(c.maxMutatingRequestsInFlight) : undefined;
  const longRunning = c.longRunningFunc;
  const handler: Handler & { buckets?: { readOnly?: InFlightBucket; mutating?: InFlightBucket } } = (
    ctx: RequestContext,
  ) => {
    const info = ctx.requestInfo;
    if (!info) return httpError(`Internal Server Error: ${goQuote(ctx.url.pathname + ctx.url.search)}`, 500);
    if (longRunning(ctx.request, info)) return next(ctx);
    const bucket = readOnlyVerbs.has(info.verb) ? readOnly : mutating;
    if (!bucket) return next(ctx);
    if (!bucket.tryAcquire()) {
      // The loopback client and cluster admins are never rejected (and take no slot).
      if (ctx.user?.groups?.includes('system:masters')) return next(ctx);
      return tooManyRequests();
    }
    let result: Response | Promise<Response>;
    try {
      result = next(ctx);
    } catch (err) {
      bucket.release();
      throw err;
    }
    if (result instanceof Promise) return result.finally(() => bucket.release());
    bucket.release();
    return result;
  };
  handler.buckets = { readOnly, mutating };
  return handler;
}
