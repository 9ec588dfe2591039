// WithHTTPLogging (server/httplog/httplog.go): one structured klog line per request at -v=3,
// fields in upstream order (verb, URI, latency, userAgent, contentType, audit-ID, srcIP, the
// key/values inner layers added, resp). A pure pass-through below -v=3.

import type { Handler, RequestContext } from '../endpoints/request/context.ts';
import { formatGoDuration } from '../util/duration.ts';
import type { Logger } from '../util/logger.ts';

const key = Symbol('httplog');

interface RespLogger {
  added: [string, unknown][];
  addedInfo: string[];
}

/** httplog.AddKeyValue: extra fields for this request's line (APF adds apf_pl, apf_fs …). */
export function addKeyValue(ctx: RequestContext, k: string, v: unknown): void {
  (ctx.values.get(key) as RespLogger | undefined)?.added.push([k, v]);
}

/** httplog.AddInfof: free text appended as `addedInfo` (impersonation adds "<a> is impersonating <b>"). */
export function addInfo(ctx: RequestContext, info: string): void {
  (ctx.values.get(key) as RespLogger | undefined)?.addedInfo.push(info);
}

const connectSubresources = new Set(['proxy', 'attach', 'exec', 'portforward']);

/** metrics.NormalizedVerb: LIST for collection GETs, WATCH, APPLY, CONNECT. */
export function normalizedVerb(ctx: RequestContext): string {
  let verb = ctx.request.method.toUpperCase();
  const info = ctx.requestInfo;
  if (info) {
    const scope =
      info.name !== '' || info.verb === 'create'
        ? 'resource'
        : info.namespace !== ''
          ? 'namespace'
          : info.isResourceRequest
            ? 'cluster'
            : '';
    if ((verb === 'GET' || verb === 'HEAD') && scope !== 'resource' && scope !== '') verb = 'LIST';
    if (info.verb === 'watch') verb = 'WATCH';
    if (verb === 'PATCH' && ctx.request.headers.get('content-type') === 'application/apply-patch+yaml') verb = 'APPLY';
    if (info.isResourceRequest && connectSubresources.has(info.subresource)) verb = 'CONNECT';
  }
  return verb;
}

/**
 * Logs each request (verb, URI, latency, status, user agent) at klog verbosity 3, as upstream's httplog.
 *
 * @example
 * ```ts
 * app.use(honoMiddleware(withHTTPLogging, { logger: new KlogLogger(3) }));
 * ```
 */
export function withHTTPLogging(next: Handler, c: { logger: Logger }): Handler {
  const log = (ctx: RequestContext, rl: RespLogger, status: number | undefined) => {
    const t = ctx.transport;
    const kv: Record<string, unknown> = {
      verb: normalizedVerb(ctx),
      URI: ctx.url.pathname + ctx.url.search,
      latency: formatGoDuration(Math.max(0, Date.now() - ctx.receivedTimestamp) * 1e6),
      userAgent: ctx.request.headers.get('user-agent') ?? '',
      contentType: ctx.request.headers.get('content-type') ?? '',
      'audit-ID': (ctx.auditID ?? '').slice(0, 64),
      srcIP: t.remoteAddress
        ? (t.remoteAddress.includes(':') ? `[${t.remoteAddress}]` : t.remoteAddress) +
          (t.remotePort ? `:${t.remotePort}` : '')
        : '',
    };
    for (const [k, v] of rl.added) kv[k] = v;
    kv.resp = status ?? 0;
    if (rl.addedInfo.length) kv.addedInfo = rl.addedInfo.join('\n');
    c.logger.info('HTTP', kv, 3);
  };
  return (ctx) => {
    if (!c.logger.enabled(3)) return next(ctx);
    const rl: RespLogger = { added: [], addedInfo: [] };
    ctx.values.set(key, rl);
    return Promise.resolve()
      .then(() => next(ctx))
      .then(
        (res) => {
          log(ctx, rl, res.status);
          return res;
        },
        (err: unknown) => {
          log(ctx, rl, undefined);
          throw err;
        },
      );
  };
}
