// WithWatchTerminationDuringShutdown (server/filters/watch_termination.go; only when
// --shutdown-watch-termination-grace-period > 0): watches join config.watchRequestWaitGroup
// (drained by run() up to the grace period) and learn through the context when the server stops
// accepting requests, so the watch handler can end them; a watch arriving during the drain gets
// the shutdown 503.

import type { Handler, RequestContext } from '../endpoints/request/context.ts';
import type { LifecycleSignal } from '../util/lifecycle-signal.ts';
import type { SafeWaitGroup } from '../util/waitgroup.ts';
import { onBodyDone, requestInfoOr500 } from './common.ts';
import { shuttingDownResponse } from './waitgroup.ts';

const key = Symbol('serverShutdownSignal');

/** request.ServerShutdownSignalFrom: fires when the watch should end (NotAcceptingNewRequest). */
export function serverShutdownSignalFrom(ctx: RequestContext): LifecycleSignal | undefined {
  return ctx.values.get(key) as LifecycleSignal | undefined;
}

/**
 * Tracks watches in `watchRequestWaitGroup` and lets them see the NotAcceptingNewRequest signal, so
 * shutdown can end them within `--shutdown-watch-termination-grace-period`.
 *
 * @example
 * ```ts
 * app.use(honoMiddleware(withWatchTerminationDuringShutdown, { lifecycleSignals, watchRequestWaitGroup: new SafeWaitGroup() }));
 * ```
 */
export function withWatchTerminationDuringShutdown(
  next: Handler,
  c: { lifecycleSignals: { NotAcceptingNewRequest: LifecycleSignal }; watchRequestWaitGroup: SafeWaitGroup },
): Handler {
  const wg = c.watchRequestWaitGroup;
  const signal = c.lifecycleSignals.NotAcceptingNewRequest;
  return async (ctx) => {
    const info = requestInfoOr500(ctx);
    if (info instanceof Response) return info;
    if (info.verb !== 'watch') return next(ctx);
    if (wg.isWaiting) return shuttingDownResponse();
    wg.add(1);
    ctx.values.set(key, signal);
    let res: Response;
    try {
      res = await next(ctx);
    } catch (err) {
      wg.done();
      throw err;
    }
    // A watch lives as long as its body streams.
    return onBodyDone(res, () => wg.done());
  };
}
