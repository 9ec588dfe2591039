// Lifecycle signals (k8s.io/apiserver/pkg/server/lifecycle_signals.go): named one-shot latches.

/** A named one-shot latch; signalling is idempotent. */
export class LifecycleSignal {
  readonly name: string;
  private fired = false;
  private resolve!: () => void;
  /** Resolves once the signal fires (Go: the channel closes). */
  readonly signaled: Promise<void>;
  constructor(name: string) {
    this.name = name;
    this.signaled = new Promise<void>((r) => (this.resolve = r));
  }
  signal(): void {
    if (this.fired) return;
    this.fired = true;
    this.resolve();
  }
  get hasFired(): boolean {
    return this.fired;
  }
}

export class LifecycleSignals {
  readonly ShutdownInitiated = new LifecycleSignal('ShutdownInitiated');
  readonly AfterShutdownDelayDuration = new LifecycleSignal('AfterShutdownDelayDuration');
  readonly PreShutdownHooksStopped = new LifecycleSignal('PreShutdownHooksStopped');
  readonly NotAcceptingNewRequest = new LifecycleSignal('NotAcceptingNewRequest');
  readonly InFlightRequestsDrained = new LifecycleSignal('InFlightRequestsDrained');
  readonly HTTPServerStoppedListening = new LifecycleSignal('HTTPServerStoppedListening');
  readonly HasBeenReady = new LifecycleSignal('HasBeenReady');
  readonly MuxAndDiscoveryComplete = new LifecycleSignal('MuxAndDiscoveryComplete');
}
