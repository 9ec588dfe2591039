// What WithAudit, WithFailedAuthenticationAudit and withFailedRequestAudit share
// (evaluatePolicyAndCreateAuditEvent in endpoints/filters/audit.go), plus the body capture that
// stands in for upstream's REST handlers calling LogRequestObject/LogResponseObject.

import type { Attributes } from '../authorization/authorizer.ts';
import type { Handler, RequestContext } from '../endpoints/request/context.ts';
import { RequestInfoFactory, type RequestInfo } from '../endpoints/request/requestinfo.ts';
import { errorMessage, internalError } from '../endpoints/responsewriters/status.ts';
import { KlogLogger, type Logger } from '../util/logger.ts';
import {
  addAuditAnnotation,
  auditContextFrom,
  auditEnabled,
  initAuditContext,
  logRequestMetadata,
  logRequestObject,
  logRequestPatch,
  logResponseObject,
  processEventStage,
  setEventResponseStatusCode,
  type AuditContext,
} from './context.ts';
import { AuditMetrics, type AuditMetricCounters } from './metrics.ts';
import type { PolicyRuleEvaluator } from './policy.ts';
import type { AuditBackend, AuditConfig, AuditSink } from './types.ts';

/** Annotation set when a body was too big to capture (as the truncate plugin marks events). */
export const truncatedAnnotation = 'audit.k8s.io/truncated';

/** The pieces a filter needs, resolved once when the chain is built; undefined when auditing is off. */
export interface AuditDeps {
  backend: AuditBackend;
  policy: PolicyRuleEvaluator;
  metrics: AuditMetrics;
  maxBody: number;
  requestInfoFactory: RequestInfoFactory;
}

/**
 * What the audit filters read, under the server Config's field names (a CompletedConfig fits).
 * Only `audit` is required for auditing to happen; the rest has upstream's defaults.
 */
export interface AuditFilterConfig {
  /** Policy and backend; without both the audit filters are absent (return `next`). */
  audit?: AuditConfig;
  /** The server's counters that apiserver_audit_* also feed (APIServerMetrics). */
  metrics?: AuditMetricCounters;
  /** Default body-capture limit when `audit.maxCapturedBodyBytes` is unset (default 3 MiB). */
  maxRequestBodyBytes?: number;
  /** Default `['/api']`. */
  legacyAPIGroupPrefixes?: readonly string[];
  logger?: Logger;
}

export function auditDeps(c: AuditFilterConfig): AuditDeps | undefined {
  const a = c.audit;
  if (!a?.backend || !a.policyRuleEvaluator) return undefined;
  const legacy = (c.legacyAPIGroupPrefixes ?? ['/api']).map((p) => p.replace(/^\/+|\/+$/g, ''));
  return {
    backend: a.backend,
    policy: a.policyRuleEvaluator,
    metrics: a.metrics ?? new AuditMetrics().bind(c.metrics),
    maxBody: a.maxCapturedBodyBytes ?? (c.maxRequestBodyBytes || 3 * 1024 * 1024),
    requestInfoFactory: new RequestInfoFactory({ apiPrefixes: ['apis', ...legacy], grouplessAPIPrefixes: legacy }),
  };
}

/** GetAuthorizerAttributes from RequestInfo and the (pre-impersonation) user. */
export function authorizerAttributes(ctx: RequestContext, factory: RequestInfoFactory): Attributes {
  // The requestinfo filter always sets it in a full chain; resolve it here when used alone.
  const info: RequestInfo = ctx.requestInfo ?? factory.newRequestInfo(ctx.request, ctx.url);
  return {
    user: ctx.user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
    fieldSelector: info.fieldSelector,
    labelSelector: info.labelSelector,
  };
}

/** Evaluates the policy and initialises the audit context; throws on a second init. */
export function evaluatePolicyAndCreateAuditEvent(ctx: RequestContext, d: AuditDeps): AuditContext {
  const ac = auditContextFrom(ctx);
  const attrs = authorizerAttributes(ctx, d.requestInfoFactory);
  const rac = d.policy.evaluatePolicyRule(attrs);
  d.metrics.observePolicyLevel(rac.level);
  try {
    initAuditContext(ac, rac, d.backend, d.metrics);
  } catch (err) {
    throw new Error(`failed to initialize audit context: ${errorMessage(err)}`);
  }
  if (rac.level === 'None') return ac;
  if (!ctx.auditID) {
    // WithAuditInit normally did this; keep the header and the event in agreement regardless.
    ctx.auditID = crypto.randomUUID();
    if (!ctx.responseHeaders.has('audit-id')) ctx.responseHeaders.set('Audit-Id', ctx.auditID);
  }
  logRequestMetadata(ctx, ac, attrs);
  return ac;
}

/** On runtimes with waitUntil (Workers), keep the isolate alive until buffered events are sent. */
export function flushOnEdge(ctx: RequestContext, sink: AuditSink & { flush?: () => Promise<void> }): void {
  if (ctx.transport.waitUntil && sink.flush) ctx.transport.waitUntil(sink.flush());
}

/** The 500 upstream answers when the audit context cannot be created or stored. */
export function auditInternalError(ctx: RequestContext, message: string): Response {
  return internalError(ctx.request, new Error(message), ctx.url);
}

/**
 * withFailedRequestAudit (request_deadline.go) and WithFailedAuthenticationAudit: audits a
 * response written outside WithAudit as one `ResponseStarted` event whose responseStatus
 * carries `message` and the written code.
 */
export function withOutOfBandAudit(
  failedHandler: Handler,
  c: AuditFilterConfig,
  message: (ctx: RequestContext) => string,
): Handler {
  const d = auditDeps(c);
  if (!d) return failedHandler;
  const logger = c.logger ?? new KlogLogger();
  return async (ctx) => {
    let ac: AuditContext;
    try {
      ac = evaluatePolicyAndCreateAuditEvent(ctx, d);
    } catch (err) {
      logger.error(`failed to create audit event: ${errorMessage(err)}`);
      return auditInternalError(ctx, 'failed to create audit event');
    }
    if (!auditEnabled(ac)) return failedHandler(ctx);
    ac.event.responseStatus = { message: message(ctx) };
    const response = await failedHandler(ctx);
    setEventResponseStatusCode(ac, response.status);
    const r = processEventStage(ac, 'ResponseStarted');
    if (typeof r !== 'boolean') await r;
    flushOnEdge(ctx, d.backend);
    return response;
  };
}

// --- body capture ---

const jsonContentType = /^application\/(?:[\w.+-]*\+)?json\b/i;

export function isJSONContentType(ct: string | null): boolean {
  return !!ct && jsonContentType.test(ct.trim());
}

/** Reads a stream up to `limit` bytes; undefined (and the stream cancelled) when it is longer. */
export async function readBounded(stream: ReadableStream<Uint8Array>, limit: number): Promise<string | undefined> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        // Not awaited: cancelling one branch of a tee settles only when the other is done too.
        reader.cancel().catch(() => {});
        return undefined;
      }
      chunks.push(value);
    }
  } catch {
    return undefined;
  }
  const all = new Uint8Array(total);
  let off = 0;
  for (const ch of chunks) {
    all.set(ch, off);
    off += ch.byteLength;
  }
  return new TextDecoder().decode(all);
}

const objectVerbs = new Set(['create', 'update', 'patch']);

/**
 * Starts capturing the request body as requestObject (what create/update/patch handlers log),
 * when the level and request call for it. Resolves when done; never rejects.
 */
export function captureRequestObject(ctx: RequestContext, ac: AuditContext, d: AuditDeps): Promise<void> | undefined {
  const info = ctx.requestInfo;
  const req = ctx.request;
  if (!info?.isResourceRequest || !objectVerbs.has(info.verb) || !req.body) return undefined;
  if (!isJSONContentType(req.headers.get('content-type'))) return undefined;
  const clone = req.clone();
  return (async () => {
    const text = await readBounded(clone.body!, d.maxBody);
    if (ac.requestObjectLogged) return;
    if (text === undefined) {
      addAuditAnnotation(ctx, truncatedAnnotation, 'true');
      return;
    }
    if (!isValidJSON(text)) return;
    if (info.verb === 'patch') logRequestPatch(ctx, text);
    else logRequestObject(ctx, text);
    ac.requestObjectCaptured = true;
  })();
}

/**
 * Upstream logs the request object when the handler decodes it. A request stopped before the
 * handler (authorization forbade it, or priority and fairness rejected it with 429) never got
 * there, so the captured body is dropped again.
 */
export function dropUnhandledRequestObject(ac: AuditContext, status: number): void {
  if (!ac.requestObjectCaptured) return;
  if (status === 429 || ac.annotations.get('authorization.k8s.io/decision') === 'forbid')
    ac.event.requestObject = undefined;
}

function isValidJSON(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Captures what the response writer would have logged: a Status error body becomes
 * responseStatus (Metadata and above); at RequestResponse an API object becomes responseObject.
 */
export async function captureResponseObject(
  ctx: RequestContext,
  ac: AuditContext,
  response: Response,
  d: AuditDeps,
): Promise<void> {
  if (ac.responseObjectLogged || !response.body) return;
  const full = ac.event.level === 'RequestResponse';
  if (!full && response.status < 300) return;
  if (!isJSONContentType(response.headers.get('content-type'))) return;
  const text = await readBounded(response.clone().body!, d.maxBody);
  if (text === undefined) {
    if (full) addAuditAnnotation(ctx, truncatedAnnotation, 'true');
    return;
  }
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    return;
  }
  // Only API objects are logged (written through the negotiated object writer).
  if (!obj || typeof obj !== 'object' || Array.isArray(obj) || typeof (obj as { kind?: unknown }).kind !== 'string')
    return;
  logResponseObject(ctx, text);
}
