// A named one-shot latch (the lifecycleSignal of k8s.io/apiserver/pkg/server/lifecycle_signals.go).
// Here, not in server/, so filters that wait on a signal need not import the server.

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
