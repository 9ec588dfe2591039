// IP address syntax (Go's net.ParseIP, as k8s.io/utils/net uses it), for flags and certificates.

/** net.ParseIP, enough for flags: dotted IPv4 or RFC 4291 IPv6 text. */
export function isIP(s: string): boolean {
  return isIPv4(s) || isIPv6(s);
}

export function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

export function isIPv6(s: string): boolean {
  if (!s.includes(':')) return false;
  let body = s;
  let groupsNeeded = 8;
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!isIPv4(tail)) return false;
    body = s.slice(0, lastColon + 1) + '0';
    groupsNeeded = 7;
  }
  const halves = body.split('::');
  if (halves.length > 2) return false;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const all = halves.flatMap(groups);
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  return halves.length === 2 ? all.length < groupsNeeded : all.length === groupsNeeded;
}
