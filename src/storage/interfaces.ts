// storage.Interface in TypeScript (k8s.io/apiserver/pkg/storage/interfaces.go), with its options,
// Preconditions (interfaces.go), SelectionPredicate (selection_predicate.go) and the watch.Interface
// of k8s.io/apimachinery/pkg/watch. Objects are plain JSON objects (apiVersion, kind, metadata …);
// the store keeps them as JSON bytes with metadata.resourceVersion and selfLink stripped and stamps
// resourceVersion on every read from the revision that wrote the value (modRevision).

import type { MaybePromise } from '../util/maybe-promise.ts';
import { newInvalidObjError } from './errors.ts';
import { everythingFields, type FieldSelector, type Fields } from './selection/fields.ts';
import { everythingLabels, type LabelSelector, type Labels } from './selection/labels.ts';

/** A stored object: any JSON object; metadata is what storage reads and stamps. */
export interface StorageObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  selfLink?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
  [field: string]: unknown;
}

/** A list as GetList returns it (the registry wraps it in its XxxList kind). */
export interface ListResult<T extends StorageObject = StorageObject> {
  items: T[];
  /** The list's metadata.resourceVersion. */
  resourceVersion: string;
  /** metadata.continue, when more items remain. */
  continue?: string;
  /** metadata.remainingItemCount: only for a paged list without label/field selectors. */
  remainingItemCount?: number;
}

/** storage.ResponseMeta, handed to a GuaranteedUpdate's tryUpdate. */
export interface ResponseMeta {
  /** Remaining TTL in seconds (0 when none). */
  ttl: number;
  /** The revision of the current object (0 when it does not exist). */
  resourceVersion: number;
}

/** storage.UpdateFunc: returns the new object and optionally a TTL in seconds. */
export type UpdateFunc<T extends StorageObject = StorageObject> = (
  input: T,
  res: ResponseMeta,
) => Promise<{ object: T; ttl?: number }> | { object: T; ttl?: number };

/** storage.ValidateObjectFunc. */
export type ValidateObjectFunc<T extends StorageObject = StorageObject> = (obj: T) => Promise<void> | void;

/** storage.Preconditions: checked against the stored object before an update or delete. */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/** Preconditions.Check: an InvalidObj storage error with upstream's message. */
export function checkPreconditions(key: string, pre: Preconditions | undefined, obj: StorageObject): void {
  if (!pre) return;
  const meta = obj.metadata ?? {};
  if (pre.uid !== undefined && pre.uid !== (meta.uid ?? '')) {
    throw newInvalidObjError(
      key,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid ?? ''}`,
    );
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== (meta.resourceVersion ?? '')) {
    throw newInvalidObjError(
      key,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ` +
        `ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`,
    );
  }
}

/** The label set and field set a predicate matches on (storage.AttrFunc). */
export type AttrFunc = (obj: StorageObject) => { labels: Labels; fields: Fields };

/** storage.DefaultClusterScopedAttr: metadata.name. */
export const defaultClusterScopedAttr: AttrFunc = (obj) => ({
  labels: obj.metadata?.labels ?? {},
  fields: { 'metadata.name': obj.metadata?.name ?? '' },
});

/** storage.DefaultNamespaceScopedAttr: metadata.name and metadata.namespace. */
export const defaultNamespaceScopedAttr: AttrFunc = (obj) => ({
  labels: obj.metadata?.labels ?? {},
  fields: { 'metadata.name': obj.metadata?.name ?? '', 'metadata.namespace': obj.metadata?.namespace ?? '' },
});

/** storage.SelectionPredicate. */
export class SelectionPredicate {
  readonly label: LabelSelector;
  readonly field: FieldSelector;
  readonly getAttrs: AttrFunc;
  /** Page size (ListOptions.limit); 0 means everything. */
  readonly limit: number;
  /** The continue token of ListOptions. */
  readonly continue: string;
  readonly allowWatchBookmarks: boolean;

  constructor(
    opts: {
      label?: LabelSelector;
      field?: FieldSelector;
      getAttrs?: AttrFunc;
      limit?: number;
      continue?: string;
      allowWatchBookmarks?: boolean;
    } = {},
  ) {
    this.label = opts.label ?? everythingLabels;
    this.field = opts.field ?? everythingFields;
    this.getAttrs = opts.getAttrs ?? defaultNamespaceScopedAttr;
    this.limit = opts.limit ?? 0;
    this.continue = opts.continue ?? '';
    this.allowWatchBookmarks = opts.allowWatchBookmarks ?? false;
  }

  /** Empty: matches everything (no label and no field selector). */
  empty(): boolean {
    return this.label.empty() && this.field.empty();
  }

  matches(obj: StorageObject): boolean {
    if (this.empty()) return true;
    const { labels, fields } = this.getAttrs(obj);
    return this.label.matches(labels) && this.field.matches(fields);
  }

  /** The name a field selector pins (metadata.name=x), for single-object lists and watches. */
  matchesSingle(): string | undefined {
    if (this.continue || this.limit) return undefined;
    return this.field.requiresExactMatch('metadata.name');
  }
}

/** SelectionPredicate that matches everything. */
export const everything = new SelectionPredicate();

export interface GetOptions {
  /** Return undefined instead of a NotFound storage error. */
  ignoreNotFound?: boolean;
  /** "" = most recent; "0" = any; other = not older than. */
  resourceVersion?: string;
  /**
   * The caller never changes the answer (a GET written straight to its response): the watch cache
   * may answer with its own object, which every list and watcher shares.
   */
  readOnly?: boolean;
  /**
   * The watch cache's object for the key: storage returns it instead of decoding the stored value
   * when it is that value's decoding (the same modRevision), as a consistent GET finds it mostly.
   */
  cachedObject?: StorageObject;
}

export type ResourceVersionMatch = '' | 'NotOlderThan' | 'Exact';

export interface ListOptions {
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  predicate?: SelectionPredicate;
  /** The key is a prefix (a collection); otherwise a single object. */
  recursive?: boolean;
  /** Watch: ask the engine for progress notifications (bookmarks when idle). */
  progressNotify?: boolean;
  /** Watch: send the current state first as ADDED events, then the initial-events-end bookmark. */
  sendInitialEvents?: boolean;
  /** Ends the watch when aborted (the request's context). */
  signal?: AbortSignal;
}

export interface DeleteOptions {
  /** Delete an object whose stored value cannot be decoded (the unsafe corrupt-object delete). */
  ignoreStoreReadError?: boolean;
}

/** storage.Stats. */
export interface Stats {
  objectCount: number;
  estimatedAverageObjectSizeBytes?: number;
}

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** watch.Event: for ERROR the object is a metav1.Status (kind Status). */
export interface WatchEvent<T extends StorageObject = StorageObject> {
  type: EventType;
  object: T;
}

/** watch.Interface: iterate for events; stop() ends the stream (the iterator then returns). */
export interface WatchInterface<T extends StorageObject = StorageObject> extends AsyncIterable<WatchEvent<T>> {
  stop(): void;
}

/** The annotation of the bookmark that ends a watch's initial events (metav1.InitialEventsAnnotationKey). */
export const InitialEventsAnnotationKey = 'k8s.io/initial-events-end';

/** storage.Interface. Keys are relative to the store's prefix (e.g. `configmaps/ns/name`). */
export interface Interface {
  /**
   * Fails with KeyExists when the key exists; `ttl` in seconds. Returns the stored object with its
   * RV; `readOnly`: the caller never changes it, so the store may share it with its watchers.
   */
  create(key: string, obj: StorageObject, ttl?: number, opts?: Pick<GetOptions, 'readOnly'>): Promise<StorageObject>;
  /** Returns the deleted object (at the revision of the delete). */
  delete(
    key: string,
    preconditions?: Preconditions,
    validateDeletion?: ValidateObjectFunc,
    cachedExistingObject?: StorageObject,
    opts?: DeleteOptions,
  ): Promise<StorageObject>;
  watch(key: string, opts: ListOptions): Promise<WatchInterface>;
  /** With ignoreNotFound, a missing key gives undefined. Synchronous when the engine's read is. */
  get(key: string, opts?: GetOptions): MaybePromise<StorageObject | undefined>;
  getList(key: string, opts: ListOptions): Promise<ListResult>;
  /** `readOnly`: as for create, the caller never changes the returned object. */
  guaranteedUpdate(
    key: string,
    ignoreNotFound: boolean,
    preconditions: Preconditions | undefined,
    tryUpdate: UpdateFunc,
    cachedExistingObject?: StorageObject,
    opts?: Pick<GetOptions, 'readOnly'>,
  ): Promise<StorageObject>;
  stats(): Promise<Stats>;
  readinessCheck(): Promise<void>;
  /** The current revision of storage (> 0). */
  getCurrentResourceVersion(): Promise<number>;
  /** The latest compacted revision known (0 when none). */
  compactRevision(): number;
  /**
   * For the watch cache over this storage (the resource's whole prefix): a revision R ≥ the current
   * one such that nothing under the prefix changed in (sinceRevision, R], given `count` objects at
   * sinceRevision; undefined when something did or it cannot tell (kv.ts KV.unchangedSince).
   */
  progressSince?(sinceRevision: number, count: number): Promise<number | undefined>;
}

/** A watch.Interface fed by push (the store's and the cacher's watchers build on it). */
export class WatchChannel<T extends StorageObject = StorageObject> implements WatchInterface<T> {
  private queue: WatchEvent<T>[] = [];
  /** Index of the next event in `queue` (shift() is O(n) on a long initial-events queue). */
  private head = 0;
  /** Consumers waiting in next(), oldest first. */
  private waiting: ((r: IteratorResult<WatchEvent<T>>) => void)[] = [];
  private stopped = false;
  private closed = false;
  private readonly onStop?: () => void;

  constructor(onStop?: () => void) {
    this.onStop = onStop;
  }

  get isStopped(): boolean {
    return this.stopped || this.closed;
  }

  /** Queued events not yet consumed. */
  get pending(): number {
    return this.queue.length - this.head;
  }

  send(ev: WatchEvent<T>): boolean {
    if (this.stopped || this.closed) return false;
    // A waiting consumer takes the event at once: one promise settles, no queue round trip.
    const w = this.waiting.shift();
    if (w) w({ value: ev, done: false });
    else this.queue.push(ev);
    return true;
  }

  /** No more events: the consumer gets what is queued, then the iterator returns. */
  close(): void {
    this.closed = true;
    if (this.waiting.length) this.stop();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.queue = [];
    this.head = 0;
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) w({ value: undefined, done: true });
    this.onStop?.();
  }

  private next(): Promise<IteratorResult<WatchEvent<T>>> {
    if (this.stopped) return Promise.resolve({ value: undefined, done: true });
    if (this.head < this.queue.length) {
      const ev = this.queue[this.head]!;
      this.queue[this.head++] = undefined!;
      if (this.head === this.queue.length) {
        this.queue = [];
        this.head = 0;
      }
      return Promise.resolve({ value: ev, done: false });
    }
    if (this.closed) {
      // Drained after close: the iteration ends, as a return from the loop would (and stops the channel).
      this.stop();
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    return {
      next: () => this.next(),
      return: () => {
        this.stop();
        return Promise.resolve({ value: undefined, done: true });
      },
      throw: (err?: unknown) => {
        this.stop();
        return Promise.reject(err);
      },
    };
  }
}
