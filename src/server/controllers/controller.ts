// Controllers that run inside the server over its registry (upstream runs them as post-start hooks
// or in kube-controller-manager: pkg/controlplane/controller, pkg/controller). They start when the
// resources are installed, not as post-start hooks: a server used only through fetch() never runs
// hooks, and its /readyz must not wait for one. They stop when the server is destroyed.

import type { ResourceRegistry } from '../../registry/rest/registry.ts';
import type { KubeObject, Store } from '../../registry/generic/store.ts';
import type { EventType } from '../../storage/interfaces.ts';
import type { Logger } from '../../util/logger.ts';

export interface Controller {
  /** Upstream's controller name (`namespace-controller`). */
  readonly name: string;
  /**
   * Must run in one server at a time (upstream: a kube-controller-manager controller, under its
   * leader election). With several servers over one etcd it runs only in the elected one; an
   * idempotent reconciler (bootstrap policy, system namespaces) leaves this unset and runs everywhere.
   */
  readonly requiresLeader?: boolean;
  /** Runs until `signal` aborts; errors are logged, not fatal. */
  run(registry: ResourceRegistry, signal: AbortSignal, logger: Logger): Promise<void> | void;
}

/**
 * Runs `onStartedLeading(signal)` each time this server becomes the leader; the signal aborts when
 * it stops leading (src/server/leaderelection). Resolves when `stop` aborts.
 */
export type LeaderElection = (onStartedLeading: (signal: AbortSignal) => void, stop: AbortSignal) => Promise<void>;

/**
 * Starts every controller; the returned function stops them. With `leaderElection`, the controllers
 * that require a leader start each time this server is elected and stop when it is not any more;
 * without it (a server alone on its storage) they start at once like the others.
 */
export function startControllers(
  controllers: readonly Controller[],
  registry: ResourceRegistry,
  logger: Logger,
  leaderElection?: LeaderElection,
): () => void {
  const abort = new AbortController();
  const start = (c: Controller, signal: AbortSignal) =>
    Promise.resolve()
      .then(() => c.run(registry, signal, logger))
      .catch((err: unknown) => {
        if (!signal.aborted) logger.error('Controller failed', { controller: c.name, err: String(err) });
      });
  const leaderOnly = leaderElection ? controllers.filter((c) => c.requiresLeader) : [];
  for (const c of controllers) if (!leaderOnly.includes(c)) void start(c, abort.signal);
  if (leaderElection && leaderOnly.length) {
    void leaderElection((leading) => {
      logger.info('Starting the controllers that run in the leader only', {
        controllers: leaderOnly.map((c) => c.name).join(','),
      });
      for (const c of leaderOnly) void start(c, leading);
    }, abort.signal).catch((err: unknown) => logger.error('Leader election failed', { err: String(err) }));
  }
  return () => abort.abort();
}

const relistDelayMs = 1000;

/** A background timer must not keep the process alive when nobody stops the server (Node's unref; others have none). */
export function unrefTimer<T>(t: T): T {
  (t as { unref?: () => void }).unref?.();
  return t;
}

/**
 * A reflector in miniature (client-go tools/cache): lists the store, then watches from the list's
 * resourceVersion, handing every object to `handle`; relists after the watch ends or fails.
 * Returns when `signal` aborts.
 */
export async function listAndWatch(
  store: Store,
  namespace: string,
  signal: AbortSignal,
  handle: (type: EventType | 'LIST', obj: KubeObject) => Promise<void> | void,
): Promise<void> {
  while (!signal.aborted) {
    try {
      const list = await store.list(namespace, { resourceVersion: '' });
      for (const item of list.items) await handle('LIST', item);
      const w = await store.watch(namespace, { resourceVersion: list.resourceVersion, signal });
      try {
        for await (const ev of w) {
          if (signal.aborted) break;
          if (ev.type === 'BOOKMARK' || ev.type === 'ERROR') continue;
          await handle(ev.type, ev.object as KubeObject);
        }
      } finally {
        w.stop();
      }
    } catch {
      // A compacted or broken watch: relist after a pause.
    }
    if (signal.aborted) return;
    await new Promise<void>((resolve) => {
      const t = unrefTimer(setTimeout(resolve, relistDelayMs));
      signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });
  }
}
