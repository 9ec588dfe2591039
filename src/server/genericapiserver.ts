// GenericAPIServer (k8s.io/apiserver/pkg/server/genericapiserver.go, hooks.go, healthz.go):
// delegation, post-start and pre-shutdown hooks, health checks, PrepareRun and the
// RunWithContext shutdown sequence. Portable: a listener is optional (edge runtimes have none).

import {
  finalizeResponse,
  newRequestContext,
  type Handler,
  type RequestContext,
  type Transport,
} from '../endpoints/request/context.ts';
import { decodedPath } from '../endpoints/request/path.ts';
import {
  errorMessage,
  errorNegotiated,
  httpError,
  newServiceUnavailable,
  notFoundText,
} from '../endpoints/responsewriters/status.ts';
import type { CompletedConfig } from './config.ts';
import { APIServerHandler } from './handler.ts';
import { delayedHealthCheck, installPathHandler, namedCheck, type HealthChecker } from './healthz/healthz.ts';
import type { LifecycleSignal } from './lifecycle.ts';
import { installIndex, indexResponse } from './routes/index.ts';
import { installVersion } from './routes/version.ts';
import { installDebugFlags } from './routes/flags.ts';

/** What a post-start hook receives (PostStartHookContext). */
export interface PostStartHookContext {
  /** Aborted when the HTTP server is told to stop (not at ShutdownInitiated). */
  signal: AbortSignal;
  /** Loopback bearer token, when the server has one. */
  loopbackToken?: string;
}

export type PostStartHookFunc = (ctx: PostStartHookContext) => void | Promise<void>;
export type PreShutdownHookFunc = () => void | Promise<void>;

/** A registered post-start hook; shared with outer servers, which run it and mark it done. */
export interface PostStartHookEntry {
  hook: PostStartHookFunc;
  done: boolean;
}

/**
 * What the server needs from a listener (the Node adapter provides one; edge runtimes none).
 * `serve` starts accepting; `shutdown` stops accepting (closes the listener, sends GOAWAY),
 * then waits up to `timeoutMs` for open requests before closing what is left.
 */
export interface ServingListener {
  serve(handler: (request: Request, transport?: Transport) => Response | Promise<Response>): Promise<void>;
  shutdown(timeoutMs: number): Promise<void>;
  /** Resolves when the listener has stopped accepting. */
  readonly stoppedListening: Promise<void>;
}

/** DelegationTarget: what an outer server takes from the next server in the chain. */
export interface DelegationTarget {
  unprotectedHandler(): Handler | undefined;
  postStartHooks(): ReadonlyMap<string, PostStartHookEntry>;
  preShutdownHooks(): ReadonlyMap<string, PreShutdownHookFunc>;
  healthzChecks(): readonly HealthChecker[];
  listedPaths(): string[];
  muxAndDiscoveryCompleteSignals(): ReadonlyMap<string, LifecycleSignal>;
  prepareRun(): void;
  destroy(): void;
}

/** NewEmptyDelegate / NewEmptyDelegateWithCustomHandler. */
export function newEmptyDelegate(handler?: Handler): DelegationTarget {
  return {
    unprotectedHandler: () => handler,
    postStartHooks: () => new Map<string, PostStartHookEntry>(),
    preShutdownHooks: () => new Map(),
    healthzChecks: () => [],
    listedPaths: () => [],
    muxAndDiscoveryCompleteSignals: () => new Map(),
    prepareRun: () => {},
    destroy: () => {},
  };
}

/**
 * The kube-apiserver not-found handler (util/notfoundhandler): 503 + Retry-After while the
 * request entered before MuxAndDiscoveryComplete, else Go's 404 text.
 */
export const notFoundHandler: Handler = (ctx) => {
  if (ctx.muxAndDiscoveryIncomplete) {
    return errorNegotiated(
      {
        ...newServiceUnavailable(
          'the request has been made before all known HTTP paths have been installed, please try again',
        ),
        details: { retryAfterSeconds: 5 },
      },
      ctx.request,
      ctx.url,
    );
  }
  return notFoundText();
};

export interface RunOptions {
  /** Aborting starts the graceful shutdown (Go: the run context is cancelled). */
  signal: AbortSignal;
  /** Serves on this listener; omit on edge runtimes. */
  listener?: ServingListener;
}

interface HealthCheckSet {
  checks: HealthChecker[];
  installed: boolean;
  path: string;
}

export class GenericAPIServer implements DelegationTarget {
  readonly name: string;
  readonly config: CompletedConfig;
  readonly handler: APIServerHandler;
  readonly delegationTarget?: DelegationTarget;
  private readonly postStartHookMap = new Map<string, PostStartHookEntry>();
  private readonly preShutdownHookMap = new Map<string, PreShutdownHookFunc>();
  private postStartHooksCalled = false;
  private preShutdownHooksCalled = false;
  private readonly healthz: HealthCheckSet;
  private readonly livez: HealthCheckSet;
  private readonly readyz: HealthCheckSet;
  private readonly muxCompleteSignals = new Map<string, LifecycleSignal>();
  private readonly destroyFns: (() => void)[] = [];
  private prepared = false;

  constructor(c: CompletedConfig, name: string, delegate?: DelegationTarget) {
    this.name = name;
    this.config = c;
    this.delegationTarget = delegate;
    const delegateHandler = delegate?.unprotectedHandler();
    this.handler = new APIServerHandler(name, (director) => c.buildHandlerChainFunc(director, c), delegateHandler);
    this.healthz = { checks: [...c.healthzChecks], installed: false, path: '/healthz' };
    this.livez = { checks: [...c.livezChecks], installed: false, path: '/livez' };
    this.readyz = { checks: [...c.readyzChecks], installed: false, path: '/readyz' };

    if (delegate) {
      for (const [n, h] of delegate.postStartHooks()) this.postStartHookMap.set(n, h);
      for (const [n, h] of delegate.preShutdownHooks()) this.preShutdownHookMap.set(n, h);
      for (const [n, s] of delegate.muxAndDiscoveryCompleteSignals()) this.registerMuxAndDiscoveryCompleteSignal(n, s);
    }
    for (const [n, h] of c.postStartHooks) this.addPostStartHook(n, h);
    if (delegate) {
      // Delegate checks join all three endpoints with no livez delay; the config's own win by name.
      const own = new Set(c.healthzChecks.map((h) => h.name));
      const inherited = delegate.healthzChecks().filter((h) => !own.has(h.name));
      this.healthz.checks.push(...inherited);
      this.livez.checks.push(...inherited);
      this.readyz.checks.push(...inherited);
    }
    if (!delegateHandler && c.enableIndex) {
      this.handler.nonGoRestfulMux.notFoundHandler(() => indexResponse(this.listedPaths(), 404));
    }
    this.installAPI();
  }

  /** Serves a request through the full chain. `transport` carries what only the listener knows. */
  async fetch(request: Request, transport?: Transport): Promise<Response> {
    return this.handle(request, transport);
  }

  /**
   * fetch() without the async layer: a Response when the chain answers synchronously (most
   * requests), which lets a listener write it at once (@hono/node-server's fast path skips its
   * close handler and awaits only for a non-Promise Response).
   */
  handle(request: Request, transport?: Transport): Response | Promise<Response> {
    const ctx = newRequestContext(request, transport);
    // Go rejects a malformed escape while parsing the request line, before any handler.
    if (decodedPath(ctx.url) === null) {
      // Go's reply to an unparsable request line: no trailing newline, no nosniff.
      return new Response('400 Bad Request', { status: 400, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    }
    let out: Response | Promise<Response>;
    try {
      out = this.handler.fullHandlerChain(ctx);
    } catch (err) {
      return this.finish(ctx, transport, this.escaped(err));
    }
    if (out instanceof Promise) {
      return out.then(
        (response) => this.finish(ctx, transport, response),
        (err: unknown) => this.finish(ctx, transport, this.escaped(err)),
      );
    }
    return this.finish(ctx, transport, out);
  }

  private escaped(err: unknown): Response {
    this.config.logger.error('Unhandled error escaped the handler chain', { err: errorMessage(err) });
    return httpError('This request caused apiserver to panic. Look in the logs for details.', 500);
  }

  private finish(ctx: RequestContext, transport: Transport | undefined, response: Response): Response {
    if (!transport?.presetHeaders) return finalizeResponse(ctx, response);
    transport.presetHeaders(ctx.responseHeaders);
    return response;
  }

  private installAPI(): void {
    const c = this.config;
    const mux = this.handler.nonGoRestfulMux;
    if (c.enableIndex) installIndex(mux, () => this.listedPaths());
    if (c.enableProfiling) installDebugFlags(mux, c.logger);
    this.handler.registerWebService('/version', undefined, ['application/json']);
    installVersion(this.handler.goRestfulContainer, c.version);
    for (const install of c.routeInstallers) install(this);
  }

  // --- DelegationTarget ---

  unprotectedHandler(): Handler {
    return this.handler.director;
  }

  postStartHooks(): ReadonlyMap<string, PostStartHookEntry> {
    return this.postStartHookMap;
  }

  preShutdownHooks(): ReadonlyMap<string, PreShutdownHookFunc> {
    return this.preShutdownHookMap;
  }

  healthzChecks(): readonly HealthChecker[] {
    return this.healthz.checks;
  }

  /** Union of web service roots, listed mux paths and the delegate's, deduplicated and sorted. */
  listedPaths(): string[] {
    const paths = new Set<string>([
      ...this.handler.registeredWebServices(),
      ...this.handler.nonGoRestfulMux.listedPaths(),
    ]);
    for (const p of this.delegationTarget?.listedPaths() ?? []) paths.add(p);
    return [...paths].sort();
  }

  muxAndDiscoveryCompleteSignals(): ReadonlyMap<string, LifecycleSignal> {
    return this.muxCompleteSignals;
  }

  /** RegisterMuxAndDiscoveryCompleteSignal: MuxAndDiscoveryComplete waits for every registered signal. */
  registerMuxAndDiscoveryCompleteSignal(name: string, signal: LifecycleSignal): void {
    if (this.muxCompleteSignals.has(name)) throw new Error(`${name} already registered`);
    this.muxCompleteSignals.set(name, signal);
  }

  /** Adds a function run by destroy() (own first, then the delegate's). */
  addDestroyFunc(fn: () => void): void {
    this.destroyFns.push(fn);
  }

  destroy(): void {
    for (const fn of this.destroyFns) fn();
    this.delegationTarget?.destroy();
  }

  // --- hooks ---

  /** AddPostStartHook, with upstream's errors; adds the `poststarthook/<name>` health checks. */
  addPostStartHook(name: string, hook: PostStartHookFunc | undefined): void {
    if (!name) throw new Error('missing name');
    if (!hook) throw new Error(`hook func may not be nil: ${JSON.stringify(name)}`);
    if (this.config.disabledPostStartHooks.has(name)) return;
    if (this.postStartHooksCalled) {
      throw new Error(`unable to add ${JSON.stringify(name)} because PostStartHooks have already been called`);
    }
    if (this.postStartHookMap.has(name)) {
      throw new Error(`unable to add ${JSON.stringify(name)} because it was already registered`);
    }
    const entry: PostStartHookEntry = { hook, done: false };
    this.postStartHookMap.set(name, entry);
    this.addBootSequenceHealthChecks(
      namedCheck(`poststarthook/${name}`, () => {
        if (!entry.done) throw new Error('not finished');
      }),
    );
  }

  /** AddPreShutdownHook; a missing function is ignored, as upstream. */
  addPreShutdownHook(name: string, hook: PreShutdownHookFunc | undefined): void {
    if (!name) throw new Error('missing name');
    if (!hook) return;
    if (this.preShutdownHooksCalled) {
      throw new Error(`unable to add ${JSON.stringify(name)} because PreShutdownHooks have already been called`);
    }
    if (this.preShutdownHookMap.has(name))
      throw new Error(`unable to add ${JSON.stringify(name)} because it is already registered`);
    this.preShutdownHookMap.set(name, hook);
  }

  // --- health checks ---

  /** AddHealthChecks: to healthz, livez and readyz. */
  addHealthChecks(...checks: HealthChecker[]): void {
    this.addChecks(this.healthz, checks);
    this.addChecks(this.livez, checks);
    this.addChecks(this.readyz, checks);
  }

  addReadyzChecks(...checks: HealthChecker[]): void {
    this.addChecks(this.readyz, checks);
  }

  addLivezChecks(...checks: HealthChecker[]): void {
    this.addChecks(this.livez, checks);
  }

  /** Boot-sequence checks: livez ones report ok during the livez grace period. */
  addBootSequenceHealthChecks(...checks: HealthChecker[]): void {
    this.addChecks(this.healthz, checks);
    this.addChecks(this.readyz, checks);
    this.addChecks(
      this.livez,
      checks.map((c) => delayedHealthCheck(c, this.config.livezGracePeriod)),
    );
  }

  private addChecks(set: HealthCheckSet, checks: HealthChecker[]): void {
    if (set.installed) throw new Error(`unable to add because the ${set.path} endpoint has already been created`);
    set.checks.push(...checks);
  }

  // --- run ---

  /** PrepareRun: prepares delegates first, then installs /healthz, /livez and /readyz (+shutdown). */
  prepareRun(): this {
    if (this.prepared) return this;
    this.prepared = true;
    this.delegationTarget?.prepareRun();
    const mux = this.handler.nonGoRestfulMux;
    const signals = this.config.lifecycleSignals;
    const healthMetrics = this.config.metrics.healthObserver();
    installPathHandler(mux, '/healthz', this.healthz.checks, healthMetrics);
    this.healthz.installed = true;
    installPathHandler(mux, '/livez', this.livez.checks, healthMetrics);
    this.livez.installed = true;
    this.readyz.checks.push(
      namedCheck('shutdown', () => {
        if (signals.ShutdownInitiated.hasFired) throw new Error('process is shutting down');
      }),
    );
    installPathHandler(mux, '/readyz', this.readyz.checks, {
      ...healthMetrics,
      onResult: (_endpoint, ok) => {
        if (ok) signals.HasBeenReady.signal();
      },
    });
    this.readyz.installed = true;
    return this;
  }

  /**
   * RunWithContext: serves (when a listener is given), runs post-start hooks, and on abort
   * walks the graceful shutdown sequence (upstream RunWithContext). Resolves when it is done;
   * rejects with `PostStartHook "<name>" failed: …` or `PreShutdownHook "<name>" failed: …`.
   */
  async run({ signal, listener }: RunOptions): Promise<void> {
    if (!this.prepared) this.prepareRun();
    const c = this.config;
    const s = c.lifecycleSignals;
    const stopped = abortPromise(signal);
    // Upstream logs each shutdown signal at V(1) as it fires (genericapiserver.go RunWithContext).
    const fired = (x: LifecycleSignal) => {
      x.signal();
      c.logger.info('[graceful-termination] shutdown event', { name: x.name }, 1);
    };
    try {
      // MuxAndDiscoveryComplete once every registered signal fired, unless stopped first.
      void Promise.race([
        Promise.all([...this.muxCompleteSignals.values()].map((x) => x.signaled)).then(() => 'done'),
        stopped,
      ]).then((r) => r === 'done' && s.MuxAndDiscoveryComplete.signal());
      void stopped.then(async () => {
        fired(s.ShutdownInitiated);
        await sleep(c.shutdownDelayDuration);
        fired(s.AfterShutdownDelayDuration);
      });

      // The shutdown timeout is the request timeout; Go waits ~1s for a GOAWAY ack in retry-after mode.
      const shutdownTimeout = c.shutdownSendRetryAfter ? 2000 : c.requestTimeout;
      const stopHTTPServer = new AbortController();
      const stopHTTPServerSignal = c.shutdownSendRetryAfter ? s.InFlightRequestsDrained : s.NotAcceptingNewRequest;
      void stopHTTPServerSignal.signaled.then(() => stopHTTPServer.abort());

      // The audit backend runs until InFlightRequestsDrained, as upstream's RunWithContext.
      const auditBackend = c.audit?.backend;
      if (auditBackend) {
        try {
          await auditBackend.run(s.InFlightRequestsDrained.signaled);
        } catch (err) {
          throw new Error(`failed to run the audit backend: ${errorMessage(err)}`);
        }
      }

      let serverStopped: Promise<void> = Promise.resolve();
      if (listener) {
        await listener.serve((request, transport) => this.handle(request, transport));
        void listener.stoppedListening.then(() => fired(s.HTTPServerStoppedListening));
        serverStopped = stopHTTPServer.signal.aborted
          ? listener.shutdown(shutdownTimeout)
          : new Promise<void>((resolve, reject) =>
              stopHTTPServer.signal.addEventListener(
                'abort',
                () => listener.shutdown(shutdownTimeout).then(resolve, reject),
                { once: true },
              ),
            );
      } else {
        // No listener: "stopped listening" is when it would have stopped.
        void stopHTTPServerSignal.signaled.then(() => fired(s.HTTPServerStoppedListening));
      }

      void Promise.all([s.AfterShutdownDelayDuration.signaled, s.PreShutdownHooksStopped.signaled]).then(() =>
        fired(s.NotAcceptingNewRequest),
      );
      void s.NotAcceptingNewRequest.signaled.then(async () => {
        await Promise.all([c.nonLongRunningRequestWaitGroup.wait(), this.drainWatches()]);
        fired(s.InFlightRequestsDrained);
      });

      const hookFailure = this.runPostStartHooks(stopHTTPServer.signal);
      const outcome = await Promise.race([stopped.then(() => 'stop' as const), hookFailure]);
      if (outcome !== 'stop') throw outcome;

      const preShutdownError = await this.runPreShutdownHooks();
      if (preShutdownError) throw preShutdownError;
      await s.InFlightRequestsDrained.signaled;
      // Deliver what the audit backend still holds (upstream: the audit backend's Shutdown).
      await auditBackend?.shutdown();
      await s.HTTPServerStoppedListening.signaled;
      await serverStopped;
      c.logger.info('[graceful-termination] apiserver is exiting', undefined, 1);
    } finally {
      this.destroy();
    }
  }

  /** Starts every post-start hook; resolves with the first failure (the run then fails). */
  private runPostStartHooks(signal: AbortSignal): Promise<Error> {
    this.postStartHooksCalled = true;
    return new Promise<Error>((resolve) => {
      for (const [name, entry] of this.postStartHookMap) {
        void (async () => {
          try {
            await entry.hook({ signal, loopbackToken: this.config.loopbackToken });
            entry.done = true;
          } catch (err) {
            resolve(new Error(`PostStartHook ${JSON.stringify(name)} failed: ${errorMessage(err)}`));
          }
        })();
      }
    });
  }

  private async runPreShutdownHooks(): Promise<Error | undefined> {
    this.preShutdownHooksCalled = true;
    const errors: string[] = [];
    for (const [name, hook] of this.preShutdownHookMap) {
      try {
        await hook();
      } catch (err) {
        errors.push(`PreShutdownHook ${JSON.stringify(name)} failed: ${errorMessage(err)}`);
      }
    }
    this.config.lifecycleSignals.PreShutdownHooksStopped.signal();
    this.config.logger.info(
      '[graceful-termination] pre-shutdown hooks completed',
      { name: 'PreShutdownHooksStopped' },
      1,
    );
    if (!errors.length) return undefined;
    return new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  }

  /** Waits for active watches up to the watch termination grace period (0: no wait). */
  private async drainWatches(): Promise<void> {
    const grace = this.config.shutdownWatchTerminationGracePeriod;
    if (grace <= 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<void>((r) => (timer = setTimeout(r, grace)));
    await Promise.race([this.config.watchRequestWaitGroup.wait(), deadline]);
    clearTimeout(timer); // the grace timer must not keep the process alive after the drain
  }
}

function abortPromise(signal: AbortSignal): Promise<'stop'> {
  if (signal.aborted) return Promise.resolve('stop');
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve('stop'), { once: true }));
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}
