// A minimal shared informer over one registry Store (client-go's Reflector + Indexer, in
// process): list from the watch cache, then watch from the list's resourceVersion; on a watch
// error or end, relist after a short backoff. Keeps every object by `namespace/name` and calls
// `onChange` after each batch of events. The RBAC authorizer and the aggregation controller read
// through it, so a write takes effect as soon as its watch event arrives.

import type { KubeObject, Store } from '../generic/store.ts';

export interface InformerOptions {
  /** Called after the initial list and after every event (coalesced by the caller if it wants). */
  onChange?: () => void;
  /** Backoff before a relist, ms (default 1000). */
  relistDelayMs?: number;
  logger?: { error(msg: string, kv?: Record<string, unknown>): void };
}

const key = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

export class Informer {
  readonly store: Store;
  private readonly items = new Map<string, KubeObject>();
  private readonly o: InformerOptions;
  private syncedResolve!: () => void;
  /** Resolves once the first list is in. */
  readonly synced: Promise<void>;
  hasSynced = false;

  constructor(store: Store, options: InformerOptions = {}) {
    this.store = store;
    this.o = options;
    this.synced = new Promise((r) => (this.syncedResolve = r));
  }

  /** The objects, in no particular order (do not mutate them: they are the watch cache's). */
  list(): KubeObject[] {
    return [...this.items.values()];
  }

  get(namespace: string, name: string): KubeObject | undefined {
    return this.items.get(`${namespace}/${name}`);
  }

  /** Runs until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const list = await this.store.list('', { resourceVersion: '0', recursive: true });
        this.items.clear();
        for (const item of list.items) this.items.set(key(item), item);
        if (!this.hasSynced) {
          this.hasSynced = true;
          this.syncedResolve();
        }
        this.o.onChange?.();
        const w = await this.store.watch('', { resourceVersion: list.resourceVersion, recursive: true, signal });
        const stop = () => w.stop();
        signal.addEventListener('abort', stop, { once: true });
        try {
          for await (const ev of w) {
            if (ev.type === 'ERROR') break;
            if (ev.type === 'BOOKMARK') continue;
            const obj = ev.object as KubeObject;
            if (ev.type === 'DELETED') this.items.delete(key(obj));
            else this.items.set(key(obj), obj);
            this.o.onChange?.();
          }
        } finally {
          signal.removeEventListener('abort', stop);
          w.stop();
        }
      } catch (err) {
        if (signal.aborted) return;
        this.o.logger?.error('Informer list/watch failed; relisting', {
          resource: this.store.qualifiedResource.resource,
          err: err instanceof Error ? err.message : String(err),
        });
      }
      if (signal.aborted) return;
      await sleep(this.o.relistDelayMs ?? 1000, signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
