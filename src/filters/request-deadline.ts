// WithRequestDeadline (endpoints/filters/request_deadline.go): the deadline of a
// non-long-running request is receipt + --request-timeout, shortened (never lengthened) by a
// `?timeout=` in Go duration syntax; a bad value is the negotiated 400, audited. The timeout
// filter enforces the deadline (it owns the timer and the AbortSignal).

import type { Handler, RequestContext } from '../endpoints/request/context.ts';
import { queryFirst } from '../endpoints/request/requestinfo.ts';
import { errorMessage, errorNegotiated, newBadRequest } from '../endpoints/responsewriters/status.ts';
import type { LongRunningRequestCheck } from '../endpoints/request/longrunning.ts';
import { withFailedRequestAudit } from './failed-authentication-audit.ts';
import type { AuditFilterConfig } from '../audit/request.ts';
import { parseGoDuration } from '../util/duration.ts';
import { requestInfoOr500 } from './common.ts';

const key = Symbol('requestDeadline');

/** The request's deadline (ms since the epoch), if WithRequestDeadline set one. */
export function requestDeadlineFrom(ctx: RequestContext): number | undefined {
  return ctx.values.get(key) as number | undefined;
}

export function setRequestDeadline(ctx: RequestContext, deadline: number): void {
  ctx.values.set(key, deadline);
}

/** What WithRequestDeadline reads (the server Config's field names); audit settings audit a bad `?timeout=`. */
export interface RequestDeadlineFilterConfig extends AuditFilterConfig {
  longRunningFunc: LongRunningRequestCheck;
  /** `--request-timeout` (ms): the longest deadline. */
  requestTimeout: number;
}

/**
 * Sets the request's deadline (receipt + requestTimeout, shortened by `?timeout=`); the timeout
 * filter enforces it. Needs RequestInfo.
 *
 * @example
 * ```ts
 * app.use(honoMiddleware(withRequestInfo, {}));
 * app.use(honoMiddleware(withRequestDeadline, { longRunningFunc: kubeLongRunningRequestCheck, requestTimeout: 60_000 }));
 * ```
 */
export function withRequestDeadline(next: Handler, c: RequestDeadlineFilterConfig): Handler {
  const longRunning = c.longRunningFunc;
  const max = c.requestTimeout;
  return (ctx) => {
    const info = requestInfoOr500(ctx);
    if (info instanceof Response) return info;
    if (longRunning(ctx.request, info)) return next(ctx);
    let timeout = max;
    const value = ctx.url.search === '' ? '' : queryFirst(ctx.url.search, 'timeout');
    if (value !== '') {
      let user: number;
      try {
        user = parseGoDuration(value) / 1e6;
      } catch (err) {
        const message = `invalid timeout specified in the request URL - ${errorMessage(err)}`;
        const failed: Handler = (x) => errorNegotiated(newBadRequest(message), x.request, x.url);
        // Audited (no user yet) when auditing is configured, as upstream's withFailedRequestAudit.
        if (c.audit) return withFailedRequestAudit(failed, message, c)(ctx);
        return failed(ctx);
      }
      if (user > 0 && user < max) timeout = user;
    }
    setRequestDeadline(ctx, ctx.receivedTimestamp + timeout);
    return next(ctx);
  };
}
