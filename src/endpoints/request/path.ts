// Go's URL.Path: the percent-decoded path. Go accepts any escaped bytes (even invalid UTF-8)
// but rejects a malformed escape ("%zz") before any handler runs.

const cache = new WeakMap<URL, string | null>();
const malformedEscape = /%(?![0-9a-fA-F]{2})/;

/** The decoded path of `url`, or null when it contains a malformed percent-escape. */
export function decodedPath(url: URL): string | null {
  const raw = url.pathname;
  if (!raw.includes('%')) return raw; // nothing to decode: skip the cache
  let p = cache.get(url);
  if (p !== undefined) return p;
  p = decode(raw);
  cache.set(url, p);
  return p;
}

function decode(raw: string): string | null {
  if (!raw.includes('%')) return raw;
  if (malformedEscape.test(raw)) return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    // Valid escapes but invalid UTF-8: decode the bytes leniently, as Go keeps them.
    const bytes: number[] = [];
    for (let i = 0; i < raw.length; i++) {
      if (raw[i] === '%') {
        bytes.push(Number.parseInt(raw.slice(i + 1, i + 3), 16));
        i += 2;
      } else {
        for (const b of new TextEncoder().encode(raw[i]!)) bytes.push(b);
      }
    }
    return new TextDecoder().decode(new Uint8Array(bytes));
  }
}
