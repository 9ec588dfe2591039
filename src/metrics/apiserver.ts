// The upstream metrics kube-apiserver exposes on /metrics, with their exact names, help texts,
// labels, buckets and stability levels (k8s.io/apiserver/pkg/endpoints/metrics,
// pkg/util/flowcontrol/metrics, pkg/endpoints/filters/metrics.go, pkg/audit/metrics.go,
// component-base/metrics/prometheus/health). One APIServerMetrics per server (Config.metrics):
// tests and embedded servers never share counters.

import {
  Counter,
  Gauge,
  Histogram,
  Registry,
  exponentialBuckets,
  type CounterChild,
  type GaugeChild,
} from './registry.ts';
import type { RequestInfo } from '../endpoints/request/requestinfo.ts';

/** request_kind label values (apiserver_current_inflight_requests …). */
export const readOnlyKind = 'readOnly';
export const mutatingKind = 'mutating';

const requestLabels = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'];
const requestDurationBuckets = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];
const flowcontrolDurationBuckets = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];
const authBuckets = exponentialBuckets(0.001, 2, 15);

export class APIServerMetrics {
  /** legacyregistry: what /metrics prints. */
  readonly registry = new Registry();
  /** slis.Registry: what /metrics/slis prints (health checks only). */
  readonly slis = new Registry();

  // k8s.io/apiserver/pkg/endpoints/metrics
  readonly requestTotal: Counter;
  readonly requestDuration: Histogram;
  readonly requestSLIDuration: Histogram;
  readonly responseSizes: Histogram;
  readonly longRunningRequests: Gauge;
  readonly droppedRequests: Counter;
  readonly tlsHandshakeErrors: Counter;
  readonly currentInflightRequests: Gauge;
  readonly currentInqueueRequests: Gauge;
  readonly requestTerminations: Counter;
  readonly selfRequests: Counter;
  readonly requestFilterDuration: Histogram;
  readonly requestAborts: Counter;

  // authentication / authorization filters
  readonly authenticatedUserRequests: Counter;
  readonly authenticationAttempts: Counter;
  readonly authenticationDuration: Histogram;
  readonly authorizationAttempts: Counter;
  readonly authorizationDuration: Histogram;
  readonly authorizationDecisions: Counter;

  // audit
  readonly auditEvents: Counter;
  readonly auditErrors: Counter;
  readonly auditLevel: Counter;
  readonly auditRequestsRejected: Counter;

  // health (component-base/metrics/prometheus/health), also in /metrics/slis
  readonly healthcheck: Gauge;
  readonly healthchecksTotal: Counter;

  // k8s.io/apiserver/pkg/util/flowcontrol/metrics
  readonly fcRejectedRequests: Counter;
  readonly fcDispatchedRequests: Counter;
  readonly fcCurrentInqueueRequests: Gauge;
  readonly fcCurrentInqueueSeats: Gauge;
  readonly fcCurrentExecutingRequests: Gauge;
  readonly fcCurrentExecutingSeats: Gauge;
  readonly fcRequestWaitDuration: Histogram;
  readonly fcRequestExecution: Histogram;
  readonly fcRequestQueueLength: Histogram;
  readonly fcWorkEstimatedSeats: Histogram;
  readonly fcNominalLimitSeats: Gauge;
  readonly fcCurrentLimitSeats: Gauge;
  readonly fcLowerLimitSeats: Gauge;
  readonly fcUpperLimitSeats: Gauge;
  readonly fcCurrentR: Gauge;
  readonly fcDispatchR: Gauge;
  readonly fcDispatchNoAccommodation: Counter;
  readonly fcWatchCountSamples: Histogram;

  constructor() {
    const r = this.registry;
    this.requestTotal = r.counter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: [...requestLabels, 'code'],
      stabilityLevel: 'STABLE',
    });
    this.requestDuration = r.histogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: requestLabels,
      buckets: requestDurationBuckets,
      stabilityLevel: 'STABLE',
    });
    this.requestSLIDuration = r.histogram({
      name: 'apiserver_request_sli_duration_seconds',
      help: 'Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      buckets: requestDurationBuckets,
      stabilityLevel: 'ALPHA',
    });
    this.responseSizes = r.histogram({
      name: 'apiserver_response_sizes',
      help: 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      buckets: exponentialBuckets(1000, 10, 7),
      stabilityLevel: 'STABLE',
    });
    this.longRunningRequests = r.gauge({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      stabilityLevel: 'STABLE',
    });
    this.droppedRequests = r.counter({
      name: 'apiserver_dropped_requests_total',
      help: "Number of requests dropped with 'Try again later' response",
      labelNames: ['request_kind'],
      stabilityLevel: 'ALPHA',
    });
    this.tlsHandshakeErrors = r.counter({
      name: 'apiserver_tls_handshake_errors_total',
      help: "Number of requests dropped with 'TLS handshake error from' error",
      stabilityLevel: 'ALPHA',
    });
    this.currentInflightRequests = r.gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      stabilityLevel: 'STABLE',
    });
    this.currentInqueueRequests = r.gauge({
      name: 'apiserver_current_inqueue_requests',
      help: 'Maximal number of queued requests in this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      stabilityLevel: 'ALPHA',
    });
    this.requestTerminations = r.counter({
      name: 'apiserver_request_terminations_total',
      help: 'Number of requests which apiserver terminated in self-defense.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
      stabilityLevel: 'ALPHA',
    });
    this.selfRequests = r.counter({
      name: 'apiserver_selfrequest_total',
      help: 'Counter of apiserver self-requests broken out for each verb, API resource and subresource.',
      labelNames: ['verb', 'resource', 'subresource'],
      stabilityLevel: 'ALPHA',
    });
    this.requestFilterDuration = r.histogram({
      name: 'apiserver_request_filter_duration_seconds',
      help: 'Request filter latency distribution in seconds, for each filter type',
      labelNames: ['filter'],
      buckets: [0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 5.0],
      stabilityLevel: 'ALPHA',
    });
    this.requestAborts = r.counter({
      name: 'apiserver_request_aborts_total',
      help: 'Number of requests which apiserver aborted possibly due to a timeout, for each group, version, verb, resource, subresource and scope',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope'],
      stabilityLevel: 'ALPHA',
    });

    this.authenticatedUserRequests = r.counter({
      name: 'authenticated_user_requests',
      help: 'Counter of authenticated requests broken out by username.',
      labelNames: ['username'],
      stabilityLevel: 'ALPHA',
    });
    this.authenticationAttempts = r.counter({
      name: 'authentication_attempts',
      help: 'Counter of authenticated attempts.',
      labelNames: ['result'],
      stabilityLevel: 'ALPHA',
    });
    this.authenticationDuration = r.histogram({
      name: 'authentication_duration_seconds',
      help: 'Authentication duration in seconds broken out by result.',
      labelNames: ['result'],
      buckets: authBuckets,
      stabilityLevel: 'ALPHA',
    });
    this.authorizationAttempts = r.counter({
      name: 'authorization_attempts_total',
      help: "Counter of authorization attempts broken down by result. It can be either 'allowed', 'denied', 'no-opinion' or 'error'.",
      labelNames: ['result'],
      stabilityLevel: 'ALPHA',
    });
    this.authorizationDuration = r.histogram({
      name: 'authorization_duration_seconds',
      help: 'Authorization duration in seconds broken out by result.',
      labelNames: ['result'],
      buckets: authBuckets,
      stabilityLevel: 'ALPHA',
    });
    this.authorizationDecisions = r.counter({
      name: 'apiserver_authorization_decisions_total',
      help: 'Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.',
      labelNames: ['type', 'name', 'decision'],
      stabilityLevel: 'ALPHA',
    });

    this.auditEvents = r.counter({
      name: 'apiserver_audit_event_total',
      help: 'Counter of audit events generated and sent to the audit backend.',
      stabilityLevel: 'ALPHA',
    });
    this.auditErrors = r.counter({
      name: 'apiserver_audit_error_total',
      help: 'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.',
      labelNames: ['plugin'],
      stabilityLevel: 'ALPHA',
    });
    this.auditLevel = r.counter({
      name: 'apiserver_audit_level_total',
      help: 'Counter of policy levels for audit events (1 per request).',
      labelNames: ['level'],
      stabilityLevel: 'ALPHA',
    });
    this.auditRequestsRejected = r.counter({
      name: 'apiserver_audit_requests_rejected_total',
      help: 'Counter of apiserver requests rejected due to an error in audit logging backend.',
      stabilityLevel: 'ALPHA',
    });

    this.healthcheck = r.register(
      new Gauge({
        name: 'kubernetes_healthcheck',
        help: 'This metric records the result of a single healthcheck.',
        labelNames: ['name', 'type'],
        stabilityLevel: 'STABLE',
      }),
    );
    this.healthchecksTotal = r.register(
      new Counter({
        name: 'kubernetes_healthchecks_total',
        help: 'This metric records the results of all healthcheck.',
        labelNames: ['name', 'type', 'status'],
        stabilityLevel: 'STABLE',
      }),
    );
    this.slis.register(this.healthcheck);
    this.slis.register(this.healthchecksTotal);

    const pl = 'priority_level';
    const fs = 'flow_schema';
    this.fcRejectedRequests = r.counter({
      name: 'apiserver_flowcontrol_rejected_requests_total',
      help: 'Number of requests rejected by API Priority and Fairness subsystem',
      labelNames: [pl, fs, 'reason'],
      stabilityLevel: 'BETA',
    });
    this.fcDispatchedRequests = r.counter({
      name: 'apiserver_flowcontrol_dispatched_requests_total',
      help: 'Number of requests executed by API Priority and Fairness subsystem',
      labelNames: [pl, fs],
      stabilityLevel: 'BETA',
    });
    this.fcCurrentInqueueRequests = r.gauge({
      name: 'apiserver_flowcontrol_current_inqueue_requests',
      help: 'Number of requests currently pending in queues of the API Priority and Fairness subsystem',
      labelNames: [pl, fs],
      stabilityLevel: 'BETA',
    });
    this.fcCurrentInqueueSeats = r.gauge({
      name: 'apiserver_flowcontrol_current_inqueue_seats',
      help: 'Number of seats currently pending in queues of the API Priority and Fairness subsystem',
      labelNames: [pl, fs],
      stabilityLevel: 'ALPHA',
    });
    this.fcCurrentExecutingRequests = r.gauge({
      name: 'apiserver_flowcontrol_current_executing_requests',
      help: 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem',
      labelNames: [pl, fs],
      stabilityLevel: 'BETA',
    });
    this.fcCurrentExecutingSeats = r.gauge({
      name: 'apiserver_flowcontrol_current_executing_seats',
      help: 'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem',
      labelNames: [pl, fs],
      stabilityLevel: 'BETA',
    });
    this.fcRequestWaitDuration = r.histogram({
      name: 'apiserver_flowcontrol_request_wait_duration_seconds',
      help: 'Length of time a request spent waiting in its queue',
      labelNames: [pl, fs, 'execute'],
      buckets: flowcontrolDurationBuckets,
      stabilityLevel: 'BETA',
    });
    this.fcRequestExecution = r.histogram({
      name: 'apiserver_flowcontrol_request_execution_seconds',
      help: 'Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem',
      labelNames: [pl, fs, 'type'],
      buckets: flowcontrolDurationBuckets,
      stabilityLevel: 'ALPHA',
    });
    this.fcRequestQueueLength = r.histogram({
      name: 'apiserver_flowcontrol_request_queue_length_after_enqueue',
      help: 'Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is enqueued',
      labelNames: [pl, fs],
      buckets: [0, 10, 25, 50, 100, 250, 500, 1000],
      stabilityLevel: 'ALPHA',
    });
    this.fcWorkEstimatedSeats = r.histogram({
      name: 'apiserver_flowcontrol_work_estimated_seats',
      help: 'Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness',
      labelNames: [pl, fs],
      buckets: [1, 2, 4, 10],
      stabilityLevel: 'ALPHA',
    });
    this.fcNominalLimitSeats = r.gauge({
      name: 'apiserver_flowcontrol_nominal_limit_seats',
      help: 'Nominal number of execution seats configured for each priority level',
      labelNames: [pl],
      stabilityLevel: 'BETA',
    });
    this.fcCurrentLimitSeats = r.gauge({
      name: 'apiserver_flowcontrol_current_limit_seats',
      help: 'current derived number of execution seats available to each priority level',
      labelNames: [pl],
      stabilityLevel: 'ALPHA',
    });
    this.fcLowerLimitSeats = r.gauge({
      name: 'apiserver_flowcontrol_lower_limit_seats',
      help: 'Configured lower bound on number of execution seats available to each priority level',
      labelNames: [pl],
      stabilityLevel: 'ALPHA',
    });
    this.fcUpperLimitSeats = r.gauge({
      name: 'apiserver_flowcontrol_upper_limit_seats',
      help: 'Configured upper bound on number of execution seats available to each priority level',
      labelNames: [pl],
      stabilityLevel: 'ALPHA',
    });
    this.fcCurrentR = r.gauge({
      name: 'apiserver_flowcontrol_current_r',
      help: 'R(time of last change)',
      labelNames: [pl],
      stabilityLevel: 'ALPHA',
    });
    this.fcDispatchR = r.gauge({
      name: 'apiserver_flowcontrol_dispatch_r',
      help: 'R(time of last dispatch)',
      labelNames: [pl],
      stabilityLevel: 'ALPHA',
    });
    this.fcDispatchNoAccommodation = r.counter({
      name: 'apiserver_flowcontrol_request_dispatch_no_accommodation_total',
      help: 'Number of times a dispatch attempt resulted in a non accommodation due to lack of available seats',
      labelNames: [pl, fs],
      stabilityLevel: 'ALPHA',
    });
    this.fcWatchCountSamples = r.histogram({
      name: 'apiserver_flowcontrol_watch_count_samples',
      help: 'count of watchers for mutating requests in API Priority and Fairness',
      labelNames: [pl, fs],
      buckets: [0, 1, 10, 100, 1000, 10000],
      stabilityLevel: 'ALPHA',
    });

    // Process figures the portable runtime can give (the Node adapter may register more, e.g.
    // process_resident_memory_bytes). Raw collectors: no stability prefix, as client_golang's.
    const origin = typeof performance !== 'undefined' ? performance.timeOrigin : undefined;
    if (origin !== undefined && origin > 0) {
      r.gaugeFunc(
        {
          name: 'process_start_time_seconds',
          help: 'Start time of the process since unix epoch in seconds.',
          stabilityLevel: 'RAW',
        },
        () => origin / 1000,
      );
    }
  }

  /** kubernetes_build_info, registered once the version is known. */
  setBuildInfo(v: Record<string, string>): void {
    if (this.registry.get('kubernetes_build_info')) return;
    const labels = [
      'build_date',
      'compiler',
      'git_commit',
      'git_tree_state',
      'git_version',
      'go_version',
      'major',
      'minor',
      'platform',
    ];
    const g = this.registry.gauge({
      name: 'kubernetes_build_info',
      help: "A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.",
      labelNames: labels,
      stabilityLevel: 'ALPHA',
      resettable: false,
    });
    const keys: Record<string, string> = {
      build_date: 'buildDate',
      compiler: 'compiler',
      git_commit: 'gitCommit',
      git_tree_state: 'gitTreeState',
      git_version: 'gitVersion',
      go_version: 'goVersion',
      major: 'major',
      minor: 'minor',
      platform: 'platform',
    };
    g.with(labels.map((l) => v[keys[l]!] ?? '')).set(1);
  }

  /** metrics.RecordRequestTermination (429s, 504s … terminated in self-defense). */
  recordRequestTermination(
    request: Request,
    url: URL,
    info: RequestInfo | undefined,
    component: string,
    code: number,
  ): void {
    const l = requestLabelValues(request, url, info);
    this.requestTerminations.inc([
      l.verb,
      l.group,
      l.version,
      l.resource,
      l.subresource,
      l.scope,
      component,
      String(code),
    ]);
  }

  /**
   * recordAuthenticationMetrics (endpoints/filters/metrics.go): result `success`, `failure` (no
   * credentials this authenticator understands) or `error` (bad credentials, audience mismatch).
   */
  recordAuthentication(result: 'success' | 'failure' | 'error', seconds: number, username?: string): void {
    if (result === 'success' && username !== undefined)
      this.authenticatedUserRequests.inc([compressUsername(username)]);
    this.authenticationAttempts.inc([result]);
    this.authenticationDuration.observe([result], seconds);
  }

  /** The authorization filter's metrics: result `allowed`, `denied`, `no-opinion` or `error`. */
  recordAuthorization(result: 'allowed' | 'denied' | 'no-opinion' | 'error', seconds: number): void {
    this.authorizationAttempts.inc([result]);
    this.authorizationDuration.observe([result], seconds);
  }

  /** UpdateInflightRequestMetrics(phase, readOnly, mutating). */
  updateInflightRequestMetrics(phase: 'waiting' | 'executing', readOnly: number, mutating: number): void {
    const g = phase === 'executing' ? this.currentInflightRequests : this.currentInqueueRequests;
    g.set([readOnlyKind], readOnly);
    g.set([mutatingKind], mutating);
  }

  /** The HealthObserver that records kubernetes_healthcheck{name,type} and kubernetes_healthchecks_total. */
  healthObserver(): { onCheck(endpoint: string, name: string, error: unknown): void } {
    // Every probe records every check: the series of each (endpoint, check) are looked up once,
    // again only after a reset.
    const series = new Map<string, Map<string, HealthCheckSeries>>();
    return {
      onCheck: (endpoint, name, error) => {
        let byName = series.get(endpoint);
        if (!byName) series.set(endpoint, (byName = new Map()));
        let s = byName.get(name);
        const gauge = this.healthcheck.generation;
        const total = this.healthchecksTotal.generation;
        if (!s || s.gaugeGeneration !== gauge || s.totalGeneration !== total) {
          s = {
            gaugeGeneration: gauge,
            totalGeneration: total,
            gauge: undefined,
            success: undefined,
            error: undefined,
          };
          byName.set(name, s);
        }
        // Each series is made on first use, as before (an `error` series only once a check failed).
        const ok = error === undefined;
        (s.gauge ??= this.healthcheck.with([name, endpoint])).set(ok ? 1 : 0);
        if (ok) (s.success ??= this.healthchecksTotal.with([name, endpoint, 'success'])).inc();
        else (s.error ??= this.healthchecksTotal.with([name, endpoint, 'error'])).inc();
      },
    };
  }

  /** Reset for DELETE /metrics: every resettable metric of both registries. */
  reset(): void {
    this.registry.reset();
    this.slis.reset();
  }
}

/** compressUsername: known identities as is, e-mail-like names as `email_id`, the rest `other`. */
export function compressUsername(username: string): string {
  if (['admin', 'client', 'kube_proxy', 'kubelet', 'system:serviceaccount:kube-system:default'].includes(username))
    return username;
  if (username.includes('@')) return 'email_id';
  return 'other';
}

/** The request labels upstream's MonitorRequest/RecordRequestTermination compute. */
/** A health check's series, cached per endpoint and check name (healthObserver). */
interface HealthCheckSeries {
  gaugeGeneration: number;
  totalGeneration: number;
  gauge: GaugeChild | undefined;
  success: CounterChild | undefined;
  error: CounterChild | undefined;
}

export interface RequestLabelValues {
  verb: string;
  dryRun: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
}

const validRequestMethods = new Set([
  'APPLY',
  'CONNECT',
  'CREATE',
  'DELETE',
  'DELETECOLLECTION',
  'GET',
  'LIST',
  'PATCH',
  'POST',
  'PROXY',
  'PUT',
  'UPDATE',
  'WATCH',
  'WATCHLIST',
]);

/** metrics.CleanScope. */
export function cleanScope(info: RequestInfo): string {
  if (info.name !== '' || info.verb === 'create') return 'resource';
  if (info.namespace !== '') return 'namespace';
  if (info.isResourceRequest) return 'cluster';
  return '';
}

/** metrics.CanonicalVerb: LIST vs GET. */
export function canonicalVerb(verb: string, scope: string): string {
  if (verb === 'GET' || verb === 'HEAD') return scope !== 'resource' && scope !== '' ? 'LIST' : 'GET';
  return verb;
}

function checkIfWatch(url: URL): boolean {
  const v = url.searchParams.get('watch');
  if (v === null) return false;
  const l = v.toLowerCase();
  return l !== '0' && l !== 'false';
}

/** metrics.cleanVerb: WATCH from LIST, APPLY from PATCH, unknown verbs as `other`. */
export function cleanVerb(verb: string, suggestedVerb: string, request: Request, url: URL): string {
  let reported: string;
  if (suggestedVerb === 'WATCH' || suggestedVerb === 'WATCHLIST') {
    reported = 'WATCH';
  } else {
    reported = verb;
    if (verb === 'LIST' && checkIfWatch(url)) reported = 'WATCH';
    if (verb === 'WATCHLIST') reported = 'WATCH';
    if (verb === 'PATCH' && request.headers.get('content-type') === 'application/apply-patch+yaml') reported = 'APPLY';
  }
  return validRequestMethods.has(reported) ? reported : 'other';
}

/** cleanDryRun: sorted, deduplicated `dryRun` values (`All` is the only valid one). */
function cleanDryRun(url: URL): string {
  if (!url.search.includes('dryRun')) return '';
  const values = url.searchParams.getAll('dryRun');
  if (values.some((v) => v !== 'All')) return 'invalid';
  return [...new Set(values)].sort().join(',');
}

/** The label values for a request, as MonitorRequest derives them. */
export function requestLabelValues(request: Request, url: URL, info: RequestInfo | undefined): RequestLabelValues {
  if (!info) {
    return {
      verb: cleanVerb(request.method.toUpperCase(), '', request, url),
      dryRun: cleanDryRun(url),
      group: '',
      version: '',
      resource: '',
      subresource: url.pathname,
      scope: '',
    };
  }
  const scope = cleanScope(info);
  const suggested = info.verb === 'watch' ? 'WATCH' : '';
  const verb = cleanVerb(canonicalVerb(request.method.toUpperCase(), scope), suggested, request, url);
  if (info.isResourceRequest) {
    return {
      verb,
      dryRun: cleanDryRun(url),
      group: info.apiGroup,
      version: info.apiVersion,
      resource: info.resource,
      subresource: info.subresource,
      scope,
    };
  }
  return { verb, dryRun: cleanDryRun(url), group: '', version: '', resource: '', subresource: info.path, scope };
}
