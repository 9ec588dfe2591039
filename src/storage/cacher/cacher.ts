// The watch cache: one per resource above any storage.Interface, in the spirit of
// k8s.io/apiserver/pkg/storage/cacher (cacher.go, watch_cache.go, delegator/interface.go).
// A reflector lists the resource and then watches it; the cache keeps the current objects, a ring of
// recent events (at least `eventFreshDuration`, 75 s, and at least `minEvents`, 100) and the revision
// it has seen (moved on by events and by the engine's progress notifications). Lists and gets are
// served from it by upstream's delegation rules; every watch is served from it; writes go to storage.

import { newResourceExpired, newTooManyRequests, type GroupResource } from '../../endpoints/apierrors.ts';
import { encodeContinue, parseResourceVersion, prepareKey } from '../continue.ts';
import { newKeyNotFoundError, newTooLargeResourceVersionError } from '../errors.ts';
import {
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
} from '../interfaces.ts';
import { errorEvent } from '../store.ts';
import { SortedKeys } from '../sorted-keys.ts';
import type { MaybePromise } from '../../util/maybe-promise.ts';

type Timer = ReturnType<typeof setTimeout>;
const unref = (t: Timer): Timer => {
  (t as { unref?: () => void }).unref?.();
  return t;
};

export interface CacherConfig {
  /** The storage below (the store over an engine). Writes, exact and paged reads go there. */
  storage: Interface;
  /** The resource's key prefix, as the storage's keys start (e.g. `/configmaps`). */
  resourcePrefix: string;
  groupResource: GroupResource;
  /** The key of an object (registry KeyFunc); default `<prefix>/<namespace>/<name>` or `<prefix>/<name>`. */
  keyFunc?: (obj: StorageObject) => string;
  /** apiVersion + kind for bookmark objects. */
  newFunc?: () => StorageObject;
  /** Events are kept at least this long (storagebackend DefaultEventsHistoryWindow, 75 s). */
  eventFreshDurationMs?: number;
  /** …and at least this many. */
  minEvents?: number;
  /** …and at most this many (upstream's capacity bound, 100 × 1024). */
  maxEvents?: number;
  /** Bookmarks to watchers that asked, about this often (upstream: 1 minute). */
  bookmarkIntervalMs?: number;
  /** How long a read waits for the cache to reach a requested revision before 504 (upstream: 3 s). */
  freshnessTimeoutMs?: number;
  /** How long a consistent read (RV "") waits for the cache to catch up before it is delegated to storage. */
  consistentReadWaitMs?: number;
  /** A watcher with more undelivered events than this is ended (upstream stops slow watchers too). */
  maxPendingPerWatcher?: number;
}

interface CachedEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  key: string;
  object: StorageObject;
  prevObject?: StorageObject;
  rev: number;
  at: number;
}

interface CacheWatcher {
  ch: WatchChannel;
  /** Key prefix (recursive, ends with `/`) or exact key. */
  key: string;
  recursive: boolean;
  pred: SelectionPredicate;
  /** Deliver events with rev > this. */
  fromRev: number;
  bookmarks: boolean;
  nextBookmarkAt: number;
}

const rvOf = (o: StorageObject) => Number(o.metadata?.resourceVersion ?? 0);

export class Cacher implements Interface {
  readonly storage: Interface;
  readonly resourcePrefix: string;
  readonly groupResource: GroupResource;
  private readonly keyFunc: (obj: StorageObject) => string;
  private readonly newFunc?: () => StorageObject;
  private readonly freshMs: number;
  private readonly minEvents: number;
  private readonly maxEvents: number;
  private readonly bookmarkMs: number;
  private readonly freshnessTimeoutMs: number;
  private readonly consistentWaitMs: number;
  private readonly maxPending: number;

  /** Current objects by key, and the keys in order. */
  private readonly objects = new Map<string, StorageObject>();
  private readonly keys = new SortedKeys();
  private events: CachedEvent[] = [];
  /** The revision the cache reflects (0 until the first list). */
  private rv = 0;
  /** Revision of the last (re)list: events after it are in `events`, unless trimmed. */
  private listRV = 0;
  /**
   * Every event of this prefix after this revision is in the ring (the list's revision, or the
   * last event trimmed). The cache may move past revisions with no event of its own (progress), so
   * the ring's first event says nothing about what is missing.
   */
  private evictedRV = 0;
  private readonly watchers = new Set<CacheWatcher>();
  private revWaiters: { rev: number; resolve: () => void }[] = [];
  private readyWaiters: (() => void)[] = [];
  private probeRunning?: Promise<boolean>;
  private probeQueued?: Promise<boolean>;
  private ready = false;
  private stopped = false;
  private reflectorWatch?: WatchInterface;
  private bookmarkTicker?: Timer;
  private readonly readyPromise: Promise<void>;

  constructor(cfg: CacherConfig) {
    this.storage = cfg.storage;
    this.resourcePrefix = cfg.resourcePrefix;
    this.groupResource = cfg.groupResource;
    this.keyFunc =
      cfg.keyFunc ??
      ((o) => {
        const m = o.metadata ?? {};
        return m.namespace ? `${this.resourcePrefix}/${m.namespace}/${m.name}` : `${this.resourcePrefix}/${m.name}`;
      });
    this.newFunc = cfg.newFunc;
    this.freshMs = cfg.eventFreshDurationMs ?? 75_000;
    this.minEvents = cfg.minEvents ?? 100;
    this.maxEvents = cfg.maxEvents ?? 100 * 1024;
    this.bookmarkMs = cfg.bookmarkIntervalMs ?? 60_000;
    this.freshnessTimeoutMs = cfg.freshnessTimeoutMs ?? 3000;
    this.consistentWaitMs = cfg.consistentReadWaitMs ?? 100;
    this.maxPending = cfg.maxPendingPerWatcher ?? 10_000;
    this.readyPromise = new Promise<void>((resolve) => this.readyWaiters.push(resolve));
    void this.reflect();
    const tick = Math.max(10, Math.min(1000, Math.floor(this.bookmarkMs / 4)));
    this.bookmarkTicker = unref(setInterval(() => this.sendBookmarks(), tick));
  }

  /** Resolves once the first list is in the cache. */
  waitReady(): Promise<void> {
    return this.readyPromise;
  }

  /** The revision the cache has reached. */
  get resourceVersion(): number {
    return this.rv;
  }

  stop(): void {
    this.stopped = true;
    if (this.bookmarkTicker) clearInterval(this.bookmarkTicker);
    this.reflectorWatch?.stop();
    for (const w of this.watchers) w.ch.close();
    this.watchers.clear();
  }

  // ---- reflector: list, then watch; relist on any watch error ----

  private async reflect(): Promise<void> {
    let backoff = 100;
    while (!this.stopped) {
      try {
        const list = await this.storage.getList(this.resourcePrefix, { recursive: true, resourceVersion: '' });
        if (this.stopped) return;
        this.replace(list.items, Number(list.resourceVersion));
        const w = await this.storage.watch(this.resourcePrefix, {
          recursive: true,
          resourceVersion: list.resourceVersion,
          progressNotify: true,
          predicate: everything,
        });
        this.reflectorWatch = w;
        backoff = 100;
        for await (const ev of w) {
          if (this.stopped) return;
          if (ev.type === 'ERROR') break;
          if (ev.type === 'BOOKMARK') this.advance(rvOf(ev.object));
          else this.apply(ev.type, ev.object);
        }
      } catch {
        // Storage unavailable: retry with backoff; reads delegate meanwhile.
      }
      if (this.stopped) return;
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(backoff * 2, 5000);
    }
  }

  /** A (re)list: the cache becomes the list; watchers that started earlier cannot be served the gap. */
  private replace(items: StorageObject[], rev: number): void {
    const wasReady = this.ready;
    this.objects.clear();
    for (const o of items) this.objects.set(this.keyFunc(o), o);
    this.keys.reset(this.objects.keys());
    this.events = [];
    this.listRV = rev;
    this.evictedRV = rev;
    if (wasReady) {
      // Like upstream's terminateAllWatchers on a relist: the watchers re-watch and get a 410 if needed.
      for (const w of this.watchers) w.ch.close();
      this.watchers.clear();
    }
    this.ready = true;
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const f of waiters) f();
    this.advance(rev);
  }

  private apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: StorageObject): void {
    const key = this.keyFunc(object);
    const rev = rvOf(object);
    const prevObject = this.objects.get(key);
    if (type === 'DELETED') {
      if (prevObject) {
        this.objects.delete(key);
        this.keys.delete(key);
      }
    } else {
      if (!prevObject) this.keys.insert(key);
      this.objects.set(key, object);
    }
    const ev: CachedEvent = { type, key, object, rev, at: Date.now() };
    if (prevObject) ev.prevObject = prevObject;
    this.events.push(ev);
    this.trim(ev.at);
    this.rv = Math.max(this.rv, rev);
    for (const w of this.watchers) this.dispatch(w, ev);
    this.wakeRevWaiters();
  }

  private advance(rev: number): void {
    if (rev <= this.rv) return;
    this.rv = rev;
    this.wakeRevWaiters();
  }

  /** Keep ≥ freshMs of events and ≥ minEvents, at most maxEvents. */
  private trim(now: number): void {
    let drop = 0;
    const n = this.events.length;
    while (n - drop > this.maxEvents || (n - drop > this.minEvents && this.events[drop]!.at < now - this.freshMs)) {
      drop++;
    }
    if (drop > 64 || (drop > 0 && n - drop <= this.minEvents)) {
      this.evictedRV = this.events[drop - 1]!.rev;
      this.events = this.events.slice(drop);
    }
  }

  private wakeRevWaiters(): void {
    if (!this.revWaiters.length) return;
    const still: typeof this.revWaiters = [];
    for (const w of this.revWaiters) {
      if (this.rv >= w.rev) w.resolve();
      else still.push(w);
    }
    this.revWaiters = still;
  }

  /** Waits until the cache has reached `rev`; false after `ms`. */
  private async waitUntilFresh(rev: number, ms: number): Promise<boolean> {
    if (!this.ready) {
      const ok = await Promise.race([
        this.readyPromise.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), ms)),
      ]);
      if (!ok) return false;
    }
    if (this.rv >= rev) return true;
    const deadline = Date.now() + ms;
    const reached = new Promise<boolean>((resolve) => {
      const waiter = { rev, resolve: () => resolve(true) };
      this.revWaiters.push(waiter);
      // A bounded wait inside a request: this timer keeps the process alive until it settles.
      setTimeout(() => {
        const i = this.revWaiters.indexOf(waiter);
        if (i >= 0) {
          this.revWaiters.splice(i, 1);
          resolve(false);
        }
      }, ms);
    });
    if (!this.storage.progressSince) return reached;
    // The watch alone moves the revision only with this resource's events: when the revision asked
    // for is another resource's write, storage tells whether this prefix changed since (upstream's
    // progress requester, cacher/progress/watch_progress.go, asks etcd about every 100 ms).
    let settled = false;
    void reached.then(() => (settled = true));
    while (!settled && Date.now() < deadline) {
      await this.probe();
      if (this.rv >= rev) return true;
      const pause = Math.min(50, deadline - Date.now());
      if (pause > 0) await Promise.race([reached, new Promise((r) => setTimeout(r, pause))]);
    }
    return reached;
  }

  /** One question to storage: has anything under the prefix changed since the cache's revision? */
  private async runProbe(): Promise<boolean> {
    if (!this.ready || !this.storage.progressSince) return false;
    // The revision and the object count at it, taken together (events apply synchronously).
    const since = this.rv;
    const count = this.objects.size;
    try {
      const rev = await this.storage.progressSince(since, count);
      if (rev === undefined) return false;
      this.advance(rev);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * A probe that starts after this call, so a true answer covers every write acknowledged before
   * the caller's request (a probe already running may have read too early); callers batch.
   */
  private probe(): Promise<boolean> {
    if (!this.probeRunning) {
      const p: Promise<boolean> = this.runProbe().finally(() => {
        if (this.probeRunning === p) this.probeRunning = undefined;
      });
      this.probeRunning = p;
      return p;
    }
    this.probeQueued ??= this.probeRunning.then(() => {
      this.probeQueued = undefined;
      return this.probe();
    });
    return this.probeQueued;
  }

  /** waitUntilFreshAndBlock: 504 Too large resource version when the cache cannot reach `rev` in time. */
  private async requireFresh(rev: number): Promise<void> {
    if (await this.waitUntilFresh(rev, this.freshnessTimeoutMs)) return;
    throw newTooLargeResourceVersionError(rev, this.rv, 1);
  }

  // ---- watchers ----

  private matchesKey(w: { key: string; recursive: boolean }, key: string): boolean {
    return w.recursive ? key.startsWith(w.key) : key === w.key;
  }

  private dispatch(w: CacheWatcher, ev: CachedEvent): void {
    if (ev.rev <= w.fromRev || !this.matchesKey(w, ev.key)) return;
    const out = transform(ev, w.pred);
    if (!out) return;
    if (w.ch.pending >= this.maxPending) {
      // A watcher that does not keep up is ended, as upstream's cacher does; the client re-watches.
      w.ch.close();
      this.watchers.delete(w);
      return;
    }
    w.ch.send(out);
    if (w.bookmarks) w.nextBookmarkAt = Math.max(w.nextBookmarkAt, Date.now() + this.bookmarkMs / 2);
  }

  private bookmarkObject(rev: number, initialEventsEnd = false): StorageObject {
    const obj: StorageObject = { ...(this.newFunc?.() ?? {}), metadata: { resourceVersion: String(rev) } };
    if (initialEventsEnd) obj.metadata!.annotations = { [InitialEventsAnnotationKey]: 'true' };
    return obj;
  }

  private sendBookmarks(): void {
    if (!this.watchers.size || !this.rv) return;
    const now = Date.now();
    for (const w of this.watchers) {
      if (!w.bookmarks || w.nextBookmarkAt > now || w.ch.isStopped) continue;
      w.nextBookmarkAt = now + this.bookmarkMs;
      if (this.rv > w.fromRev || w.fromRev === this.rv)
        w.ch.send({ type: 'BOOKMARK', object: this.bookmarkObject(this.rv) });
    }
  }

  async watch(key: string, opts: ListOptions): Promise<WatchInterface> {
    const recursive = !!opts.recursive;
    const k = prepareKey(this.resourcePrefix, key, recursive);
    const requested = parseResourceVersion(opts.resourceVersion);
    const pred = opts.predicate ?? everything;
    if (!this.ready && !(await this.waitUntilFresh(0, this.freshnessTimeoutMs))) {
      // ResilientWatchCacheInitialization: 429 while the cache initialises.
      throw newTooManyRequests('storage is (re)initializing', 1);
    }
    const ch = new WatchChannel(() => this.watchers.forEach((w) => w.ch === ch && this.watchers.delete(w)));
    if (opts.signal) {
      if (opts.signal.aborted) ch.stop();
      else opts.signal.addEventListener('abort', () => ch.stop(), { once: true });
    }
    const fail = (err: unknown): WatchInterface => {
      ch.send(errorEvent(err, this.groupResource));
      ch.close();
      return ch;
    };
    const rvUnset = !opts.resourceVersion;
    const initialEvents = opts.sendInitialEvents === true || (opts.sendInitialEvents === undefined && requested === 0);
    // RV unset is a consistent read: the cache first catches up with storage.
    let minRev = requested;
    if (rvUnset) {
      try {
        minRev = await this.storage.getCurrentResourceVersion();
      } catch (err) {
        return fail(err);
      }
    }
    if (minRev > this.rv && !(await this.waitUntilFresh(minRev, this.freshnessTimeoutMs))) {
      return fail(newTooLargeResourceVersionError(minRev, this.rv, 1));
    }
    // From here to registration nothing awaits: no event can slip between the snapshot and the stream.
    const w: CacheWatcher = {
      ch,
      key: k,
      recursive,
      pred,
      fromRev: 0,
      bookmarks: pred.allowWatchBookmarks,
      nextBookmarkAt: Date.now() + this.bookmarkMs,
    };
    if (initialEvents) {
      for (const obj of this.snapshot(k, recursive)) if (pred.matches(obj)) ch.send({ type: 'ADDED', object: obj });
      w.fromRev = this.rv;
      if (opts.sendInitialEvents === true && pred.allowWatchBookmarks) {
        ch.send({ type: 'BOOKMARK', object: this.bookmarkObject(this.rv, true) });
      }
    } else if (requested === 0) {
      w.fromRev = this.rv;
    } else {
      // Events strictly after `requested`, from the ring.
      if (requested < this.listRV) {
        // This cache started (or relisted) after that revision: a server started after the client's
        // last event, the one a client moving between servers often lands on. Storage still has the
        // history unless it was compacted (then it answers 410 itself): no relist needed.
        ch.stop();
        return this.storage.watch(key, opts);
      }
      if (requested < this.evictedRV) {
        return fail(newResourceExpired(`too old resource version: ${requested} (${this.evictedRV})`));
      }
      w.fromRev = requested;
      for (let i = lowerBoundRev(this.events, requested + 1); i < this.events.length; i++)
        this.dispatch(w, this.events[i]!);
    }
    if (!ch.isStopped) this.watchers.add(w);
    return ch;
  }

  /** The cached objects under a key (prefix or exact), in key order. */
  private snapshot(k: string, recursive: boolean): StorageObject[] {
    if (!recursive) {
      const o = this.objects.get(k);
      return o ? [o] : [];
    }
    const out: StorageObject[] = [];
    for (const key of this.keys.from(k)) {
      if (!key.startsWith(k)) break;
      out.push(this.objects.get(key)!);
    }
    return out;
  }

  // ---- reads ----

  get(key: string, opts: GetOptions = {}): MaybePromise<StorageObject | undefined> {
    // cacher.go Get: RV "" reads storage (most recent); otherwise the cache once it is fresh enough.
    if (!opts.resourceVersion || !this.ready) {
      // A reader that changes nothing may get the cached object when storage holds that very revision.
      // No async layer of its own here (a throw still comes back as a rejection).
      try {
        const cached = opts.readOnly && this.ready ? this.cached(key) : undefined;
        return this.storage.get(key, cached ? { ...opts, cachedObject: cached } : opts);
      } catch (err) {
        return Promise.reject(err as Error);
      }
    }
    return this.getFromCache(key, opts);
  }

  /** get() at a resourceVersion, once the cache is ready. */
  private async getFromCache(key: string, opts: GetOptions): Promise<StorageObject | undefined> {
    const k = prepareKey(this.resourcePrefix, key, false);
    let rev: number;
    try {
      rev = parseResourceVersion(opts.resourceVersion);
    } catch {
      return this.storage.get(key, opts); // storage answers the 400
    }
    if (rev > this.rv) await this.requireFresh(rev);
    const o = this.objects.get(k);
    if (!o) {
      if (opts.ignoreNotFound) return undefined;
      throw newKeyNotFoundError(k, 0);
    }
    return o;
  }

  async getList(key: string, opts: ListOptions): Promise<ListResult> {
    const pred = opts.predicate ?? everything;
    const rvStr = opts.resourceVersion ?? '';
    const match = opts.resourceVersionMatch ?? '';
    // delegator.ShouldDelegateList: Exact, legacy exact (limit + RV), and continue go to storage
    // (no snapshots of past revisions here); NotOlderThan, RV "0" and consistent reads use the cache.
    let delegate = !this.ready;
    if (match === 'Exact') delegate = true;
    else if (match === '') {
      if (pred.limit > 0 && rvStr && rvStr !== '0') delegate = true;
      else if (pred.continue) delegate = true;
    } else if (match !== 'NotOlderThan') delegate = true; // storage answers the unknown-match error
    if (delegate) return this.storage.getList(key, opts);

    const recursive = !!opts.recursive;
    const k = prepareKey(this.resourcePrefix, key, recursive);
    if (!rvStr && match === '') {
      // Consistent read (ConsistentListFromCache): served from the cache only once it has caught up
      // with storage's current revision, else from storage. Storage that can say whether the prefix
      // changed answers in one round trip; while it did change (events on the way), storage serves.
      if (this.storage.progressSince) {
        if (!(await this.probe())) return this.storage.getList(key, opts);
      } else {
        const current = await this.storage.getCurrentResourceVersion();
        if (!(await this.waitUntilFresh(current, this.consistentWaitMs))) return this.storage.getList(key, opts);
      }
    } else {
      let rev: number;
      try {
        rev = parseResourceVersion(rvStr);
      } catch {
        return this.storage.getList(key, opts); // storage answers the 400
      }
      if (rev > this.rv) await this.requireFresh(rev);
    }
    const listRV = this.rv;
    const items: StorageObject[] = [];
    let more = false;
    let total = 0;
    const snap = this.snapshot(k, recursive);
    const everythingMatches = pred.empty();
    for (const obj of snap) {
      if (!everythingMatches && !pred.matches(obj)) continue;
      total++;
      if (pred.limit > 0 && items.length >= pred.limit) {
        more = true;
        if (!everythingMatches) break;
        continue;
      }
      items.push(obj);
    }
    const result: ListResult = { items, resourceVersion: String(listRV) };
    if (more && recursive) {
      // The next pages read storage at this revision (a continue is delegated).
      const lastKey = items.length ? this.keyFunc(items[items.length - 1]!) : '';
      result.continue = encodeContinue(lastKey + '\x00', k, listRV);
      if (pred.empty()) result.remainingItemCount = total - items.length;
    }
    return result;
  }

  // ---- writes and the rest go to storage ----

  create(key: string, obj: StorageObject, ttl?: number, opts?: Pick<GetOptions, 'readOnly'>): Promise<StorageObject> {
    return this.storage.create(key, obj, ttl, opts);
  }

  delete(
    key: string,
    preconditions?: Preconditions,
    validateDeletion?: ValidateObjectFunc,
    cachedExistingObject?: StorageObject,
    opts?: DeleteOptions,
  ): Promise<StorageObject> {
    const cached = cachedExistingObject ?? this.cached(key);
    return this.storage.delete(key, preconditions, validateDeletion, cached, opts);
  }

  guaranteedUpdate(
    key: string,
    ignoreNotFound: boolean,
    preconditions: Preconditions | undefined,
    tryUpdate: UpdateFunc,
    cachedExistingObject?: StorageObject,
    opts?: Pick<GetOptions, 'readOnly'>,
  ): Promise<StorageObject> {
    const cached = cachedExistingObject ?? this.cached(key);
    return this.storage.guaranteedUpdate(key, ignoreNotFound, preconditions, tryUpdate, cached, opts);
  }

  /** The cached object as a starting point for a write (the store works on its own copy of it). */
  private cached(key: string): StorageObject | undefined {
    if (!this.ready) return undefined;
    let k: string;
    try {
      k = prepareKey(this.resourcePrefix, key, false);
    } catch {
      return undefined; // storage refuses the key with its own error
    }
    const o = this.objects.get(k);
    return o;
  }

  stats(): Promise<Stats> {
    return this.storage.stats();
  }

  async readinessCheck(): Promise<void> {
    if (!this.ready) throw new Error('storage not ready');
    await this.storage.readinessCheck();
  }

  getCurrentResourceVersion(): Promise<number> {
    return this.storage.getCurrentResourceVersion();
  }

  compactRevision(): number {
    return this.storage.compactRevision();
  }
}

function lowerBoundRev(events: CachedEvent[], rev: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (events[mid]!.rev < rev) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Selector transitions as the store's watcher (cacher.go cacheWatcher.convertToWatchEvent). */
function transform(ev: CachedEvent, pred: SelectionPredicate): WatchEvent | undefined {
  if (pred.empty()) return { type: ev.type, object: ev.object };
  const cur = ev.type !== 'DELETED' && pred.matches(ev.object);
  const old = ev.prevObject !== undefined && pred.matches(ev.prevObject);
  if (ev.type === 'DELETED') return pred.matches(ev.object) ? { type: 'DELETED', object: ev.object } : undefined;
  if (cur && old) return { type: 'MODIFIED', object: ev.object };
  if (cur) return { type: 'ADDED', object: ev.object };
  if (old) {
    // The object left the selector: DELETED with the old state at this event's revision.
    const gone = { ...ev.prevObject!, metadata: { ...ev.prevObject!.metadata, resourceVersion: String(ev.rev) } };
    return { type: 'DELETED', object: gone };
  }
  return undefined;
}
