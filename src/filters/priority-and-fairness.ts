// WithPriorityAndFairness (k8s.io/apiserver/pkg/server/filters/priority-and-fairness.go):
// classify by FlowSchema, queue fairly within the PriorityLevel, execute or answer upstream's
// 429.
//
// Watches hold their seat only until they start: the seat is released when the handler returns
// its (streaming) Response, or earlier if the handler calls the function stored under
// `watchInitializedKey` in ctx.values (upstream's "watch initialized" signal).

import { signalAborted, type Handler, type RequestContext, type UserInfo } from '../endpoints/request/context.ts';
import { httpError } from '../endpoints/responsewriters/status.ts';
import { goQuote } from '../util/go.ts';
import type { LongRunningRequestCheck } from '../endpoints/request/longrunning.ts';
import type { APIServerMetrics } from '../metrics/apiserver.ts';
import type { Logger } from '../util/logger.ts';
import { FlowControl, type Classification } from '../flowcontrol/controller.ts';
import type { Admission, LazySignal } from '../flowcontrol/queueset.ts';
import { requestDeadlineFrom } from './request-deadline.ts';
import { apfWaitKey } from './request-metrics.ts';

/** ctx.values key: a `() => void` a watch handler may call once its initial events are sent. */
export const watchInitializedKey = Symbol.for('edge-apiserver.apf.watchInitialized');
/** ctx.values key: the Classification of the request (for logs and debugging). */
export const classificationKey = Symbol.for('edge-apiserver.apf.classification');

export const flowSchemaUIDHeader = 'X-Kubernetes-PF-FlowSchema-UID';
export const priorityLevelUIDHeader = 'X-Kubernetes-PF-PriorityLevel-UID';

const nonMutatingVerbs = new Set(['get', 'list', 'watch']);
const anonymous: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

/** Go's handleError in the flow-control filters: `Internal Server Error: %#v` of the RequestURI. */
function handleError(ctx: RequestContext): Response {
  return httpError(`Internal Server Error: ${goQuote(ctx.url.pathname + ctx.url.search)}`, 500);
}

/** tooManyRequests: plain-text 429 with Retry-After. */
export function tooManyRequests(retryAfter: number): Response {
  return httpError('Too many requests, please try again later.', 429, { 'retry-after': String(retryAfter) });
}

/** What WithPriorityAndFairness reads (the server Config's field names). */
export interface PriorityAndFairnessFilterConfig {
  /** Undefined: the filter is absent. Started here with the server's concurrency limit. */
  flowControl?: FlowControl;
  /** Their sum is the server's concurrency limit (must be positive). */
  maxRequestsInFlight: number;
  maxMutatingRequestsInFlight: number;
  /** `--request-timeout` (ms): bounds the queue wait. */
  requestTimeout: number;
  longRunningFunc: LongRunningRequestCheck;
  /** Without an authenticator requests are classified as anonymous. */
  authentication: { authenticator?: unknown };
  metrics: APIServerMetrics;
  logger: Logger;
}

/**
 * Classifies each request by FlowSchema and queues it fairly in its PriorityLevel; a full queue is
 * the 429. Needs RequestInfo (and a user) from earlier filters.
 *
 * @example
 * ```ts
 * const flowControl = new FlowControl(); // upstream's bootstrap FlowSchemas and PriorityLevels
 * app.use(honoMiddleware(withPriorityAndFairness, { flowControl, maxRequestsInFlight: 400,
 *   maxMutatingRequestsInFlight: 200, requestTimeout: 60_000, longRunningFunc: kubeLongRunningRequestCheck,
 *   authentication: { authenticator }, metrics: new APIServerMetrics(), logger }));
 * ```
 */
export function withPriorityAndFairness(next: Handler, c: PriorityAndFairnessFilterConfig): Handler {
  const fc = c.flowControl;
  if (!(fc instanceof FlowControl)) return next;
  const serverConcurrencyLimit = c.maxRequestsInFlight + c.maxMutatingRequestsInFlight;
  if (serverConcurrencyLimit <= 0) {
    // kube-apiserver's BuildPriorityAndFairness refuses to start.
    throw new Error(
      `invalid configuration: MaxRequestsInFlight=${c.maxRequestsInFlight} and MaxMutatingRequestsInFlight=${c.maxMutatingRequestsInFlight}; they must add up to something positive`,
    );
  }
  fc.start({
    serverConcurrencyLimit,
    requestTimeout: c.requestTimeout,
    metrics: c.metrics,
  });
  const metrics = c.metrics;
  // Upstream always has an authenticator; an embedder without one gets anonymous classification.
  const needsUser = !!c.authentication.authenticator;

  // The admitted request runs; its seat is released when the answer is there (synchronously
  // when the handler answers synchronously: no Promise per request).
  const run = (
    ctx: RequestContext,
    admission: Admission,
    cls: Classification,
    mutating: boolean,
  ): Response | Promise<Response> => {
    if (!admission.admitted) {
      const pl = cls.priorityLevel;
      const retryAfter = fc.recordDropped(pl);
      metrics.droppedRequests.inc([mutating ? 'mutating' : 'readOnly']);
      metrics.recordRequestTermination(ctx.request, ctx.url, ctx.requestInfo!, 'apiserver', 429);
      const res = tooManyRequests(retryAfter);
      res.headers.set(flowSchemaUIDHeader, cls.flowSchema.uid);
      res.headers.set(priorityLevelUIDHeader, pl.uid);
      return res;
    }
    if (admission.waitedMs > 0) ctx.values.set(apfWaitKey, admission.waitedMs);
    if (ctx.requestInfo!.verb === 'watch') ctx.values.set(watchInitializedKey, admission.finish);
    let out: Response | Promise<Response>;
    try {
      out = next(ctx);
    } catch (err) {
      admission.finish();
      throw err;
    }
    if (!(out instanceof Promise)) {
      admission.finish();
      return out;
    }
    return out.then(
      (res) => {
        admission.finish();
        return res;
      },
      (err: unknown) => {
        admission.finish();
        throw err;
      },
    );
  };

  return (ctx) => {
    const info = ctx.requestInfo;
    if (!info) {
      c.logger.error('no RequestInfo found in context');
      return handleError(ctx);
    }
    let user = ctx.user;
    if (!user) {
      if (needsUser) {
        c.logger.error('no User found in context');
        return handleError(ctx);
      }
      user = anonymous;
    }
    const isWatch = info.verb === 'watch';
    // Long-running requests other than watches bypass APF entirely.
    if (!isWatch && c.longRunningFunc(ctx.request, info)) return next(ctx);

    const digest = { requestInfo: info, user };
    const cls = fc.classify(digest);
    ctx.values.set(classificationKey, cls);
    const pl = cls.priorityLevel;
    ctx.responseHeaders.set(flowSchemaUIDHeader, cls.flowSchema.uid);
    ctx.responseHeaders.set(priorityLevelUIDHeader, pl.uid);

    // Queue-wait limit: a quarter of the time left at arrival (or of --request-timeout for
    // requests without a deadline), at most one minute.
    const deadline = requestDeadlineFrom(ctx);
    const waitDeadline =
      ctx.receivedTimestamp +
      (deadline === undefined
        ? fc.requestWaitLimit
        : Math.min(Math.max(0, deadline - ctx.receivedTimestamp) / 4, 60_000));
    const mutating = !nonMutatingVerbs.has(info.verb);
    const seats = fc.estimateSeats(digest, ctx.url, pl);
    // The request's AbortSignal is made only if the request has to wait.
    const admission = fc.admit(cls, seats, waitDeadline, mutating, new RequestSignal(ctx));
    if (admission instanceof Promise) return admission.then((a) => run(ctx, a, cls, mutating));
    return run(ctx, admission, cls, mutating);
  };
}

/** ctx.signal, read only when needed (a timeout's child context makes it on first read). */
class RequestSignal implements LazySignal {
  private readonly ctx: RequestContext;
  constructor(ctx: RequestContext) {
    this.ctx = ctx;
  }
  get aborted(): boolean {
    return signalAborted(this.ctx);
  }
  get signal(): AbortSignal {
    return this.ctx.signal;
  }
}
