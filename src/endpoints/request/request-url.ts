// The request's URL for the chain. Nearly every request reads only `pathname` and `search`
// (request info, the director, metrics, APF), and a URL parse is a measurable part of a cheap
// request. When WHATWG parsing provably leaves the path and query of `href` as they are (a URL
// the Request constructor serialised always qualifies, and so does the usual request line),
// both are cut out of the string and a URL is parsed only if something asks for more.

/**
 * `parseRequestURL(href)`: a URL (`instanceof URL`), parsed in full only when a reader needs it.
 * `href` is a request's URL (`Request.url`, valid by construction): a host or port URL would
 * refuse is not looked at until something reads the host.
 */
export function parseRequestURL(href: string): URL {
  return (cutURL(href) as unknown as URL | undefined) ?? new URL(href);
}

/** Letters, digits and `. - _ : [ ]`. */
const authorityByte = Array.from({ length: 128 }, (_, c) => /[A-Za-z0-9._:[\]-]/.test(String.fromCharCode(c)));

/**
 * A RequestURL over `href` when it is `http(s)://authority/path[?query]` with only characters WHATWG
 * keeps as they are in a path (no percent-encode set member, no backslash) or query, and no
 * dot segment (`/.` or `/%2e` anywhere is enough to fall back); undefined otherwise.
 */
function cutURL(href: string): RequestURL | undefined {
  let i: number;
  if (href.startsWith('https://')) i = 8;
  else if (href.startsWith('http://')) i = 7;
  else return undefined;
  // The authority (up to the first '/'): letters, digits and . - _ : [ ] only; anything else
  // (userinfo, escapes …), or none at all, is left to the URL parser.
  const authority = i;
  for (; i < href.length; i++) {
    const c = href.charCodeAt(i);
    if (c === 47) break; // '/'
    if (!authorityByte[c]) return undefined;
  }
  const start = i;
  if (start === authority || start === href.length) return undefined;
  let q = -1;
  for (; i < href.length; i++) {
    const c = href.charCodeAt(i);
    if (c === 63) {
      q = i;
      break;
    }
    // Outside 0x21–0x7E, or one of " # < > \ ` { }: WHATWG encodes (or ends the path at '#').
    if (c <= 0x20 || c >= 0x7f || c === 34 || c === 35 || c === 60 || c === 62 || c === 92 || c === 96)
      return undefined;
    if (c === 123 || c === 125) return undefined;
    if (c === 47 && i + 1 < href.length) {
      const n = href.charCodeAt(i + 1);
      if (n === 46 || (n === 37 && href.charCodeAt(i + 2) === 50 && (href.charCodeAt(i + 3) | 0x20) === 101))
        return undefined;
    }
  }
  const pathname = href.slice(start, q < 0 ? href.length : q);
  if (q < 0 || q === href.length - 1) return new RequestURL(href, pathname, '');
  for (let j = q + 1; j < href.length; j++) {
    const c = href.charCodeAt(j);
    // The special-query percent-encode set: C0, space, " # < > ' and above 0x7E.
    if (c <= 0x20 || c >= 0x7f || c === 34 || c === 35 || c === 60 || c === 62 || c === 39) return undefined;
  }
  return new RequestURL(href, pathname, href.slice(q));
}

const realURL = Symbol('realURL');

/**
 * Pathname and search from the string; every other member (and any write) from a URL parsed on
 * first use, which from then on answers for all of them.
 */
class RequestURL {
  readonly #href: string;
  readonly #pathname: string;
  readonly #search: string;
  #url: URL | undefined;

  constructor(href: string, pathname: string, search: string) {
    this.#href = href;
    this.#pathname = pathname;
    this.#search = search;
  }

  [realURL](): URL {
    return (this.#url ??= new URL(this.#href));
  }

  get pathname(): string {
    return this.#url ? this.#url.pathname : this.#pathname;
  }
  set pathname(v: string) {
    this[realURL]().pathname = v;
  }
  get search(): string {
    return this.#url ? this.#url.search : this.#search;
  }
  set search(v: string) {
    this[realURL]().search = v;
  }
  get searchParams(): URLSearchParams {
    return this[realURL]().searchParams;
  }
  toString(): string {
    return this[realURL]().href;
  }
  toJSON(): string {
    return this[realURL]().href;
  }
  [Symbol.for('nodejs.util.inspect.custom')](): URL {
    return this[realURL]();
  }
}
for (const k of ['hash', 'host', 'hostname', 'href', 'origin', 'password', 'port', 'protocol', 'username'] as const) {
  Object.defineProperty(RequestURL.prototype, k, {
    get(this: RequestURL) {
      return this[realURL]()[k];
    },
    set(this: RequestURL, v: string) {
      (this[realURL]() as unknown as Record<string, string>)[k] = v;
    },
  });
}
Object.setPrototypeOf(RequestURL.prototype, URL.prototype);
