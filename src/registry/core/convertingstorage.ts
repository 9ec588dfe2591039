// A storage.Interface that stores one version of a kind and serves another: every object read is
// converted from the stored form, every object written to it (upstream: the storage codec's
// encode/decode between the storage version and the request's version, as events.k8s.io/v1
// Events are stored as core/v1 Events under /registry/events).

import type {
  DeleteOptions,
  GetOptions,
  Interface,
  ListOptions,
  ListResult,
  Preconditions,
  Stats,
  StorageObject,
  UpdateFunc,
  ValidateObjectFunc,
  WatchEvent,
  WatchInterface,
} from '../../storage/interfaces.ts';
import { thenMaybe } from '../../util/maybe-promise.ts';

export interface Conversion {
  /**
   * Stored form → served form. Must not change its input: a read-only create or update hands the
   * inner store's object to its watchers (the watch cache), and reads may return the cache's own.
   */
  fromStorage(obj: StorageObject): StorageObject;
  /** Served form → stored form. */
  toStorage(obj: StorageObject): StorageObject;
}

export function convertingStorage(inner: Interface, c: Conversion): Interface {
  const from = (o: StorageObject | undefined) => (o ? c.fromStorage(o) : o);
  return {
    // readOnly is forwarded: fromStorage leaves the stored object as it is, and the caller promised
    // not to change what it gets (which may share nested values with the stored object).
    async create(key: string, obj: StorageObject, ttl?: number, opts?: Pick<GetOptions, 'readOnly'>) {
      return c.fromStorage(await inner.create(key, c.toStorage(obj), ttl, opts));
    },
    async delete(
      key: string,
      preconditions?: Preconditions,
      validateDeletion?: ValidateObjectFunc,
      cachedExistingObject?: StorageObject,
      opts?: DeleteOptions,
    ) {
      const validate = validateDeletion && ((o: StorageObject) => validateDeletion(c.fromStorage(o)));
      const cached = cachedExistingObject && c.toStorage(cachedExistingObject);
      return c.fromStorage(await inner.delete(key, preconditions, validate, cached, opts));
    },
    async watch(key: string, opts: ListOptions): Promise<WatchInterface> {
      const w = await inner.watch(key, opts);
      return {
        stop: () => w.stop(),
        async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
          for await (const ev of w) {
            if (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED')
              yield { type: ev.type, object: c.fromStorage(ev.object) };
            else yield ev;
          }
        },
      };
    },
    get(key: string, opts?: GetOptions) {
      return thenMaybe(inner.get(key, opts), from);
    },
    async getList(key: string, opts: ListOptions): Promise<ListResult> {
      const list = await inner.getList(key, opts);
      return { ...list, items: list.items.map((i) => c.fromStorage(i)) };
    },
    guaranteedUpdate(
      key: string,
      ignoreNotFound: boolean,
      preconditions: Preconditions | undefined,
      tryUpdate: UpdateFunc,
      cachedExistingObject?: StorageObject,
      opts?: Pick<GetOptions, 'readOnly'>,
    ) {
      const wrapped: UpdateFunc = async (input, res) => {
        const out = await tryUpdate(res.resourceVersion > 0 ? c.fromStorage(input) : input, res);
        return { ...out, object: c.toStorage(out.object) };
      };
      const cached = cachedExistingObject && c.toStorage(cachedExistingObject);
      return inner
        .guaranteedUpdate(key, ignoreNotFound, preconditions, wrapped, cached, opts)
        .then((o) => c.fromStorage(o));
    },
    stats: (): Promise<Stats> => inner.stats(),
    readinessCheck: () => inner.readinessCheck(),
    getCurrentResourceVersion: () => inner.getCurrentResourceVersion(),
    compactRevision: () => inner.compactRevision(),
  };
}
