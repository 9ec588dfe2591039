// The keys of a store in order, for range reads by prefix: a two-level B+tree of sorted chunks, as
// the watch cache (k8s.io/apiserver/pkg/storage/cacher/store_btree.go) and etcd's key index
// (server/storage/mvcc/index.go) keep theirs in a btree. One sorted array would make every new key
// an O(n) splice, the larger part of a create once a resource has some ten thousand objects.

/** Keys per chunk before it splits in two. */
const maxChunk = 512;

/** Index of the first element ≥ key in a sorted array. */
export function lowerBound(arr: readonly string[], key: string): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A set of strings in UTF-16 order (byte order for the ASCII keys stores write). */
export class SortedKeys {
  /** Non-empty sorted chunks; each chunk's keys are below the next chunk's. */
  private chunks: string[][] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The chunk that holds key or would: the first whose last key is ≥ key, else the last one. */
  private chunkFor(key: string): number {
    const chunks = this.chunks;
    let lo = 0;
    let hi = chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = chunks[mid]!;
      if (c[c.length - 1]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Adds key; false if it was there. */
  insert(key: string): boolean {
    if (this.chunks.length === 0) {
      this.chunks.push([key]);
      this.count = 1;
      return true;
    }
    const ci = this.chunkFor(key);
    const chunk = this.chunks[ci]!;
    const i = lowerBound(chunk, key);
    if (chunk[i] === key) return false;
    if (i === chunk.length) chunk.push(key);
    else chunk.splice(i, 0, key);
    this.count++;
    if (chunk.length > maxChunk) this.chunks.splice(ci + 1, 0, chunk.splice(chunk.length >>> 1));
    return true;
  }

  /** Removes key; false if it was not there. */
  delete(key: string): boolean {
    if (this.chunks.length === 0) return false;
    const ci = this.chunkFor(key);
    const chunk = this.chunks[ci]!;
    const i = lowerBound(chunk, key);
    if (chunk[i] !== key) return false;
    chunk.splice(i, 1);
    this.count--;
    if (chunk.length === 0) this.chunks.splice(ci, 1);
    return true;
  }

  /** Replaces the contents with these keys (sorted, without duplicates). */
  assign(sorted: readonly string[]): void {
    this.chunks = [];
    for (let i = 0; i < sorted.length; i += maxChunk) this.chunks.push(sorted.slice(i, i + maxChunk));
    this.count = sorted.length;
  }

  /** Keeps the keys `keep` says yes to. */
  retain(keep: (key: string) => boolean): void {
    const kept: string[] = [];
    this.forEachFrom('', (k) => {
      if (keep(k)) kept.push(k);
    });
    this.assign(kept);
  }

  /** Calls visit on each key ≥ start in order until it returns false. */
  forEachFrom(start: string, visit: (key: string) => boolean | void): void {
    const chunks = this.chunks;
    if (chunks.length === 0) return;
    let ci = this.chunkFor(start);
    let i = lowerBound(chunks[ci]!, start);
    for (; ci < chunks.length; ci++, i = 0) {
      const chunk = chunks[ci]!;
      for (; i < chunk.length; i++) if (visit(chunk[i]!) === false) return;
    }
  }

  /** All keys in order. */
  toArray(): string[] {
    return this.chunks.flat();
  }
}
