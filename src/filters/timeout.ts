// WithTimeoutForNonLongRunningRequests (server/filters/timeout.go): runs the inner handler with
// a child context (a COPY of the response header map, as Go's cloned header map, and an
// AbortSignal that fires at the deadline or when the client goes away) and, if no Response came
// back by the deadline, answers the filter's 504: the bare Status without kind/apiVersion, text
// content type sniffed by Go, with the outer headers only (inner ones are dropped).

import {
  type AuthenticationInfo,
  type Handler,
  type RequestContext,
  type Transport,
  type UserInfo,
} from '../endpoints/request/context.ts';
import type { RequestInfo } from '../endpoints/request/requestinfo.ts';
import { HeaderMap } from '../endpoints/request/header-map.ts';
import { encodeStatus } from '../endpoints/responsewriters/status.ts';
import type { LongRunningRequestCheck } from '../endpoints/request/longrunning.ts';
import type { Logger } from '../util/logger.ts';
import { requestInfoOr500 } from './common.ts';
import { requestDeadlineFrom } from './request-deadline.ts';
import { scheduleDeadline, type Expiring } from '../util/timer-wheel.ts';

const timeoutBody = encodeStatus(
  {
    status: 'Failure',
    message: 'Timeout: request did not complete within the allotted timeout',
    reason: 'Timeout',
    details: {},
    code: 504,
  },
  false,
  false,
);

/** The filter's 504 (Go sniffs the JSON text as text/plain). */
export function timeoutResponse(): Response {
  return new Response(timeoutBody, { status: 504, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
}

/** The reason the child signal carries when the deadline passes. */
export class DeadlineExceededError extends Error {
  constructor() {
    super('context deadline exceeded');
    this.name = 'TimeoutError';
  }
}

/**
 * Go's cloned header map, copied only when read: most inner layers only write (APF's two UID
 * headers), and then the copy (and sorting the outer map to copy it) is never made. Writes are
 * kept on this map and remembered by name, so that an answer in time hands exactly them back.
 */
class ChildHeaders extends HeaderMap {
  private readonly outer: Headers;
  private copied = false;
  /**
   * Names written (set, appended or deleted) on this map; made at the first delete or copy.
   * Until then the map holds exactly what was written, so its own names are the written ones
   * (most requests: APF's two headers, and no Set per request).
   */
  private writtenNames: Set<string> | undefined;

  constructor(outer: Headers) {
    super();
    this.outer = outer;
  }

  private written(): Set<string> {
    return (this.writtenNames ??= new Set(this.names()));
  }

  private copy(): void {
    if (this.copied) return;
    const written = this.written();
    this.copied = true;
    for (const [name, value] of this.outer) if (!written.has(name)) super.append(name, value);
  }

  protected override put(lower: string, value: string): void {
    super.put(lower, value);
    this.writtenNames?.add(lower);
  }
  override append(name: string, value: string): void {
    const lower = name.toLowerCase();
    // Appending to a value the copy would have held: start from it.
    if (!this.copied && !(this.writtenNames ? this.writtenNames.has(lower) : super.has(lower))) {
      const had = this.outer.get(lower);
      if (had !== null) super.set(lower, had);
    }
    super.append(name, value);
    this.writtenNames?.add(lower);
  }
  override delete(name: string): void {
    const written = this.written();
    super.delete(name);
    written.add(name.toLowerCase());
  }
  override get(name: string): string | null {
    this.copy();
    return super.get(name);
  }
  override has(name: string): boolean {
    this.copy();
    return super.has(name);
  }
  override getSetCookie(): string[] {
    this.copy();
    return super.getSetCookie();
  }
  override forEach(cb: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    this.copy();
    super.forEach(cb, thisArg);
  }
  override entries(): HeadersIterator<[string, string]> {
    this.copy();
    return super.entries();
  }
  override keys(): HeadersIterator<string> {
    this.copy();
    return super.keys();
  }
  override values(): HeadersIterator<string> {
    this.copy();
    return super.values();
  }
  override [Symbol.iterator](): HeadersIterator<[string, string]> {
    this.copy();
    return super[Symbol.iterator]();
  }

  /**
   * Sets on `outer` the values written here that differ from its own (deletions are not carried
   * over, as before); names and values are already checked and lower-cased.
   */
  copyWrittenTo(outer: Headers): void {
    for (const name of this.writtenNames ?? this.names()) {
      const v = super.get(name);
      if (v !== null && v !== this.outer.get(name)) HeaderMap.copyValue(outer, name, v);
    }
  }
}

/**
 * One request racing its deadline. The child context it hands down creates its pieces only when
 * used: the AbortSignal (deadline or client gone) on first read, and the header map, a COPY of
 * the outer one as Go's cloned map, on first access. Most requests touch neither.
 */
class TimeoutRace implements Expiring {
  private readonly outer: RequestContext;
  private settled = false;
  private expiredReason: unknown;
  private controller: AbortController | undefined;
  private childSignal: AbortSignal | undefined;
  headers: Headers | undefined;
  cancelTimer: (() => void) | undefined;
  resolve!: (r: Response) => void;
  reject!: (e: unknown) => void;

  constructor(outer: RequestContext) {
    this.outer = outer;
  }

  signal(): AbortSignal {
    if (!this.childSignal) {
      const ac = new AbortController();
      this.controller = ac;
      const outer = this.outer.signal;
      if (this.settled && this.expiredReason !== undefined) ac.abort(this.expiredReason);
      else if (outer.aborted) ac.abort(outer.reason);
      // The request's own signal dies with the request: no need to remove this listener.
      else outer.addEventListener('abort', () => ac.abort(outer.reason), { once: true });
      this.childSignal = ac.signal;
    }
    return this.childSignal;
  }

  /** Whether the child signal has fired (or would have, had it been made). */
  aborted(): boolean {
    if (this.childSignal) return this.childSignal.aborted;
    return (this.settled && this.expiredReason !== undefined) || this.outer.signal.aborted;
  }

  childHeaders(): Headers {
    return (this.headers ??= new ChildHeaders(this.outer.responseHeaders));
  }

  expire(): void {
    if (this.settled) return;
    this.settled = true;
    this.expiredReason = new DeadlineExceededError();
    this.controller?.abort(this.expiredReason);
    this.resolve(timeoutResponse());
  }

  /** The inner handler answered: true when it was in time. */
  finish(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.cancelTimer?.();
    return true;
  }
}

/**
 * The inner handler's context: the race's lazy signal and header map; every other field reads
 * and writes through to the outer context, so what inner layers set (the user, a rebuilt
 * request) stays visible to outer filters, as in the rest of the chain (RequestContext is one
 * shared object, not Go's derived contexts). A class, so the accessors live on the prototype
 * (an object literal with per-request getters is far slower and heavier on the GC).
 */
class TimeoutChildContext implements RequestContext {
  private readonly outer: RequestContext;
  private readonly race: TimeoutRace;

  constructor(ctx: RequestContext, race: TimeoutRace) {
    this.outer = ctx;
    this.race = race;
    // Fields added to RequestContext later are carried over (as a snapshot). for-in, not
    // Object.keys: no array per request (the context is a plain object, nothing inherited);
    // a Set of the accessors' names, not `k in this` (megamorphic on this class).
    for (const k in ctx)
      if (!childContextKeys.has(k))
        (this as unknown as Record<string, unknown>)[k] = (ctx as unknown as Record<string, unknown>)[k];
  }

  get signal(): AbortSignal {
    return this.race.signal();
  }
  /** signalAborted(ctx) without making the signal. */
  get signalAborted(): boolean {
    return this.race.aborted();
  }
  get responseHeaders(): Headers {
    return this.race.childHeaders();
  }
  set responseHeaders(h: Headers) {
    this.race.headers = h;
  }

  get request(): Request {
    return this.outer.request;
  }
  set request(v: Request) {
    this.outer.request = v;
  }
  get url(): URL {
    return this.outer.url;
  }
  set url(v: URL) {
    this.outer.url = v;
  }
  get transport(): Transport {
    return this.outer.transport;
  }
  set transport(v: Transport) {
    this.outer.transport = v;
  }
  get receivedTimestamp(): number {
    return this.outer.receivedTimestamp;
  }
  set receivedTimestamp(v: number) {
    this.outer.receivedTimestamp = v;
  }
  get auditID(): string | undefined {
    return this.outer.auditID;
  }
  set auditID(v: string | undefined) {
    this.outer.auditID = v;
  }
  get requestInfo(): RequestInfo | undefined {
    return this.outer.requestInfo;
  }
  set requestInfo(v: RequestInfo | undefined) {
    this.outer.requestInfo = v;
  }
  get user(): UserInfo | undefined {
    return this.outer.user;
  }
  set user(v: UserInfo | undefined) {
    this.outer.user = v;
  }
  get authenticationInfo(): AuthenticationInfo | undefined {
    return this.outer.authenticationInfo;
  }
  set authenticationInfo(v: AuthenticationInfo | undefined) {
    this.outer.authenticationInfo = v;
  }
  get muxAndDiscoveryIncomplete(): boolean | undefined {
    return this.outer.muxAndDiscoveryIncomplete;
  }
  set muxAndDiscoveryIncomplete(v: boolean | undefined) {
    this.outer.muxAndDiscoveryIncomplete = v;
  }
  get values(): Map<symbol | string, unknown> {
    return this.outer.values;
  }
  set values(v: Map<symbol | string, unknown>) {
    this.outer.values = v;
  }
}

/** The names TimeoutChildContext answers itself (its own fields and accessors). */
const childContextKeys: ReadonlySet<string> = new Set([
  'outer',
  'race',
  ...Object.getOwnPropertyNames(TimeoutChildContext.prototype),
]);

/**
 * Gives a non-long-running request until its deadline (WithRequestDeadline's, or receipt + requestTimeout)
 * and answers the 504 if the handler has not by then; the handler's `ctx.signal` aborts. Needs RequestInfo.
 *
 * @example
 * ```ts
 * app.use(honoMiddleware(withRequestInfo, { legacyAPIGroupPrefixes: ['/api'] }));
 * app.use(honoMiddleware(withTimeoutForNonLongRunningRequests, { longRunningFunc: kubeLongRunningRequestCheck,
 *   requestTimeout: 60_000, logger }));
 * ```
 */
export function withTimeoutForNonLongRunningRequests(
  next: Handler,
  c: { longRunningFunc: LongRunningRequestCheck; requestTimeout: number; logger: Logger },
): Handler {
  const longRunning = c.longRunningFunc;
  const late = (ctx: RequestContext, what: Record<string, unknown>) =>
    c.logger.info('post-timeout activity', { method: ctx.request.method, path: ctx.url.pathname, ...what }, 2);
  return (ctx) => {
    const info = requestInfoOr500(ctx);
    if (info instanceof Response) return info;
    if (longRunning(ctx.request, info)) return next(ctx);
    const deadline = requestDeadlineFrom(ctx) ?? ctx.receivedTimestamp + c.requestTimeout;
    const race = new TimeoutRace(ctx);
    // The race's Promise is made only for an asynchronous answer (the timer can fire only
    // after this function returns, so it always exists by then).
    const settle = () =>
      new Promise<Response>((resolve, reject) => {
        race.resolve = resolve;
        race.reject = reject;
      });
    race.cancelTimer = scheduleDeadline(deadline, race);
    let result: Response | Promise<Response>;
    try {
      result = next(new TimeoutChildContext(ctx, race));
    } catch (err) {
      // A panic below is re-raised on the outer path, with the outer headers only.
      if (race.finish()) throw err;
      late(ctx, { err: String(err) });
      return settle();
    }
    // An answer given synchronously is always in time (the timer cannot have fired yet):
    // return it as is, sparing the race's Promise and the outer layers' async paths.
    if (!(result instanceof Promise)) {
      race.finish();
      if (race.headers) mergeInnerHeaders(ctx.responseHeaders, race.headers);
      return result;
    }
    const promise = settle();
    result.then(
      (res) => {
        if (!race.finish()) {
          // The 504 is already out; free what the late answer holds.
          late(ctx, { result: res.status });
          void res.body?.cancel().catch(() => {});
          return;
        }
        if (race.headers) mergeInnerHeaders(ctx.responseHeaders, race.headers);
        race.resolve(res);
      },
      (err: unknown) => {
        if (!race.finish()) return late(ctx, { err: String(err) });
        race.reject(err);
      },
    );
    return promise;
  };
}

/**
 * An answer in time: what inner layers put on their map joins the outer one (Go writes the
 * cloned map to the real writer), and reaches the Response with the outer headers at the end,
 * where the responder's own values win. The Response itself is not touched, which keeps a
 * listener's fast path (its headers never materialised).
 */
function mergeInnerHeaders(outer: Headers, inner: Headers): void {
  if (inner instanceof ChildHeaders) {
    inner.copyWrittenTo(outer);
    return;
  }
  // A map an inner layer put in place of the copy.
  for (const [name, value] of inner) if (outer.get(name) !== value) outer.set(name, value);
}
