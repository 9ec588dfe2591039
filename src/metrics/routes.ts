// /metrics and /metrics/slis (k8s.io/apiserver/pkg/server/routes/metrics.go): the text exposition
// of this server's registries. With profiling on (the default), DELETE resets the metrics and
// answers `metrics reset\n` (MetricsWithReset). Authorization guards them like any other
// path, because the chain runs before the mux.

import type { Handler } from '../endpoints/request/context.ts';
import type { RouteTarget } from '../server/mux/container.ts';
import type { APIServerMetrics } from './apiserver.ts';
import { textContentType, type Registry } from './registry.ts';

function exposition(registry: Registry, reset: (() => void) | undefined): Handler {
  return (ctx) => {
    if (reset && ctx.request.method === 'DELETE') {
      reset();
      // io.WriteString without a Content-Type: Go sniffs text/plain.
      return new Response('metrics reset\n', { headers: { 'content-type': 'text/plain; charset=utf-8' } });
    }
    return new Response(registry.expose(), { headers: { 'content-type': textContentType } });
  };
}

/** Installs /metrics and /metrics/slis on the server's non-API mux (when EnableMetrics). */
/** What installMetrics reads from the server's Config. */
export interface MetricsInstallConfig {
  enableMetrics: boolean;
  /** With profiling, `DELETE /metrics` resets the counters (upstream's MetricsWithReset). */
  enableProfiling: boolean;
  metrics: APIServerMetrics;
  /** Published as kubernetes_build_info. */
  version: object;
}

export function installMetrics(server: RouteTarget<MetricsInstallConfig>): void {
  const c = server.config;
  if (!c.enableMetrics) return;
  const m: APIServerMetrics = c.metrics;
  m.setBuildInfo(c.version as unknown as Record<string, string>);
  const mux = server.handler.nonGoRestfulMux;
  const profiling = c.enableProfiling;
  mux.handle('/metrics', exposition(m.registry, profiling ? () => m.reset() : undefined));
  mux.handle('/metrics/slis', exposition(m.slis, profiling ? () => m.slis.reset() : undefined));
}
