// The key index of the memory engine and of the watch cache: keys in order, for range reads
// (a list walks the keys from its prefix). One sorted array made every new key a splice of the
// whole array: V8 moves every element after the slot, 4–250 µs per insert at tens of thousands
// of keys; and rebuilding it by spreading the keys into push() overflows the stack past ~125k.
// Blocks of at most 2 × BLOCK keys keep an insert or delete to a binary search and a short
// splice. (Upstream's watch cache keeps a B-tree for the same reason:
// staging/src/k8s.io/apiserver/pkg/storage/cacher/store_btree.go.)

const BLOCK = 512;

/** The index of the first element of `arr` ≥ key. */
function lowerBound(arr: readonly string[], key: string): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class SortedKeys {
  /** Non-empty blocks, each sorted, each block's keys below the next block's. */
  private blocks: string[][] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The block holding the first key ≥ key (blocks.length when every key is below it). */
  private blockOf(key: string): number {
    let lo = 0;
    let hi = this.blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const b = this.blocks[mid]!;
      if (b[b.length - 1]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Adds key; false when it is already there. */
  insert(key: string): boolean {
    if (!this.blocks.length) {
      this.blocks.push([key]);
      this.count = 1;
      return true;
    }
    const bi = Math.min(this.blockOf(key), this.blocks.length - 1);
    const block = this.blocks[bi]!;
    const i = lowerBound(block, key);
    if (block[i] === key) return false;
    block.splice(i, 0, key);
    this.count++;
    if (block.length > 2 * BLOCK) this.blocks.splice(bi + 1, 0, block.splice(BLOCK));
    return true;
  }

  /** Removes key; false when it was not there. */
  delete(key: string): boolean {
    const bi = this.blockOf(key);
    const block = this.blocks[bi];
    if (!block) return false;
    const i = lowerBound(block, key);
    if (block[i] !== key) return false;
    block.splice(i, 1);
    this.count--;
    if (!block.length) this.blocks.splice(bi, 1);
    return true;
  }

  /** The keys ≥ start, in order (stop iterating to end early). */
  *from(start: string): Generator<string, void, undefined> {
    let bi = this.blockOf(start);
    const first = this.blocks[bi];
    if (!first) return;
    for (let i = lowerBound(first, start); i < first.length; i++) yield first[i]!;
    for (bi++; bi < this.blocks.length; bi++) yield* this.blocks[bi]!;
  }

  /** Replaces the contents with these keys (in any order, distinct). */
  reset(keys: Iterable<string>): void {
    const sorted = Array.from(keys).sort();
    this.blocks = [];
    for (let i = 0; i < sorted.length; i += BLOCK) this.blocks.push(sorted.slice(i, i + BLOCK));
    this.count = sorted.length;
  }

  /** Every key, in order. */
  toArray(): string[] {
    return this.blocks.flat();
  }
}
