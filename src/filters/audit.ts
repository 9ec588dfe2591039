// WithAudit (k8s.io/apiserver/pkg/endpoints/filters/audit.go).
// Evaluates the audit policy with the authenticated (pre-impersonation) user, emits
// RequestReceived, then ResponseStarted (long-running requests, when the response starts),
// ResponseComplete (when the body is done) or Panic (when the handler throws; rethrown).
// Absent (returns `next`) unless Config.audit has both a policy and a backend.

import type { Handler, RequestContext, UserInfo } from '../endpoints/request/context.ts';
import { errorMessage } from '../endpoints/responsewriters/status.ts';
import type { LongRunningRequestCheck } from '../endpoints/request/longrunning.ts';
import { KlogLogger } from '../util/logger.ts';
import {
  addAuditAnnotation,
  auditEnabled,
  logImpersonatedUser,
  processEventStage,
  setEventResponseStatusCode,
  type AuditContext,
} from '../audit/context.ts';
import {
  auditDeps,
  auditInternalError,
  captureRequestObject,
  captureResponseObject,
  dropUnhandledRequestObject,
  evaluatePolicyAndCreateAuditEvent,
  flushOnEdge,
  type AuditDeps,
  type AuditFilterConfig,
} from '../audit/request.ts';
import { levelLess, type Stage } from '../audit/types.ts';
import { latencyTrackersFrom } from './latency-trackers.ts';
import { formatGoDuration } from '../util/duration.ts';

/** What WithAudit reads (the server Config's field names). */
export interface AuditFilter extends AuditFilterConfig {
  /** Long-running requests get ResponseStarted when their response starts. */
  longRunningFunc: LongRunningRequestCheck;
}

/**
 * Audits the request with the policy and backend of `c.audit` (absent without both). Runs after
 * authentication: the policy matches the authenticated user.
 *
 * @example
 * ```ts
 * const policyRuleEvaluator = newPolicyRuleEvaluator(loadPolicyFromBytes(policyYAML));
 * app.use(honoMiddleware(withAudit, { audit: { policyRuleEvaluator, backend }, longRunningFunc: kubeLongRunningRequestCheck }));
 * ```
 */
export function withAudit(next: Handler, c: AuditFilter): Handler {
  const d = auditDeps(c);
  if (!d) return next;
  const longRunning = c.longRunningFunc;
  const logger = c.logger ?? new KlogLogger();

  // Blocking backends return a Promise: the request waits until the event is stored.
  const stage = async (ac: AuditContext, s: Stage): Promise<boolean> => processEventStage(ac, s);

  return async (ctx) => {
    let ac: AuditContext;
    try {
      ac = evaluatePolicyAndCreateAuditEvent(ctx, d);
    } catch (err) {
      logger.error(`failed to create audit event: ${errorMessage(err)}`);
      return auditInternalError(ctx, 'failed to create audit event');
    }
    if (!auditEnabled(ac)) return next(ctx);

    // Blocking-strict waits for RequestReceived before the handler runs (a failure fails the
    // request). A backend that never fails (blocking mode) lets the handler start meanwhile and
    // holds only the response until the event is stored.
    let received = processEventStage(ac, 'RequestReceived');
    if (typeof received !== 'boolean' && !d.backend.neverFails) received = await received;
    if (received === false) {
      d.metrics.rejectRequest();
      return auditInternalError(ctx, 'failed to store audit event');
    }
    const receivedStored = typeof received === 'boolean' ? undefined : received;

    const info = ctx.requestInfo;
    const isLongRunning = !!info && longRunning(ctx.request, info);
    const requestCapture =
      !levelLess(ac.event.level, 'Request') && !isLongRunning ? captureRequestObject(ctx, ac, d) : undefined;
    const userAtEntry = ctx.user;

    let response: Response;
    try {
      response = await next(ctx);
    } catch (err) {
      await requestCapture;
      noteImpersonation(ctx, ac, userAtEntry);
      ac.event.responseStatus = panicStatus(err);
      await stage(ac, 'Panic');
      await receivedStored;
      flushOnEdge(ctx, d.backend);
      throw err;
    }
    noteImpersonation(ctx, ac, userAtEntry);

    if (isLongRunning) {
      setEventResponseStatusCode(ac, response.status);
      await stage(ac, 'ResponseStarted');
      await receivedStored;
      if (!response.body) {
        await stage(ac, 'ResponseComplete');
        flushOnEdge(ctx, d.backend);
        return response;
      }
      // ResponseComplete when the stream ends or the client goes away.
      return new Response(
        onStreamEnd(response.body, (err) => completeLater(ctx, ac, d, stage, err)),
        response,
      );
    }

    if (response.status >= 300 || ac.event.level === 'RequestResponse')
      await captureResponseObject(ctx, ac, response, d);
    setEventResponseStatusCode(ac, response.status);
    if (requestCapture) {
      await requestCapture;
      dropUnhandledRequestObject(ac, response.status);
    }
    writeLatencyToAnnotation(ctx);
    // Only a blocking backend returns a Promise; skip the extra turn otherwise.
    const completed = processEventStage(ac, 'ResponseComplete');
    if (typeof completed !== 'boolean') await completed;
    if (receivedStored) await receivedStored;
    flushOnEdge(ctx, d.backend);
    return response;
  };
}

/**
 * writeLatencyToAnnotation: past 500ms, the time spent in each tracked layer (WithLatencyTrackers)
 * becomes an `apiserver.latency.k8s.io/<layer>` annotation, plus `…/total`.
 */
function writeLatencyToAnnotation(ctx: RequestContext): void {
  const total = Date.now() - ctx.receivedTimestamp;
  if (total <= 500) return;
  const trackers = latencyTrackersFrom(ctx);
  if (!trackers) return;
  const layers: [string, string][] = [];
  for (const [stage, ms] of trackers) {
    if (ms)
      layers.push([`apiserver.latency.k8s.io/${stage.replace(/_/g, '-')}`, formatGoDuration(Math.round(ms * 1e6))]);
  }
  if (!layers.length) return;
  layers.push(['apiserver.latency.k8s.io/total', formatGoDuration(total * 1e6)]);
  for (const [k, v] of layers) addAuditAnnotation(ctx, k, v);
}

function completeLater(
  ctx: RequestContext,
  ac: AuditContext,
  d: AuditDeps,
  stage: (ac: AuditContext, s: Stage) => Promise<boolean>,
  err?: unknown,
): void {
  // A stream that fails on the server side is the panic of a streaming handler.
  if (err !== undefined) ac.event.responseStatus = panicStatus(err);
  const done = stage(ac, err !== undefined ? 'Panic' : 'ResponseComplete');
  if (ctx.transport.waitUntil) ctx.transport.waitUntil(done.then(() => d.backend.flush?.()));
}

function panicStatus(err: unknown): AuditContext['event']['responseStatus'] {
  return { code: 500, status: 'Failure', reason: 'InternalError', message: `APIServer panic'd: ${errorMessage(err)}` };
}

/**
 * The impersonation filter records the impersonated user with logImpersonatedUser; if it only
 * replaced ctx.user, record that user here.
 */
function noteImpersonation(ctx: RequestContext, ac: AuditContext, before: UserInfo | undefined): void {
  const now = ctx.user;
  if (ac.event.impersonatedUser || !now || !before || now === before) return;
  if (now.name === before.name && now.uid === before.uid && sameList(now.groups, before.groups)) return;
  logImpersonatedUser(ctx, now);
}

function sameList(a: string[] | undefined, b: string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/**
 * Passes a body through, calling `onEnd` once: when it finishes or the client cancels it
 * (no argument), or with the error when the source fails.
 */
function onStreamEnd(body: ReadableStream<Uint8Array>, onEnd: (err?: unknown) => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  const end = (err?: unknown) => {
    if (!ended) {
      ended = true;
      onEnd(err);
    }
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (err) {
        end(err ?? new Error('stream error'));
        controller.error(err);
        return;
      }
      if (chunk.done) {
        controller.close();
        end();
      } else controller.enqueue(chunk.value);
    },
    async cancel(reason) {
      try {
        await reader.cancel(reason);
      } finally {
        end();
      }
    },
  });
}
