// The request's audit context (upstream audit.AuditContext in the request context, plus
// pkg/audit/request.go). WithAuditInit creates it; WithAudit initialises it with the policy's
// decision and fills the event; other filters and handlers add annotations, the impersonated
// user and request/response objects through these helpers.

import type { Attributes } from '../authorization/authorizer.ts';
import type { RequestContext, UserInfo } from '../endpoints/request/context.ts';
import type { Status } from '../endpoints/responsewriters/status.ts';
import { compactJSON, nowMicros, sourceIPs } from './event.ts';
import type { AuditMetrics } from './metrics.ts';
import {
  levelLess,
  type AuditEvent,
  type AuditSink,
  type EventUser,
  type RequestAuditConfig,
  type Stage,
} from './types.ts';

const auditContextKey = Symbol('auditContext');

export interface AuditContext {
  /** Annotations added by filters (authorization decision, impersonation …), in insertion order. */
  annotations: Map<string, string>;
  /** True once the policy was evaluated for this request (AuditContext.Init). */
  initialized: boolean;
  requestAuditConfig?: RequestAuditConfig;
  sink?: AuditSink;
  metrics?: AuditMetrics;
  /** The event being built; stages are sent as snapshots of it. */
  event: AuditEvent;
  /** Set when a handler logged the objects itself (the audit filter then captures nothing). */
  requestObjectLogged?: boolean;
  responseObjectLogged?: boolean;
  /** The request object came from the audit filter's body capture (not from a handler). */
  requestObjectCaptured?: boolean;
}

function newEvent(): AuditEvent {
  // WithAuditContext starts the event at stage ResponseStarted (what out-of-band failures emit).
  return {
    level: 'None',
    auditID: '',
    stage: 'ResponseStarted',
    requestURI: '',
    verb: '',
    user: {},
    requestReceivedTimestamp: 0,
    stageTimestamp: 0,
  };
}

/** The request's audit context, created on first use. */
export function auditContextFrom(ctx: RequestContext): AuditContext {
  let ac = ctx.values.get(auditContextKey) as AuditContext | undefined;
  if (!ac) {
    ac = { annotations: new Map(), initialized: false, event: newEvent() };
    ctx.values.set(auditContextKey, ac);
  }
  return ac;
}

/** AuditContext.Enabled: true until the policy said None (annotations are kept until then). */
export function auditEnabled(ac: AuditContext): boolean {
  return !ac.initialized || ac.requestAuditConfig!.level !== 'None';
}

/** audit.AddAuditAnnotation: the first value for a key wins, as upstream logs and keeps the old one. */
export function addAuditAnnotation(ctx: RequestContext, key: string, value: string): void {
  const ac = auditContextFrom(ctx);
  if (!auditEnabled(ac)) return;
  if (!ac.annotations.has(key)) ac.annotations.set(key, value);
}

/** AuditContext.Init: records the policy decision and the sink; a second call is an error. */
export function initAuditContext(
  ac: AuditContext,
  config: RequestAuditConfig,
  sink: AuditSink,
  metrics?: AuditMetrics,
): void {
  if (ac.initialized) throw new Error('audit context was already initialized');
  ac.requestAuditConfig = config;
  ac.sink = sink;
  ac.metrics = metrics;
  ac.event.level = config.level;
  ac.initialized = true;
}

/**
 * AuditContext.ProcessEventStage: sends a snapshot of the event at `stage` unless the stage is
 * omitted. Returns false when the sink failed to store it; a Promise when the sink blocks.
 */
export function processEventStage(ac: AuditContext, stage: Stage): boolean | Promise<boolean> {
  if (!ac.initialized || !ac.sink) return true;
  const cfg = ac.requestAuditConfig!;
  if (cfg.omitStages.length && cfg.omitStages.includes(stage)) return true;
  const ev = ac.event;
  ev.stage = stage;
  ev.stageTimestamp = stage === 'RequestReceived' ? ev.requestReceivedTimestamp : nowMicros();
  const snapshot: AuditEvent = { ...ev };
  if (ev.responseStatus) snapshot.responseStatus = { ...ev.responseStatus };
  if (ev.objectRef) snapshot.objectRef = { ...ev.objectRef };
  if (ac.annotations.size) snapshot.annotations = Object.fromEntries(ac.annotations);
  ac.metrics?.observeEvent();
  return ac.sink.processEvents([snapshot]);
}

const maxUserAgentLength = 1024;

function eventUser(user: UserInfo): EventUser {
  const u: EventUser = {};
  if (user.name) u.username = user.name;
  if (user.uid) u.uid = user.uid;
  if (user.groups?.length) u.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) u.extra = { ...user.extra };
  return u;
}

/** audit.LogRequestMetadata: the request's metadata (received time, verb, URI, user, objectRef …). */
export function logRequestMetadata(ctx: RequestContext, ac: AuditContext, attrs: Attributes): void {
  if (!auditEnabled(ac)) return;
  const ev = ac.event;
  ev.auditID = ctx.auditID ?? '';
  ev.requestReceivedTimestamp = Math.round(ctx.receivedTimestamp * 1000);
  ev.verb = attrs.verb;
  ev.requestURI = ctx.url.pathname + ctx.url.search;
  let ua = ctx.request.headers.get('user-agent') ?? '';
  if (ua.length > maxUserAgentLength) ua = ua.slice(0, maxUserAgentLength) + '...TRUNCATED';
  ev.userAgent = ua || undefined;
  const ips = sourceIPs(ctx.request.headers, ctx.transport.remoteAddress);
  ev.sourceIPs = ips.length ? ips : undefined;
  if (attrs.user) ev.user = eventUser(attrs.user);
  if (attrs.isResourceRequest) {
    ev.objectRef = {
      resource: attrs.resource,
      namespace: attrs.namespace,
      name: attrs.name,
      apiGroup: attrs.apiGroup,
      apiVersion: attrs.apiVersion,
      subresource: attrs.subresource,
    };
  }
}

/** audit.LogImpersonatedUser (the impersonation filter calls it). */
export function logImpersonatedUser(ctx: RequestContext, user: UserInfo, constraint?: string): void {
  const ac = auditContextFrom(ctx);
  if (!auditEnabled(ac) || levelLess(ac.event.level, 'Metadata')) return;
  ac.event.impersonatedUser = eventUser(user);
  if (constraint) ac.event.authenticationMetadata = { impersonationConstraint: constraint };
}

/** JSON text (compacted) for an object given as a value or as JSON text. */
function toRawJSON(obj: unknown): string {
  return typeof obj === 'string' ? compactJSON(obj) : compactJSON(JSON.stringify(obj));
}

/** Drops metadata.managedFields from an object, a list's items or a Table's rows (omitManagedFields). */
export function withoutManagedFields(obj: unknown): unknown {
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return obj;
  const o = obj as Record<string, unknown>;
  let changed = false;
  const copy: Record<string, unknown> = { ...o };
  const meta = o.metadata as Record<string, unknown> | undefined;
  if (meta && typeof meta === 'object' && 'managedFields' in meta) {
    const m = { ...meta };
    delete m.managedFields;
    copy.metadata = m;
    changed = true;
  }
  if (Array.isArray(o.items)) {
    copy.items = o.items.map(withoutManagedFields);
    changed = true;
  }
  if (o.kind === 'Table' && Array.isArray(o.rows)) {
    copy.rows = (o.rows as Record<string, unknown>[]).map((r) =>
      r && typeof r === 'object' ? { ...r, object: withoutManagedFields(r.object) } : r,
    );
    changed = true;
  }
  return changed ? copy : obj;
}

function omitManaged(ac: AuditContext): boolean {
  return !!ac.requestAuditConfig?.omitManagedFields;
}

/**
 * audit.LogRequestObject: fills objectRef gaps from the object's metadata (at Metadata and
 * above) and records the object at Request and above. `obj` is a decoded object or JSON text.
 */
export function logRequestObject(ctx: RequestContext, obj: unknown): void {
  const ac = auditContextFrom(ctx);
  if (!auditEnabled(ac) || levelLess(ac.event.level, 'Metadata')) return;
  ac.requestObjectLogged = true;
  let value = obj;
  if (typeof obj === 'string') {
    try {
      value = JSON.parse(obj);
    } catch {
      return;
    }
  }
  const meta = (value as { metadata?: Record<string, unknown> } | null)?.metadata;
  if (meta && typeof meta === 'object') {
    const ref = (ac.event.objectRef ??= {});
    if (!ref.namespace && typeof meta.namespace === 'string') ref.namespace = meta.namespace;
    if (!ref.name && typeof meta.name === 'string') ref.name = meta.name;
    if (!ref.uid && typeof meta.uid === 'string') ref.uid = meta.uid;
    if (!ref.resourceVersion && typeof meta.resourceVersion === 'string') ref.resourceVersion = meta.resourceVersion;
  }
  if (levelLess(ac.event.level, 'Request')) return;
  ac.event.requestObject = eventObject(ac, value, obj);
}

/** The object as the event records it: without managedFields when the policy omits them. */
function eventObject(ac: AuditContext, value: unknown, obj: unknown): ReturnType<typeof toRawJSON> {
  if (omitManaged(ac)) {
    const stripped = withoutManagedFields(value);
    if (stripped !== value) return toRawJSON(stripped);
  }
  return toRawJSON(obj);
}

/** audit.LogRequestPatch: the raw patch as the request object (Request and above). */
export function logRequestPatch(ctx: RequestContext, patch: string): void {
  const ac = auditContextFrom(ctx);
  if (!auditEnabled(ac) || levelLess(ac.event.level, 'Request')) return;
  ac.requestObjectLogged = true;
  ac.event.requestObject = toRawJSON(patch);
}

/**
 * audit.LogResponseObject: a Status response sets responseStatus (Metadata and above); the
 * object itself is recorded at RequestResponse. `obj` is a decoded object or JSON text.
 */
export function logResponseObject(ctx: RequestContext, obj: unknown): void {
  const ac = auditContextFrom(ctx);
  if (!auditEnabled(ac) || levelLess(ac.event.level, 'Metadata')) return;
  let value = obj;
  if (typeof obj === 'string') {
    try {
      value = JSON.parse(obj);
    } catch {
      return;
    }
  }
  ac.responseObjectLogged = true;
  const v = value as Record<string, unknown> | null;
  if (v && typeof v === 'object' && v.kind === 'Status') {
    const s: Status = {};
    if (typeof v.status === 'string') s.status = v.status as Status['status'];
    if (typeof v.message === 'string') s.message = v.message;
    if (typeof v.reason === 'string') s.reason = v.reason;
    if (v.details && typeof v.details === 'object') s.details = v.details as Status['details'];
    if (typeof v.code === 'number') s.code = v.code;
    ac.event.responseStatus = s;
  }
  if (levelLess(ac.event.level, 'RequestResponse')) return;
  ac.event.responseObject = eventObject(ac, value, obj);
}

/** SetEventResponseStatusCode: the first written status code (creates responseStatus if needed). */
export function setEventResponseStatusCode(ac: AuditContext, code: number): void {
  (ac.event.responseStatus ??= {}).code = code;
}
