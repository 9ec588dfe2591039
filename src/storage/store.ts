// The one storage.Interface implementation over any engine (src/storage/kv.ts), as
// k8s.io/apiserver/pkg/storage/etcd3/store.go and watcher.go do it over etcd.

import { newBadRequest, newInternalError, newResourceExpired, type GroupResource } from '../endpoints/apierrors.ts';
import { StatusError, statusObject } from '../endpoints/responsewriters/status.ts';
import { parseResourceVersion, prepareKey, validateListOptions, encodeContinue } from './continue.ts';
import {
  ErrResourceVersionSetOnCreate,
  expiredListMessage,
  expiredWatchMessage,
  continueExpiredMessage,
  InternalError,
  interpretWatchError,
  newCorruptObjError,
  newInconsistentContinueError,
  newKeyExistsError,
  newKeyNotFoundError,
  newTooLargeResourceVersionError,
} from './errors.ts';
import {
  checkPreconditions,
  everything,
  InitialEventsAnnotationKey,
  WatchChannel,
  type DeleteOptions,
  type GetOptions,
  type Interface,
  type ListOptions,
  type ListResult,
  type Preconditions,
  type SelectionPredicate,
  type Stats,
  type StorageObject,
  type UpdateFunc,
  type ValidateObjectFunc,
  type WatchEvent,
  type WatchInterface,
} from './interfaces.ts';
import { CompactedError, FutureRevisionError, type GetResult, type KV, type KeyValue } from './kv.ts';
import { thenMaybe, type MaybePromise } from '../util/maybe-promise.ts';
import type { Transformer } from './value/transformer.ts';
import { deepCopyJSON } from '../util/deepcopy.ts';

/** etcd3/store.go maxLimit: the page size never doubles beyond this. */
const maxLimit = 10000;
/** etcd3/watcher.go defaultWatcherMaxLimit: page size of a watch's initial sync. */
const watcherSyncLimit = 10000;

const enc = new TextEncoder();
const dec = new TextDecoder();

export interface StoreConfig {
  kv: KV;
  /** The `--etcd-prefix`, e.g. `/registry` (a trailing `/` is added). */
  pathPrefix: string;
  /** The resource's key prefix below pathPrefix, e.g. `/configmaps` or `/apps.example.com/widgets`. */
  resourcePrefix: string;
  groupResource: GroupResource;
  /** The type of the resource (apiVersion + kind) for bookmark objects; without it, bookmarks are plain. */
  newFunc?: () => StorageObject;
  /** Encryption at rest (`--encryption-provider-config`): bytes pass through it to and from the engine. */
  transformer?: Transformer;
}

/** What the store knows about a key's current value (etcd3/store.go objState). */
interface ObjState {
  obj: StorageObject;
  /** Encoded bytes as stored (resourceVersion stripped). */
  data?: Uint8Array;
  rev: number;
  exists: boolean;
  ttl: number;
  /** The state came from a cached object whose bytes we re-encoded, or the transformer read old bytes. */
  stale: boolean;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Versioner.PrepareObjectForStorage + JSON: the text stored, without resourceVersion and selfLink. */
export function encodeObjectJSON(obj: StorageObject): string {
  const meta = obj.metadata;
  if (meta && (meta.resourceVersion !== undefined || meta.selfLink !== undefined)) {
    const { resourceVersion: _rv, selfLink: _sl, ...rest } = meta;
    return JSON.stringify({ ...obj, metadata: rest });
  }
  return JSON.stringify(obj);
}

/** The bytes stored for an object. */
export function encodeObject(obj: StorageObject): Uint8Array {
  return enc.encode(encodeObjectJSON(obj));
}

/** The object a write returns: a fresh copy parsed from the text just stored, stamped with its revision. */
function fromJSON(json: string, rev: number): StorageObject {
  return stampResourceVersion(JSON.parse(json) as StorageObject, rev);
}

/** decode + Versioner.UpdateObject: the object with metadata.resourceVersion stamped. */
export function decodeObject(data: Uint8Array, rev: number, key = ''): StorageObject {
  let obj: unknown;
  try {
    obj = JSON.parse(dec.decode(data));
  } catch (err) {
    throw newCorruptObjError(key, err);
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw newCorruptObjError(key, new Error('stored value is not a JSON object'));
  }
  return stampResourceVersion(obj as StorageObject, rev);
}

export function stampResourceVersion(obj: StorageObject, rev: number): StorageObject {
  const meta = obj.metadata;
  if (meta && typeof meta === 'object') meta.resourceVersion = String(rev);
  else obj.metadata = { resourceVersion: String(rev) };
  return obj;
}

/** The `ERROR` event for an error (watcher.go transformErrorToEvent). */
export function errorEvent(err: unknown, gr: GroupResource): WatchEvent {
  let e = interpretWatchError(err, gr, '');
  if (!(e instanceof StatusError)) e = newInternalError(e);
  return { type: 'ERROR', object: statusObject((e as StatusError).status) as StorageObject };
}

export class Store implements Interface {
  readonly kv: KV;
  readonly pathPrefix: string;
  readonly resourcePrefix: string;
  readonly groupResource: GroupResource;
  private readonly newFunc?: () => StorageObject;
  private readonly transformer?: Transformer;
  /**
   * Objects a create returned to a caller that only reads them, by engine key, until this store's
   * watch reaches them: the event carries that object rather than a second decode of the same
   * bytes, so the watch cache holds the very object the create answered (and its encoded JSON).
   */
  private readonly written = new Map<string, StorageObject>();
  /** Present when the engine can answer it (KV.unchangedSince): the watch cache's progress question. */
  readonly progressSince?: (sinceRevision: number, count: number) => Promise<number | undefined>;

  constructor(cfg: StoreConfig) {
    this.transformer = cfg.transformer;
    this.kv = cfg.kv;
    const kv = cfg.kv;
    if (kv.unchangedSince) {
      this.progressSince = (since, count) =>
        kv.unchangedSince!(this.prepareKey(this.resourcePrefix, true), since, count);
    }
    this.pathPrefix = cfg.pathPrefix.endsWith('/') ? cfg.pathPrefix : cfg.pathPrefix + '/';
    this.resourcePrefix = cfg.resourcePrefix;
    this.groupResource = cfg.groupResource;
    this.newFunc = cfg.newFunc;
  }

  /** The bytes to store: transformed (encrypted) with the key as authenticated data. */
  private async toStorage(data: Uint8Array, key: string): Promise<Uint8Array> {
    if (!this.transformer) return data;
    return this.transformer.transformToStorage(data, enc.encode(key));
  }

  /** Stored bytes back to plain ones; a failure is storage.NewInternalError, as etcd3/store.go. */
  private async fromStorage(value: Uint8Array, key: string): Promise<{ data: Uint8Array; stale: boolean }> {
    if (!this.transformer) return { data: value, stale: false };
    try {
      return await this.transformer.transformFromStorage(value, enc.encode(key));
    } catch (err) {
      throw new InternalError(`unable to transform key ${JSON.stringify(key)}: ${(err as Error).message}`);
    }
  }

  /** decodeObject after the transformer (the synchronous path when there is none). */
  private async decode(value: Uint8Array, rev: number, key: string): Promise<StorageObject> {
    if (!this.transformer) return decodeObject(value, rev, key);
    return decodeObject((await this.fromStorage(value, key)).data, rev, key);
  }

  /** etcd3 store.prepareKey: the full engine key. */
  prepareKey(key: string, recursive = false): string {
    const k = prepareKey(this.resourcePrefix, key, recursive);
    return this.pathPrefix + (k.startsWith('/') ? k.slice(1) : k);
  }

  async create(key: string, obj: StorageObject, ttl = 0, opts?: Pick<GetOptions, 'readOnly'>): Promise<StorageObject> {
    const preparedKey = this.prepareKey(key);
    if (obj.metadata?.resourceVersion) throw new Error(ErrResourceVersionSetOnCreate);
    const json = encodeObjectJSON(obj);
    const data = await this.toStorage(enc.encode(json), preparedKey);
    const r = await this.kv.create(preparedKey, data, ttl > 0 ? { ttlSeconds: ttl } : {});
    if (!r.succeeded) throw newKeyExistsError(preparedKey, 0);
    const out = fromJSON(json, r.revision);
    if (opts?.readOnly) this.remember(preparedKey, out);
    return out;
  }

  /** Keeps a written object for this store's watchers (bounded: nobody may be watching). */
  private remember(preparedKey: string, obj: StorageObject): void {
    if (this.written.size >= 256) this.written.clear();
    this.written.set(preparedKey, obj);
  }

  /** The object written for this event's value, if a read-only writer left it: the decoding of these bytes. */
  private takeWritten(kv: KeyValue): StorageObject | undefined {
    if (this.written.size === 0) return undefined;
    const o = this.written.get(kv.key);
    if (o?.metadata?.resourceVersion !== String(kv.modRevision)) return undefined;
    this.written.delete(kv.key);
    return o;
  }

  get(key: string, opts: GetOptions = {}): MaybePromise<StorageObject | undefined> {
    let preparedKey: string;
    try {
      preparedKey = this.prepareKey(key);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    return thenMaybe(this.kv.get(preparedKey), (r) => this.gotten(r, preparedKey, opts));
  }

  private gotten(r: GetResult, preparedKey: string, opts: GetOptions): MaybePromise<StorageObject | undefined> {
    this.validateMinimumResourceVersion(opts.resourceVersion, r.revision);
    if (!r.kv) {
      if (opts.ignoreNotFound) return undefined;
      throw newKeyNotFoundError(preparedKey, 0);
    }
    const cached = opts.cachedObject;
    // The watch cache decoded these very bytes (its object carries their revision): no second parse.
    if (cached && cached.metadata?.resourceVersion === String(r.kv.modRevision)) return cached;
    return this.transformer
      ? this.decode(r.kv.value, r.kv.modRevision, preparedKey)
      : decodeObject(r.kv.value, r.kv.modRevision, preparedKey);
  }

  async getList(key: string, opts: ListOptions): Promise<ListResult> {
    const recursive = !!opts.recursive;
    const keyPrefix = this.prepareKey(key, recursive);
    const pred = opts.predicate ?? everything;
    const paging = pred.limit > 0;
    let { withRev, continueKey } = validateListOptions(keyPrefix, opts);
    const hadContinue = !!pred.continue;

    if (!recursive) {
      // A single object: Get, then filter (etcd3 store.getList for a non-recursive key).
      const r = await this.kvRead(
        () => this.kv.get(keyPrefix, withRev ? { revision: withRev } : {}),
        withRev,
        hadContinue,
        continueKey,
        keyPrefix,
      );
      if (!withRev) {
        this.validateMinimumResourceVersion(opts.resourceVersion, r.revision);
        withRev = r.revision;
      }
      const items: StorageObject[] = [];
      if (r.kv) {
        const obj = await this.decode(r.kv.value, r.kv.modRevision, keyPrefix);
        if (pred.matches(obj)) items.push(obj);
      }
      return { items, resourceVersion: String(withRev) };
    }

    let limit = pred.limit;
    const items: StorageObject[] = [];
    let lastKey = '';
    let hasMore: boolean;
    let count: number;
    for (;;) {
      const resp = await this.kvRead(
        () =>
          this.kv.list(keyPrefix, {
            revision: withRev || undefined,
            limit: limit || undefined,
            startKey: continueKey || undefined,
          }),
        withRev,
        hadContinue,
        continueKey,
        keyPrefix,
      );
      if (!withRev) {
        this.validateMinimumResourceVersion(opts.resourceVersion, resp.revision);
        withRev = resp.revision;
      }
      if (resp.kvs.length === 0 && resp.kvs.length < resp.count) {
        throw new Error('no results were found, but etcd indicated there were more values remaining');
      }
      count = resp.count;
      const chunkHasMore = resp.kvs.length < resp.count;
      let limitReached = false;
      for (const kv of resp.kvs) {
        if (paging && items.length >= pred.limit) {
          limitReached = true;
          break;
        }
        lastKey = kv.key;
        const obj = this.transformer
          ? await this.decode(kv.value, kv.modRevision, kv.key)
          : decodeObject(kv.value, kv.modRevision, kv.key);
        if (pred.matches(obj)) items.push(obj);
      }
      hasMore = chunkHasMore || limitReached;
      if (limitReached || !chunkHasMore) break;
      if (paging && items.length >= pred.limit) break;
      if (resp.kvs.length) continueKey = resp.kvs[resp.kvs.length - 1]!.key + '\x00';
      // A selector dropped items: double the page (etcd3 store.go) up to maxLimit.
      if (limit < maxLimit) limit = Math.min(limit * 2, maxLimit);
    }
    const result: ListResult = { items, resourceVersion: String(withRev) };
    if (hasMore) {
      result.continue = encodeContinue(lastKey + '\x00', keyPrefix, withRev);
      if (pred.empty()) result.remainingItemCount = count - pred.limit;
    }
    return result;
  }

  /** Runs an engine read, mapping ErrCompacted / ErrFutureRev as etcd3 store.go does. */
  private async kvRead<T>(
    read: () => MaybePromise<T>,
    withRev: number,
    paging: boolean,
    continueKey: string,
    keyPrefix: string,
  ): Promise<T> {
    try {
      return await read();
    } catch (err) {
      if (err instanceof FutureRevisionError || (err as Error)?.name === 'FutureRevisionError') {
        // If the current revision cannot be read either, report 0 (as upstream does).
        const current = await this.kv.currentRevision().catch(() => 0);
        throw newTooLargeResourceVersionError(withRev, current, 0);
      }
      if (err instanceof CompactedError || (err as Error)?.name === 'CompactedError') {
        if (!paging) throw newResourceExpired(expiredListMessage);
        try {
          throw newInconsistentContinueError(encodeContinue(continueKey, keyPrefix, -1));
        } catch (e) {
          if (e instanceof StatusError) throw e;
          throw newResourceExpired(continueExpiredMessage);
        }
      }
      throw err;
    }
  }

  /** validateMinimumResourceVersion: 400 for a bad RV, 504 when newer than storage. */
  private validateMinimumResourceVersion(minimum: string | undefined, actual: number): void {
    if (!minimum) return;
    let rv: number;
    try {
      rv = parseResourceVersion(minimum);
    } catch (err) {
      throw newBadRequest(`invalid resource version: ${(err as Error).message}`);
    }
    if (rv > actual) throw newTooLargeResourceVersionError(rv, actual, 0);
  }

  private async stateFromKV(kv: KeyValue | undefined, key: string, ignoreNotFound: boolean): Promise<ObjState> {
    if (!kv) {
      if (!ignoreNotFound) throw newKeyNotFoundError(key, 0);
      return { obj: {}, rev: 0, exists: false, ttl: 0, stale: false };
    }
    const { data, stale } = await this.fromStorage(kv.value, key);
    return {
      obj: decodeObject(data, kv.modRevision, key),
      data,
      rev: kv.modRevision,
      exists: true,
      ttl: kv.ttlSeconds ?? 0,
      stale,
    };
  }

  private stateFromObject(obj: StorageObject): ObjState {
    const rev = parseResourceVersion(obj.metadata?.resourceVersion);
    const copy = deepCopyJSON(obj);
    return { obj: copy, data: encodeObject(copy), rev, exists: true, ttl: 0, stale: true };
  }

  async guaranteedUpdate(
    key: string,
    ignoreNotFound: boolean,
    preconditions: Preconditions | undefined,
    tryUpdate: UpdateFunc,
    cachedExistingObject?: StorageObject,
    opts?: Pick<GetOptions, 'readOnly'>,
  ): Promise<StorageObject> {
    const preparedKey = this.prepareKey(key);
    const current = async () => this.stateFromKV((await this.kv.get(preparedKey)).kv, preparedKey, ignoreNotFound);
    let state: ObjState;
    let isCurrent = false;
    if (cachedExistingObject) state = this.stateFromObject(cachedExistingObject);
    else {
      state = await current();
      isCurrent = true;
    }
    for (;;) {
      try {
        checkPreconditions(preparedKey, preconditions, state.obj);
      } catch (err) {
        if (isCurrent) throw err;
        const cachedRev = state.rev;
        state = await current();
        isCurrent = true;
        if (cachedRev === state.rev) throw err;
        continue;
      }
      // Each state's object is decoded fresh (or cloned from the cache) and handed to tryUpdate once, as
      // upstream's updateState does; tryUpdate may mutate it, so the no-op answer below re-decodes.
      const input = state.obj;
      let out: { object: StorageObject; ttl?: number };
      try {
        out = await tryUpdate(input, { ttl: state.ttl, resourceVersion: state.rev });
      } catch (err) {
        if (!isCurrent) {
          const cachedRev = state.rev;
          state = await current();
          isCurrent = true;
          if (cachedRev !== state.rev) continue;
        }
        throw err;
      }
      const json = encodeObjectJSON(out.object);
      const data = enc.encode(json);
      if (state.exists && state.data && bytesEqual(data, state.data)) {
        // Nothing to write. A cached state may be stale: confirm against storage first; bytes an
        // older key or provider wrote are rewritten with the current one.
        if (!isCurrent) {
          state = await current();
          isCurrent = true;
          continue;
        }
        if (!state.stale) return decodeObject(state.data, state.rev, preparedKey);
      }
      const ttl = out.ttl ?? 0;
      const r = await this.kv.update(
        preparedKey,
        await this.toStorage(data, preparedKey),
        state.exists ? state.rev : 0,
        ttl > 0 ? { ttlSeconds: ttl } : {},
      );
      if (!r.succeeded) {
        state = await this.stateFromKV(r.kv, preparedKey, ignoreNotFound);
        isCurrent = true;
        continue;
      }
      const written = fromJSON(json, r.revision);
      if (opts?.readOnly) this.remember(preparedKey, written);
      return written;
    }
  }

  async delete(
    key: string,
    preconditions?: Preconditions,
    validateDeletion?: ValidateObjectFunc,
    cachedExistingObject?: StorageObject,
    opts: DeleteOptions = {},
  ): Promise<StorageObject> {
    const preparedKey = this.prepareKey(key);
    const current = async () => {
      const kv = (await this.kv.get(preparedKey)).kv;
      if (opts.ignoreStoreReadError && kv) {
        // The unsafe delete of a corrupt object: no decode.
        return { obj: {}, data: kv.value, rev: kv.modRevision, exists: true, ttl: 0, stale: false } as ObjState;
      }
      return await this.stateFromKV(kv, preparedKey, false);
    };
    let state: ObjState;
    let isCurrent = false;
    if (cachedExistingObject && !opts.ignoreStoreReadError) state = this.stateFromObject(cachedExistingObject);
    else {
      state = await current();
      isCurrent = true;
    }
    const recheck = async (err: unknown): Promise<void> => {
      if (isCurrent) throw err;
      const cachedRev = state.rev;
      state = await current();
      isCurrent = true;
      if (cachedRev === state.rev) throw err;
    };
    for (;;) {
      try {
        checkPreconditions(preparedKey, preconditions, state.obj);
      } catch (err) {
        await recheck(err);
        continue;
      }
      if (validateDeletion) {
        try {
          await validateDeletion(
            state.data && !opts.ignoreStoreReadError ? decodeObject(state.data, state.rev, preparedKey) : state.obj,
          );
        } catch (err) {
          await recheck(err);
          continue;
        }
      }
      const r = await this.kv.delete(preparedKey, state.rev);
      if (!r.succeeded) {
        state = await this.stateFromKV(r.kv, preparedKey, false);
        isCurrent = true;
        continue;
      }
      if (opts.ignoreStoreReadError) return {};
      return decodeObject(state.data!, r.revision, preparedKey);
    }
  }

  async stats(): Promise<Stats> {
    const { count } = await this.kv.count(this.prepareKey(this.resourcePrefix, true));
    return { objectCount: count };
  }

  async readinessCheck(): Promise<void> {
    await this.kv.readinessCheck();
  }

  async getCurrentResourceVersion(): Promise<number> {
    const rev = await this.kv.currentRevision();
    if (rev <= 0) throw new Error('the current resource version must be greater than 0');
    return rev;
  }

  compactRevision(): number {
    return this.kv.compactRevision();
  }

  /** A bookmark object: the resource's type with only metadata.resourceVersion (watcher.go progressNotifyEvent). */
  bookmarkObject(rev: number, initialEventsEnd = false): StorageObject {
    const obj: StorageObject = { ...(this.newFunc?.() ?? {}), metadata: { resourceVersion: String(rev) } };
    if (initialEventsEnd) obj.metadata!.annotations = { [InitialEventsAnnotationKey]: 'true' };
    return obj;
  }

  async watch(key: string, opts: ListOptions): Promise<WatchInterface> {
    const recursive = !!opts.recursive;
    const preparedKey = this.prepareKey(key, recursive);
    const rev = parseResourceVersion(opts.resourceVersion);
    const pred = opts.predicate ?? everything;
    const ac = new AbortController();
    const ch = new WatchChannel(() => ac.abort());
    if (opts.signal) {
      if (opts.signal.aborted) ac.abort();
      else opts.signal.addEventListener('abort', () => ch.stop(), { once: true });
    }
    // watcher.go getStartWatchResourceVersion / areInitialEventsRequired / isInitialEventsEndBookmarkRequired.
    let initialRev = rev;
    if (rev === 0 && opts.sendInitialEvents === false) initialRev = await this.getCurrentResourceVersion();
    const forceInitialEvents = (opts.sendInitialEvents === undefined && rev === 0) || opts.sendInitialEvents === true;
    const endBookmark = opts.sendInitialEvents === true && pred.allowWatchBookmarks;
    void this.runWatch(ch, ac.signal, preparedKey, recursive, initialRev, forceInitialEvents, endBookmark, pred, opts);
    return ch;
  }

  private async runWatch(
    ch: WatchChannel,
    signal: AbortSignal,
    key: string,
    recursive: boolean,
    initialRevIn: number,
    forceInitialEvents: boolean,
    endBookmark: boolean,
    pred: SelectionPredicate,
    opts: ListOptions,
  ): Promise<void> {
    let initialRev = initialRevIn;
    const fail = (err: unknown) => {
      ch.send(errorEvent(err, this.groupResource));
      ch.close();
    };
    try {
      if (initialRev > 0 && forceInitialEvents) {
        const current = await this.getCurrentResourceVersion();
        if (initialRev > current) {
          fail(newTooLargeResourceVersionError(initialRev, current, 1));
          return;
        }
      }
      if (forceInitialEvents) {
        initialRev = await this.sync(ch, key, recursive, pred);
        if (ch.isStopped) return;
      }
      if (endBookmark) ch.send({ type: 'BOOKMARK', object: this.bookmarkObject(initialRev, true) });
      const bookmarks = !!opts.progressNotify;
      const it = this.kv.watch(recursive ? key : key, {
        startRevision: initialRev + 1,
        progressNotify: bookmarks,
        signal,
      });
      for await (const resp of it) {
        if (ch.isStopped) return;
        if (!resp.events.length) {
          if (bookmarks) ch.send({ type: 'BOOKMARK', object: this.bookmarkObject(resp.revision) });
          continue;
        }
        for (const e of resp.events) {
          // A non-recursive watch is on one key: the engine's prefix match also sees its longer siblings.
          if (!recursive && e.kv.key !== key) continue;
          const ev = await this.transform(e.type, e.kv, e.prevKv, pred);
          if (ev) ch.send(ev);
        }
      }
      if (!ch.isStopped) ch.close();
    } catch (err) {
      if (ch.isStopped) return;
      if (err instanceof CompactedError || (err as Error)?.name === 'CompactedError') {
        fail(newResourceExpired(expiredWatchMessage));
      } else if (err instanceof StatusError && err.status.code === 410) {
        // The initial sync's compacted list: the watch's 410 message.
        fail(newResourceExpired(expiredWatchMessage));
      } else fail(err);
    }
  }

  /** The initial sync: ADDED for every matching object; returns the revision it read at. */
  private async sync(ch: WatchChannel, key: string, recursive: boolean, pred: SelectionPredicate): Promise<number> {
    if (!recursive) {
      const r = await this.kv.get(key);
      if (r.kv) {
        const obj = await this.decode(r.kv.value, r.kv.modRevision, key);
        if (pred.matches(obj)) ch.send({ type: 'ADDED', object: obj });
      }
      return r.revision;
    }
    let withRev = 0;
    let startKey: string | undefined;
    for (;;) {
      const resp = await this.kv.list(key, { revision: withRev || undefined, limit: watcherSyncLimit, startKey });
      if (!withRev) withRev = resp.revision;
      for (const kv of resp.kvs) {
        const obj = await this.decode(kv.value, kv.modRevision, kv.key);
        if (pred.matches(obj)) ch.send({ type: 'ADDED', object: obj });
      }
      if (resp.kvs.length >= resp.count || !resp.kvs.length || ch.isStopped) return withRev;
      startKey = resp.kvs[resp.kvs.length - 1]!.key + '\x00';
    }
  }

  /** watcher.go transform: selector transitions turn MODIFIED into ADDED or DELETED. */
  private async transform(
    type: 'PUT' | 'DELETE',
    kv: KeyValue,
    prevKv: KeyValue | undefined,
    pred: SelectionPredicate,
  ): Promise<WatchEvent | undefined> {
    if (type === 'DELETE') {
      if (!prevKv) return undefined;
      // The deleted object carries the delete's revision.
      const old = await this.decode(prevKv.value, kv.modRevision, kv.key);
      return pred.matches(old) ? { type: 'DELETED', object: old } : undefined;
    }
    const cur = this.takeWritten(kv) ?? (await this.decode(kv.value, kv.modRevision, kv.key));
    const isCreate = !prevKv || kv.createRevision === kv.modRevision;
    if (isCreate) return pred.matches(cur) ? { type: 'ADDED', object: cur } : undefined;
    if (pred.empty()) return { type: 'MODIFIED', object: cur };
    const curPasses = pred.matches(cur);
    const old = await this.decode(prevKv!.value, kv.modRevision, kv.key);
    const oldPasses = pred.matches(old);
    if (curPasses && oldPasses) return { type: 'MODIFIED', object: cur };
    if (curPasses) return { type: 'ADDED', object: cur };
    if (oldPasses) return { type: 'DELETED', object: old };
    return undefined;
  }
}
