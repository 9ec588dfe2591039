// audit.k8s.io/v1 types (k8s.io/apiserver/pkg/apis/audit) and the Sink/Backend interfaces
// (pkg/audit/types.go), Web-standard.

import type { Status } from '../endpoints/responsewriters/status.ts';

export type Level = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type Stage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

/** In ascending order (Level.Less compares positions). */
export const levels: readonly Level[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
export const stages: readonly Stage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

const levelOrdinal: Record<Level, number> = { None: 0, Metadata: 1, Request: 2, RequestResponse: 3 };

/** Level.Less: `a` is a lower level than `b`. */
export function levelLess(a: Level, b: Level): boolean {
  return levelOrdinal[a] < levelOrdinal[b];
}

/** authentication/v1 UserInfo as the event serialises it (all fields omitempty). */
export interface EventUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** audit ObjectReference; every field omitempty. */
export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/**
 * One audit event. Timestamps are microseconds since the epoch (MicroTime precision);
 * requestObject/responseObject hold compact JSON text (runtime.Unknown raw bytes).
 */
export interface AuditEvent {
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: EventUser;
  impersonatedUser?: EventUser;
  authenticationMetadata?: { impersonationConstraint?: string };
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: Status;
  requestObject?: string;
  responseObject?: string;
  requestReceivedTimestamp: number;
  stageTimestamp: number;
  annotations?: Record<string, string>;
}

/**
 * audit.Sink. Events are snapshots: the sink may keep them. Returns false when an event could
 * not be stored; a Promise when the sink blocks the request until the event is stored
 * (blocking modes), a plain boolean when it does not wait.
 */
export interface AuditSink {
  processEvents(events: AuditEvent[]): boolean | Promise<boolean>;
}

/** audit.Backend. */
export interface AuditBackend extends AuditSink {
  /**
   * processEvents never reports a failure (blocking and batch modes). WithAudit then runs the
   * handler while RequestReceived is being stored and holds only the response for it.
   */
  readonly neverFails?: boolean;
  /** Starts background work; `stop` resolves when it should stop taking work (InFlightRequestsDrained). */
  run(stop: Promise<void>): void | Promise<void>;
  /** Delivers everything pending, then stops. Called after `stop` resolved. */
  shutdown(): Promise<void>;
  /**
   * Sends what is buffered now without waiting for a batch to fill, and resolves when it has
   * been delivered (or dropped and counted). Edge runtimes pass it to `waitUntil`.
   */
  flush?(): Promise<void>;
  toString(): string;
}

/** RequestAuditConfig: what the policy decided for one request. */
export interface RequestAuditConfig {
  level: Level;
  omitStages: readonly Stage[];
  omitManagedFields: boolean;
}

/** Config.audit: upstream's AuditPolicyRuleEvaluator and AuditBackend (both needed to audit). */
export interface AuditConfig {
  policyRuleEvaluator?: import('./policy.ts').PolicyRuleEvaluator;
  backend?: AuditBackend;
  /** apiserver_audit_* counters; one per server. */
  metrics?: import('./metrics.ts').AuditMetrics;
  /**
   * Largest request or response body (bytes) captured as requestObject/responseObject at the
   * Request and RequestResponse levels; bigger bodies are left out and the event gets the
   * annotation `audit.k8s.io/truncated: "true"`. Default: Config.maxRequestBodyBytes, or 3 MiB.
   */
  maxCapturedBodyBytes?: number;
}
