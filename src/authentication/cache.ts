// token/cache: caches token authentication results (success and failure TTLs), bounded, with
// concurrent misses for the same token sharing one authentication (singleflight).
// The key holds the token in process memory only (never logged).

import type { AuthenticatorResponse, TokenAuthenticator } from './authenticator.ts';

export interface TokenCacheOptions {
  /** TTL of successful results in ms (kube-apiserver: 10s). */
  successTTL: number;
  /** TTL of failed results in ms (kube-apiserver: 0, not cached). */
  failureTTL: number;
  /** Whether errors (not only "no opinion") are cached under failureTTL. */
  cacheErrors?: boolean;
  /** Maximum number of entries (oldest-used evicted). Default 4096. */
  maxEntries?: number;
  /** Clock in ms (tests). */
  now?: () => number;
}

interface Entry {
  expires: number;
  resp: AuthenticatorResponse | null;
  err?: Error;
}

export class CachedTokenAuthenticator implements TokenAuthenticator {
  private readonly inner: TokenAuthenticator;
  private readonly opts: Required<TokenCacheOptions>;
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Entry>>();
  /** Counters for tests and metrics. */
  hits = 0;
  misses = 0;
  constructor(inner: TokenAuthenticator, opts: TokenCacheOptions) {
    this.inner = inner;
    this.opts = { cacheErrors: true, maxEntries: 4096, now: Date.now, ...opts };
  }

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticatorResponse | null> {
    const key = audiences?.length ? audiences.join('\0') + '\u0001' + token : token;
    const e = this.entries.get(key);
    if (e) {
      if (e.expires > this.opts.now()) {
        this.hits++;
        // Refresh recency (LRU).
        this.entries.delete(key);
        this.entries.set(key, e);
        return result(e);
      }
      this.entries.delete(key);
    }
    this.misses++;
    let p = this.inflight.get(key);
    if (!p) {
      p = this.fill(key, token, audiences);
      this.inflight.set(key, p);
    }
    return result(await p);
  }

  private async fill(key: string, token: string, audiences?: readonly string[]): Promise<Entry> {
    let entry: Entry;
    try {
      const resp = await this.inner.authenticateToken(token, audiences);
      entry = { resp, expires: 0 };
    } catch (err) {
      entry = { resp: null, err: err instanceof Error ? err : new Error(String(err)), expires: 0 };
    } finally {
      this.inflight.delete(key);
    }
    const ok = entry.resp !== null;
    const ttl = ok ? this.opts.successTTL : this.opts.failureTTL;
    if (ttl > 0 && (ok || !entry.err || this.opts.cacheErrors)) {
      entry.expires = this.opts.now() + ttl;
      if (this.entries.size >= this.opts.maxEntries) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
      this.entries.set(key, entry);
    }
    return entry;
  }

  get size(): number {
    return this.entries.size;
  }
}

function result(e: Entry): AuthenticatorResponse | null {
  if (e.err) throw e.err;
  return e.resp;
}
