// Long-running request checks (k8s.io/apiserver/pkg/server/filters/longrunning.go): requests the
// timeout, deadline, max-in-flight and wait-group filters leave alone (watch, proxy, exec …).

import type { RequestInfo } from './requestinfo.ts';

/** Decides whether a request is long-running (no timeout, not drained). */
export type LongRunningRequestCheck = (request: Request, info: RequestInfo) => boolean;

/** Upstream's generic LongRunningFunc: verb watch, no subresources, plus /debug/pprof/. */
export function basicLongRunningRequestCheck(verbs: string[], subresources: string[]): LongRunningRequestCheck {
  const v = new Set(verbs);
  const s = new Set(subresources);
  return (_request, info) =>
    v.has(info.verb) ||
    (info.isResourceRequest && s.has(info.subresource)) ||
    (!info.isResourceRequest && info.path.startsWith('/debug/pprof/'));
}

/** kube-apiserver's LongRunningFunc. */
export const kubeLongRunningRequestCheck = basicLongRunningRequestCheck(
  ['watch', 'proxy'],
  ['attach', 'exec', 'proxy', 'log', 'portforward'],
);
