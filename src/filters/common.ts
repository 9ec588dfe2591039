// Helpers shared by the chain's filters (not a filter itself): the RequestInfo lookup every
// filter after WithRequestInfo relies on, the shutdown exemption predicate, and a hook that
// runs when a streamed response body is finished.

import type { RequestContext } from '../endpoints/request/context.ts';
import type { RequestInfo } from '../endpoints/request/requestinfo.ts';
import { internalError } from '../endpoints/responsewriters/status.ts';

/**
 * The request's RequestInfo, or upstream's 500 when the chain is built wrongly (no
 * WithRequestInfo outside this filter): `Internal Server Error: "<uri>": no RequestInfo found in the context`.
 */
export function requestInfoOr500(ctx: RequestContext): RequestInfo | Response {
  return ctx.requestInfo ?? internalError(ctx.request, 'no RequestInfo found in the context', ctx.url);
}

/**
 * Requests still served while the server shuts down (WithRetryAfter, WithWaitGroup): the
 * loopback client (User-Agent `kube-apiserver/…`, spoofable as upstream) and health/metrics
 * paths by plain string prefix (so `/healthzfoo` and `/metrics/slis` are exempt too).
 */
export function isShutdownExempt(ctx: RequestContext): boolean {
  const ua = ctx.request.headers.get('user-agent');
  if (ua !== null && ua.startsWith('kube-apiserver/')) return true;
  const p = ctx.url.pathname;
  return p.startsWith('/readyz') || p.startsWith('/livez') || p.startsWith('/healthz') || p.startsWith('/metrics');
}

/**
 * Calls `done` once the response body has been fully sent or cancelled (immediately when there
 * is no body). Go's handlers return only after writing; a Response returns before its stream.
 */
export function onBodyDone(response: Response, done: () => void): Response {
  const body = response.body;
  if (!body) {
    done();
    return response;
  }
  let called = false;
  const once = () => {
    if (!called) {
      called = true;
      done();
    }
  };
  const reader = body.getReader();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          controller.close();
          once();
        } else controller.enqueue(value);
      } catch (err) {
        controller.error(err);
        once();
      }
    },
    cancel(reason) {
      once();
      return reader.cancel(reason);
    },
  });
  return new Response(stream, { status: response.status, statusText: response.statusText, headers: response.headers });
}
