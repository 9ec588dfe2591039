// token/cache: caches token authentication results (success and failure TTLs), bounded, with
// concurrent misses for the same token sharing one authentication (singleflight).
// The key holds the token in process memory only (never logged).

import { TTLCache } from '../util/cache.ts';
import type { AuthenticatorResponse, MaybeAuthenticated, TokenAuthenticator } from './authenticator.ts';

export interface TokenCacheOptions {
  /** TTL of successful results in ms (kube-apiserver: 10s). */
  successTTL: number;
  /** TTL of failed results in ms (kube-apiserver: 0, not cached). */
  failureTTL: number;
  /** Whether errors (not only "no opinion") are cached under failureTTL. */
  cacheErrors?: boolean;
  /** Maximum number of entries per audience set (least recently used evicted). Default 4096. */
  maxEntries?: number;
  /** Clock in ms (tests). */
  now?: () => number;
}

interface Entry {
  resp: AuthenticatorResponse | null;
  err?: Error;
}

export class CachedTokenAuthenticator implements TokenAuthenticator {
  private readonly inner: TokenAuthenticator;
  private readonly opts: Required<TokenCacheOptions>;
  /** audiences key → token → entry: no per-request string building for the common case. */
  private readonly caches = new Map<string, TTLCache<string, Entry>>();
  private readonly inflight = new Map<string, Promise<Entry>>();
  private readonly audKeys = new WeakMap<readonly string[], string>();
  /** Counters for tests and metrics. */
  hits = 0;
  misses = 0;
  constructor(inner: TokenAuthenticator, opts: TokenCacheOptions) {
    this.inner = inner;
    this.opts = { cacheErrors: true, maxEntries: 4096, now: Date.now, ...opts };
  }

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticatorResponse | null> {
    return this.authenticateTokenFast(token, audiences);
  }

  /** A hit answers synchronously (no Promise); a miss waits for the one authentication in flight. */
  authenticateTokenFast(token: string, audiences?: readonly string[]): MaybeAuthenticated {
    const audKey = this.audiencesKey(audiences);
    const e = this.caches.get(audKey)?.get(token);
    if (e !== undefined) {
      this.hits++;
      return result(e);
    }
    this.misses++;
    const key = audKey + '\u0001' + token;
    let p = this.inflight.get(key);
    if (!p) {
      p = this.fill(key, audKey, token, audiences);
      this.inflight.set(key, p);
    }
    return p.then(result);
  }

  private audiencesKey(audiences?: readonly string[]): string {
    if (!audiences?.length) return '';
    let k = this.audKeys.get(audiences);
    if (k === undefined) {
      k = audiences.join('\0');
      this.audKeys.set(audiences, k);
    }
    return k;
  }

  private async fill(key: string, audKey: string, token: string, audiences?: readonly string[]): Promise<Entry> {
    let entry: Entry;
    try {
      entry = { resp: await this.inner.authenticateToken(token, audiences) };
    } catch (err) {
      entry = { resp: null, err: err instanceof Error ? err : new Error(String(err)) };
    } finally {
      this.inflight.delete(key);
    }
    const ok = entry.resp !== null;
    const ttl = ok ? this.opts.successTTL : this.opts.failureTTL;
    if (ttl > 0 && (ok || !entry.err || this.opts.cacheErrors)) {
      let c = this.caches.get(audKey);
      if (!c) this.caches.set(audKey, (c = new TTLCache({ maxEntries: this.opts.maxEntries, now: this.opts.now })));
      c.set(token, entry, ttl);
    }
    return entry;
  }

  /** Entries held (each audience set is bounded by maxEntries on its own). */
  get size(): number {
    let n = 0;
    for (const c of this.caches.values()) n += c.size;
    return n;
  }
}

function result(e: Entry): AuthenticatorResponse | null {
  if (e.err) throw e.err;
  return e.resp;
}
