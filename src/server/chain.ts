// DefaultBuildHandlerChain (k8s.io/apiserver/pkg/server/config.go): the whole request path in
// one screen. Filters are listed innermost first, as upstream writes them; a request passes
// them bottom to top (auditInit runs first).

import type { Handler } from '../endpoints/request/context.ts';
import type { CompletedConfig } from './config.ts';
import { withAuthorization } from '../filters/authorization.ts';
import { withPriorityAndFairness } from '../filters/priority-and-fairness.ts';
import { withMaxInFlightLimit } from '../filters/maxinflight.ts';
import { withImpersonation } from '../filters/impersonation.ts';
import { withAudit } from '../filters/audit.ts';
import { withAuthentication } from '../filters/authentication.ts';
import { withCORS } from '../filters/cors.ts';
import { withWarningRecorder } from '../filters/warning.ts';
import { withTimeoutForNonLongRunningRequests } from '../filters/timeout.ts';
import { withRequestDeadline } from '../filters/request-deadline.ts';
import { withWaitGroup } from '../filters/waitgroup.ts';
import { withWatchTerminationDuringShutdown } from '../filters/watch-termination.ts';
import { withProbabilisticGoaway } from '../filters/goaway.ts';
import { withCacheControl } from '../filters/cachecontrol.ts';
import { withHSTS } from '../filters/hsts.ts';
import { withRetryAfter } from '../filters/retry-after.ts';
import { withHTTPLogging } from '../filters/httplog.ts';
import { withLatencyTrackers } from '../filters/latency-trackers.ts';
import { withRequestInfo } from '../filters/requestinfo.ts';
import { withRequestMetrics } from '../filters/request-metrics.ts';
import { withRequestReceivedTimestamp } from '../filters/request-received-time.ts';
import { withMuxAndDiscoveryComplete } from '../filters/mux-discovery-complete.ts';
import { withPanicRecovery } from '../filters/panic-recovery.ts';
import { withAuditInit } from '../filters/audit-init.ts';

/**
 * Wraps `apiHandler` (the director, or any fetch-style handler) in upstream's filter order. Each
 * filter gets only the fields it reads; `audit` is the audit filters' share (policy, backend, body limit).
 */
export function buildHandlerChain(apiHandler: Handler, c: CompletedConfig): Handler {
  const { logger, metrics, longRunningFunc, requestTimeout, authentication, authorization } = c;
  const audit = {
    audit: c.audit,
    metrics,
    maxRequestBodyBytes: c.maxRequestBodyBytes,
    legacyAPIGroupPrefixes: c.legacyAPIGroupPrefixes,
    logger,
  };
  const inFlight = {
    maxRequestsInFlight: c.maxRequestsInFlight,
    maxMutatingRequestsInFlight: c.maxMutatingRequestsInFlight,
  };
  const signals = c.lifecycleSignals;
  let h = apiHandler;
  h = withAuthorization(h, { authorization, logger, metrics });
  h = c.flowControl
    ? withPriorityAndFairness(h, {
        flowControl: c.flowControl,
        ...inFlight,
        requestTimeout,
        longRunningFunc,
        authentication,
        metrics,
        logger,
      })
    : withMaxInFlightLimit(h, { ...inFlight, longRunningFunc });
  h = withImpersonation(h, { authorization, logger });
  h = withAudit(h, { ...audit, longRunningFunc });
  h = withAuthentication(h, { ...audit, authentication, logger, metrics });
  h = withCORS(h, { corsAllowedOrigins: c.corsAllowedOrigins });
  h = withWarningRecorder(h);
  h = withTimeoutForNonLongRunningRequests(h, { longRunningFunc, requestTimeout, logger });
  h = withRequestDeadline(h, { ...audit, longRunningFunc, requestTimeout });
  h = withWaitGroup(h, { longRunningFunc, nonLongRunningRequestWaitGroup: c.nonLongRunningRequestWaitGroup });
  if (c.shutdownWatchTerminationGracePeriod > 0) {
    h = withWatchTerminationDuringShutdown(h, {
      lifecycleSignals: signals,
      watchRequestWaitGroup: c.watchRequestWaitGroup,
    });
  }
  if (c.goawayChance > 0) h = withProbabilisticGoaway(h, { goawayChance: c.goawayChance });
  h = withCacheControl(h);
  h = withHSTS(h, { hstsDirectives: c.hstsDirectives });
  if (c.shutdownSendRetryAfter) h = withRetryAfter(h, { lifecycleSignals: signals });
  h = withHTTPLogging(h, { logger });
  h = withLatencyTrackers(h);
  h = withRequestMetrics(h, { metrics, longRunningFunc });
  h = withRequestInfo(h, { legacyAPIGroupPrefixes: c.legacyAPIGroupPrefixes });
  h = withRequestReceivedTimestamp(h);
  h = withMuxAndDiscoveryComplete(h, { lifecycleSignals: signals });
  h = withPanicRecovery(h, { logger });
  h = withAuditInit(h);
  return h;
}
