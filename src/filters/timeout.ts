// WithTimeoutForNonLongRunningRequests (server/filters/timeout.go): runs the inner handler with
// a child context (a COPY of the response header map, as Go's cloned header map, and an
// AbortSignal that fires at the deadline or when the client goes away) and, if no Response came
// back by the deadline, answers the filter's 504: the bare Status without kind/apiVersion, text
// content type sniffed by Go, with the outer headers only (inner ones are dropped). §10.

import { ensureMutable, type Handler, type RequestContext } from '../endpoints/request/context.ts';
import { encodeStatus } from '../endpoints/responsewriters/status.ts';
import type { LongRunningRequestCheck } from '../server/config.ts';
import type { Logger } from '../util/logger.ts';
import { requestInfoOr500 } from './common.ts';
import { requestDeadlineFrom } from './request-deadline.ts';

const timeoutBody = encodeStatus(
  { status: 'Failure', message: 'Timeout: request did not complete within the allotted timeout', reason: 'Timeout', details: {}, code: 504 },
  false,
  false,
);

/** The filter's 504 (Go sniffs the JSON text as text/plain). */
export function timeoutResponse(): Response {
  return new Response(timeoutBody, { status: 504, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
}

/** The reason the child signal carries when the deadline passes. */
export class DeadlineExceededError extends Error {
  constructor() {
    super('context deadline exceeded');
    this.name = 'TimeoutError';
  }
}

export function withTimeoutForNonLongRunningRequests(
  next: Handler,
  c: { longRunningFunc: LongRunningRequestCheck; requestTimeout: number; logger: Logger },
): Handler {
  const longRunning = c.longRunningFunc;
  return (ctx) => {
    const info = requestInfoOr500(ctx);
    if (info instanceof Response) return info;
    if (longRunning(ctx.request, info)) return next(ctx);
    const deadline = requestDeadlineFrom(ctx) ?? ctx.receivedTimestamp + c.requestTimeout;
    const ac = new AbortController();
    const child: RequestContext = { ...ctx, responseHeaders: new Headers(ctx.responseHeaders), signal: ac.signal };
    return new Promise<Response>((resolve, reject) => {
      let settled = false;
      const outer = ctx.signal;
      const finish = (reason: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outer.removeEventListener('abort', onClientAbort);
        ac.abort(reason);
        resolve(timeoutResponse());
      };
      const onClientAbort = () => finish(outer.reason);
      const timer = setTimeout(() => finish(new DeadlineExceededError()), Math.max(0, deadline - Date.now()));
      if (outer.aborted) return finish(outer.reason);
      outer.addEventListener('abort', onClientAbort, { once: true });
      const done = () => {
        clearTimeout(timer);
        outer.removeEventListener('abort', onClientAbort);
      };
      let result: Response | Promise<Response>;
      try {
        result = next(child);
      } catch (err) {
        settled = true;
        done();
        return reject(err);
      }
      Promise.resolve(result).then(
        (res) => {
          if (settled) {
            // Post-timeout activity: the 504 is already out; free what the late answer holds.
            c.logger.info('post-timeout activity', { method: ctx.request.method, path: ctx.url.pathname, result: res.status }, 2);
            void res.body?.cancel().catch(() => {});
            return;
          }
          settled = true;
          done();
          resolve(mergeInnerHeaders(ctx.responseHeaders, child.responseHeaders, res));
        },
        (err: unknown) => {
          if (settled) {
            c.logger.info('post-timeout activity', { method: ctx.request.method, path: ctx.url.pathname, err: String(err) }, 2);
            return;
          }
          settled = true;
          done();
          reject(err);
        },
      );
    });
  };
}

/**
 * Headers inner layers put on the copied map reach the Response (the responder's own values
 * win); the unchanged outer ones are left to the outer finalizeResponse, so an answer with no
 * inner headers is not touched here.
 */
function mergeInnerHeaders(outer: Headers, inner: Headers, res: Response): Response {
  for (const [name, value] of inner) {
    if (outer.get(name) === value) continue;
    res = ensureMutable(res);
    if (!res.headers.has(name)) res.headers.set(name, value);
  }
  return res;
}
