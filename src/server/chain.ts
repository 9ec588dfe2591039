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

/** Wraps `apiHandler` (the director, or any fetch-style handler) in upstream's filter order. */
export function buildHandlerChain(apiHandler: Handler, c: CompletedConfig): Handler {
  let h = apiHandler;
  h = withAuthorization(h, c);
  h = c.flowControl ? withPriorityAndFairness(h, c) : withMaxInFlightLimit(h, c);
  h = withImpersonation(h, c);
  h = withAudit(h, c);
  h = withAuthentication(h, c);
  h = withCORS(h, c);
  h = withWarningRecorder(h, c);
  h = withTimeoutForNonLongRunningRequests(h, c);
  h = withRequestDeadline(h, c);
  h = withWaitGroup(h, c);
  if (c.shutdownWatchTerminationGracePeriod > 0) h = withWatchTerminationDuringShutdown(h, c);
  if (c.goawayChance > 0) h = withProbabilisticGoaway(h, c);
  h = withCacheControl(h, c);
  h = withHSTS(h, c);
  if (c.shutdownSendRetryAfter) h = withRetryAfter(h, c);
  h = withHTTPLogging(h, c);
  h = withLatencyTrackers(h, c);
  h = withRequestMetrics(h, c);
  h = withRequestInfo(h, c);
  h = withRequestReceivedTimestamp(h, c);
  h = withMuxAndDiscoveryComplete(h, c);
  h = withPanicRecovery(h, c);
  h = withAuditInit(h, c);
  return h;
}
