// Lifecycle signals (k8s.io/apiserver/pkg/server/lifecycle_signals.go): named one-shot latches.

import { LifecycleSignal } from '../util/lifecycle-signal.ts';

export { LifecycleSignal };

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
