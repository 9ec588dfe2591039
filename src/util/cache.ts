// One TTL cache for the token, client-certificate and webhook-authorizer caches: bounded, least
// recently used evicted first, each entry with its own expiry (upstream: k8s.io/apimachinery's
// util/cache LRUExpireCache, and the token cache's k8s.io/utils/lru under pkg/authentication/token/cache).
// A hit allocates nothing: one Map lookup, one clock read, and a delete/set to refresh recency.

export interface TTLCacheOptions {
  /** Maximum number of entries; the least recently used is evicted first. */
  maxEntries: number;
  /** Clock in ms (tests). Default `Date.now`. */
  now?: () => number;
}

interface Slot<V> {
  value: V;
  expires: number;
}

/**
 * A bounded map whose entries expire.
 *
 * @example
 * ```ts
 * const c = new TTLCache<string, boolean>({ maxEntries: 1024 });
 * c.set('k', true, 10_000);
 * c.get('k'); // true for 10 s, then undefined
 * ```
 */
export class TTLCache<K, V> {
  private readonly map = new Map<K, Slot<V>>();
  private readonly maxEntries: number;
  private readonly now: () => number;
  /** The slot last inserted or refreshed: the map's last entry while it is in the map. */
  private last: Slot<V> | undefined;

  constructor(options: TTLCacheOptions) {
    this.maxEntries = Math.max(1, options.maxEntries);
    this.now = options.now ?? Date.now;
  }

  /** The live value under `key` (refreshing its recency), or undefined; an expired entry is dropped. */
  get(key: K): V | undefined {
    const slot = this.map.get(key);
    if (slot === undefined) return undefined;
    if (slot.expires <= this.now()) {
      this.map.delete(key);
      if (this.last === slot) this.last = undefined;
      return undefined;
    }
    // Already the most recently used (one hot client): nothing to refresh.
    if (this.last !== slot) {
      this.map.delete(key);
      this.map.set(key, slot);
      this.last = slot;
    }
    return slot.value;
  }

  /** Stores `value` for `ttl` ms; a ttl ≤ 0 stores nothing (and drops what was there). */
  set(key: K, value: V, ttl: number): void {
    this.map.delete(key);
    if (!(ttl > 0)) return;
    while (this.map.size >= this.maxEntries) this.map.delete(this.map.keys().next().value as K);
    const slot = { value, expires: this.now() + ttl };
    this.map.set(key, slot);
    this.last = slot;
  }

  delete(key: K): void {
    this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  /** Entries held, expired ones not yet dropped included. */
  get size(): number {
    return this.map.size;
  }
}
