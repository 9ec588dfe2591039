// Request metrics for every request, in one place: apiserver_request_total,
// apiserver_request_duration_seconds, apiserver_response_sizes, apiserver_selfrequest_total,
// apiserver_longrunning_requests (upstream: metrics.InstrumentRouteFunc around API handlers and
// InstrumentHandlerFunc around the health endpoints; k8s.io/apiserver/pkg/endpoints/metrics).
//
// Labels follow upstream's MonitorRequest: the verb from the HTTP method (LIST, WATCH, APPLY …),
// component "apiserver" for resource requests; health roots are recorded with subresource = the
// endpoint path and an empty component. Differences: requests upstream never instruments (401s,
// 403s, 429s, other non-API paths) are counted too; other non-resource paths keep their path
// only for well-known roots (subresource "" otherwise) so clients cannot inflate cardinality.

import type { Handler, RequestContext } from '../endpoints/request/context.ts';
import type { LongRunningRequestCheck } from '../endpoints/request/longrunning.ts';
import { requestLabelValues, type APIServerMetrics, type RequestLabelValues } from '../metrics/apiserver.ts';
import type { CounterChild, HistogramChild } from '../metrics/registry.ts';

/** ctx.values key: milliseconds spent waiting in an APF queue (excluded from the SLI latency). */
export const apfWaitKey = Symbol.for('edge-apiserver.apf.waitMs');

const healthRoots = new Set(['/healthz', '/livez', '/readyz']);
const knownRoots = new Set([
  '/',
  '/index.html',
  '/metrics',
  '/metrics/slis',
  '/version',
  '/version/',
  '/api',
  '/apis',
  '/openapi/v2',
  '/openapi/v3',
  '/.well-known/openid-configuration',
  '/openid/v1/jwks',
  '/debug/flags',
  '/debug/flags/v',
  '/debug/pprof',
]);

/** Calls `fn` once the body has been fully read or cancelled (long-running responses). */
function onBodyDone(res: Response, fn: () => void): Response {
  if (!res.body) {
    fn();
    return res;
  }
  const reader = res.body.getReader();
  let done = false;
  const finish = () => {
    if (!done) {
      done = true;
      fn();
    }
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const r = await reader.read();
        if (r.done) {
          finish();
          controller.close();
        } else controller.enqueue(r.value);
      } catch (err) {
        finish();
        controller.error(err);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** The apiserver_request_total and _duration_seconds children of one label set (all but the code). */
class RequestSeries {
  readonly totalGeneration: number;
  readonly durationGeneration: number;
  readonly duration: HistogramChild;
  /** By response code, made on first use. */
  readonly total = new Map<string, CounterChild>();
  private readonly labels: string[];
  private readonly m: APIServerMetrics;

  constructor(labels: string[], m: APIServerMetrics) {
    this.labels = labels;
    this.m = m;
    this.totalGeneration = m.requestTotal.generation;
    this.durationGeneration = m.requestDuration.generation;
    this.duration = m.requestDuration.with(labels);
  }

  addTotal(code: string): CounterChild {
    const child = this.m.requestTotal.with([...this.labels, code]);
    this.total.set(code, child);
    return child;
  }
}

/**
 * Every request records both series under the same eight labels: they are found once per label
 * set (one map per label position, as the metric's own lookup) instead of walking both metrics'
 * lookups with two new label arrays per request; again after a reset of either metric.
 */
class RequestSeriesCache {
  private readonly root = new Map<string, unknown>();

  get(l: RequestLabelValues, component: string, m: APIServerMetrics): RequestSeries {
    const node = step(
      step(step(step(step(step(step(this.root, l.verb), l.dryRun), l.group), l.version), l.resource), l.subresource),
      l.scope,
    );
    let s = node.get(component) as RequestSeries | undefined;
    if (
      !s ||
      s.totalGeneration !== m.requestTotal.generation ||
      s.durationGeneration !== m.requestDuration.generation
    ) {
      s = new RequestSeries([l.verb, l.dryRun, l.group, l.version, l.resource, l.subresource, l.scope, component], m);
      node.set(component, s);
    }
    return s;
  }
}

function step(node: Map<string, unknown>, v: string): Map<string, unknown> {
  let next = node.get(v) as Map<string, unknown> | undefined;
  if (!next) node.set(v, (next = new Map()));
  return next;
}

/** What the request-metrics filter reads (the server Config's field names). */
export interface RequestMetricsFilterConfig {
  metrics: APIServerMetrics;
  /** Long-running responses are counted in apiserver_longrunning_requests while their body streams. */
  longRunningFunc: LongRunningRequestCheck;
}

/**
 * Counts every request into the server's metrics (apiserver_request_total and friends).
 *
 * @example
 * ```ts
 * const metrics = new APIServerMetrics();
 * app.use(honoMiddleware(withRequestMetrics, { metrics, longRunningFunc: kubeLongRunningRequestCheck }));
 * app.get('/metrics', () => new Response(metrics.registry.expose()));
 * ```
 */
export function withRequestMetrics(next: Handler, c: RequestMetricsFilterConfig): Handler {
  const m = c.metrics;
  const series = new RequestSeriesCache();
  const record = (ctx: RequestContext, res: Response): Response => {
    const info = ctx.requestInfo;
    const l = requestLabelValues(ctx.request, ctx.url, info);
    let component = '';
    if (info?.isResourceRequest) component = 'apiserver';
    else if (!healthRoots.has(l.subresource) && !knownRoots.has(l.subresource)) l.subresource = '';
    const code = String(res.status);
    const elapsed = (Date.now() - ctx.receivedTimestamp) / 1000;
    const s = series.get(l, component, m);
    (s.total.get(code) ?? s.addTotal(code)).inc();
    s.duration.observe(elapsed);
    if (info?.isResourceRequest) {
      const waited = (ctx.values.get(apfWaitKey) as number | undefined) ?? 0;
      m.requestSLIDuration.observe(
        [l.verb, l.group, l.version, l.resource, l.subresource, l.scope, component],
        Math.max(0, elapsed - waited / 1000),
      );
    }
    if (ctx.user?.name === 'system:apiserver') m.selfRequests.inc([l.verb, l.resource, l.subresource]);
    if (l.verb === 'GET' || l.verb === 'LIST') {
      const t = ctx.transport;
      const len = t.responseHeader ? t.responseHeader(res, 'content-length') : res.headers.get('content-length');
      if (len !== null)
        m.responseSizes.observe(
          [l.verb, l.group, l.version, l.resource, l.subresource, l.scope, component],
          Number(len),
        );
    }
    if (info && c.longRunningFunc(ctx.request, info) && res.body) {
      // (longRunningFunc first: reading `.body` of a Response forces @hono/node-server off its fast path)
      const g = m.longRunningRequests.with([l.verb, l.group, l.version, l.resource, l.subresource, l.scope, component]);
      g.inc();
      return onBodyDone(res, () => g.dec());
    }
    return res;
  };
  return (ctx) => {
    let out: Response | Promise<Response>;
    try {
      out = next(ctx);
    } catch (err) {
      record(ctx, new Response(null, { status: 500 }));
      throw err;
    }
    if (out instanceof Promise) {
      return out.then(
        (res) => record(ctx, res),
        (err) => {
          record(ctx, new Response(null, { status: 500 }));
          throw err;
        },
      );
    }
    return record(ctx, out);
  };
}
