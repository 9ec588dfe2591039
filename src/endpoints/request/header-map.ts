// The shared response header map of a request (Go's w.Header()), as a small Headers
// implementation over a plain Map. Every request's filters set a few headers (Audit-Id,
// Cache-Control, the APF UIDs …) that are read back once; a Fetch Headers object costs each of
// those calls WebIDL conversions and brand checks, and sorts its list on every iteration.
// Behaviour is the Fetch Standard's: case-insensitive names, values trimmed of HTTP whitespace,
// invalid names or values rejected with a TypeError, `append` joining with ", " (Set-Cookie kept
// apart), iteration sorted by lower-case name.

/** RFC 9110 token: what a header name may be. */
const tokenName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Bytes a header value may not hold (and no code point above 0xFF: a ByteString). */
const invalidValue = /[\0\r\n]|[^\0-\xff]/;
/** Names already checked and lower-cased (a handful of constants in practice). */
const lowerNames = new Map<string, string>();

function lowerName(name: string): string {
  let lower = lowerNames.get(name);
  if (lower !== undefined) return lower;
  name = String(name);
  if (!tokenName.test(name)) throw new TypeError(`Headers: invalid header name: "${name}"`);
  lower = name.toLowerCase();
  if (lowerNames.size < 512) lowerNames.set(name, lower);
  return lower;
}

function normalizeValue(value: string): string {
  value = String(value);
  // Leading and trailing HTTP whitespace (tab, LF, CR, space) is removed, as Headers does.
  const n = value.length;
  if (n && (value.charCodeAt(0) <= 0x20 || value.charCodeAt(n - 1) <= 0x20))
    value = value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  if (invalidValue.test(value)) throw new TypeError(`Headers: invalid header value: "${value}"`);
  return value;
}

/**
 * A Headers (same methods and results) backed by a Map: what `newRequestContext` gives each
 * request as `responseHeaders`. Not a Fetch Headers object (`instanceof Headers` is false); it is
 * iterable, so `new Headers(map)` and `new Response(body, { headers: map })` accept it.
 */
export class HeaderMap implements Headers {
  /** Lower-case name → value (repeated values joined with ", "). */
  private readonly map = new Map<string, string>();
  /** Set-Cookie lines, one per value (never joined). */
  private cookies: string[] | undefined;

  constructor(init?: Iterable<readonly [string, string]>) {
    if (init) for (const [name, value] of init) this.append(name, value);
  }

  append(name: string, value: string): void {
    const lower = lowerName(name);
    value = normalizeValue(value);
    if (lower === 'set-cookie') (this.cookies ??= []).push(value);
    const had = this.map.get(lower);
    this.map.set(lower, had === undefined ? value : `${had}, ${value}`);
  }

  set(name: string, value: string): void {
    this.put(lowerName(name), normalizeValue(value));
  }

  /** set() with the name already lower-cased and the value normalised (copies between maps). */
  protected put(lower: string, value: string): void {
    if (lower === 'set-cookie') this.cookies = [value];
    this.map.set(lower, value);
  }

  delete(name: string): void {
    const lower = lowerName(name);
    if (lower === 'set-cookie') this.cookies = undefined;
    this.map.delete(lower);
  }

  get(name: string): string | null {
    return this.map.get(lowerName(name)) ?? null;
  }

  has(name: string): boolean {
    return this.map.has(lowerName(name));
  }

  getSetCookie(): string[] {
    return this.cookies ? [...this.cookies] : [];
  }

  /**
   * Lower-case name → value in insertion order, without sorting, when that is what the sorted
   * iteration holds name by name (no Set-Cookie lines, the one name iteration splits); else undefined.
   */
  unsorted(): ReadonlyMap<string, string> | undefined {
    return this.cookies ? undefined : this.map;
  }

  /** The names held (lower-case, insertion order). */
  protected names(): IterableIterator<string> {
    return this.map.keys();
  }

  /** Sets one checked, lower-case entry on `to`; on a HeaderMap without checking it again. */
  static copyValue(to: Headers, lower: string, value: string): void {
    if (to instanceof HeaderMap) to.put(lower, value);
    else to.set(lower, value);
  }

  /** Fetch's "sort and combine": by name, each Set-Cookie line on its own. */
  private sorted(): [string, string][] {
    const out: [string, string][] = [];
    for (const [name, value] of this.map) {
      if (name === 'set-cookie') for (const c of this.cookies ?? []) out.push([name, c]);
      else out.push([name, value]);
    }
    // Few entries: an insertion sort, stable (the Set-Cookie lines keep their order).
    for (let i = 1; i < out.length; i++) {
      const e = out[i]!;
      let j = i - 1;
      for (; j >= 0 && out[j]![0] > e[0]; j--) out[j + 1] = out[j]!;
      out[j + 1] = e;
    }
    return out;
  }

  forEach(cb: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this.sorted()) cb.call(thisArg, value, name, this);
  }

  entries(): HeadersIterator<[string, string]> {
    return this.sorted()[Symbol.iterator]() as unknown as HeadersIterator<[string, string]>;
  }

  keys(): HeadersIterator<string> {
    const names = this.sorted().map((e) => e[0]);
    return names[Symbol.iterator]() as unknown as HeadersIterator<string>;
  }

  values(): HeadersIterator<string> {
    const values = this.sorted().map((e) => e[1]);
    return values[Symbol.iterator]() as unknown as HeadersIterator<string>;
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}
