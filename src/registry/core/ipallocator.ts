// Service cluster IPs: the range (--service-cluster-ip-range, kube's cmd/kube-apiserver/app/options
// and pkg/controlplane ServiceIPRange) and the allocator (pkg/registry/core/service/ipallocator):
// one IPAddress object per allocated IP under /registry/ipaddresses/<ip>, created atomically so two
// servers never hand out the same address; dynamic allocation prefers the upper band of the range
// (ServiceIPStaticSubrange), keeping the lower band for IPs users choose.

/** A parsed CIDR: the network address as a bigint, its prefix length and the address width. */
export interface CIDR {
  readonly text: string;
  readonly base: bigint;
  readonly prefix: number;
  readonly bits: 32 | 128;
}

/** Parses an IPv4 or IPv6 address (netip-style; IPv4-mapped IPv6 stays IPv6); undefined when invalid. */
export function parseIP(s: string): { value: bigint; bits: 32 | 128 } | undefined {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(s)) {
    const parts = s.split('.').map(Number);
    if (parts.some((p, i) => p > 255 || (s.split('.')[i]!.length > 1 && s.split('.')[i]!.startsWith('0'))))
      return undefined;
    return { value: parts.reduce((a, p) => (a << 8n) | BigInt(p), 0n), bits: 32 };
  }
  if (!s.includes(':') || !/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string): number[] | undefined => {
    if (h === '') return [];
    const out: number[] = [];
    const parts = h.split(':');
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (i === parts.length - 1 && p.includes('.')) {
        const v4 = parseIP(p);
        if (!v4 || v4.bits !== 32) return undefined;
        out.push(Number(v4.value >> 16n), Number(v4.value & 0xffffn));
      } else if (/^[0-9a-fA-F]{1,4}$/.test(p)) out.push(parseInt(p, 16));
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  const fill = 8 - head.length - tail.length;
  if (halves.length === 1 ? fill !== 0 : fill < 1) return undefined;
  const all = [...head, ...new Array<number>(halves.length === 2 ? fill : 0).fill(0), ...tail];
  return { value: all.reduce((a, g) => (a << 16n) | BigInt(g), 0n), bits: 128 };
}

/** The canonical text of an address (net.IP.String: dotted quad, or RFC 5952 IPv6). */
export function formatIP(value: bigint, bits: 32 | 128): string {
  if (bits === 32) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  // The longest run of ≥ 2 zero groups becomes `::`.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

/** netutils.ParseCIDRSloppy; undefined when invalid. The base is masked (10.0.0.5/24 → 10.0.0.0/24). */
export function parseCIDR(s: string): CIDR | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(s.slice(0, slash));
  const pfx = s.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(pfx) || Number(pfx) > ip.bits) return undefined;
  const prefix = Number(pfx);
  const host = (1n << BigInt(ip.bits - prefix)) - 1n;
  const base = ip.value & ~host & ((1n << BigInt(ip.bits)) - 1n);
  return { text: `${formatIP(base, ip.bits)}/${prefix}`, base, prefix, bits: ip.bits };
}

/** The range's allocatable addresses: without the network address, and for IPv4 the broadcast. */
function bounds(c: CIDR): { first: bigint; size: bigint } {
  const total = 1n << BigInt(c.bits - c.prefix);
  if (c.bits === 32) return total <= 2n ? { first: c.base, size: total } : { first: c.base + 1n, size: total - 2n };
  return total <= 1n ? { first: c.base, size: total } : { first: c.base + 1n, size: total - 1n };
}

export function contains(c: CIDR, ip: string): boolean {
  const p = parseIP(ip);
  if (!p || p.bits !== c.bits) return false;
  const { first, size } = bounds(c);
  return p.value >= first && p.value < first + size;
}

/** controlplane.ServiceIPRange: the first address of the range is the `kubernetes` service's. */
export function firstServiceIP(c: CIDR): string {
  return formatIP(c.base + 1n, c.bits);
}

export const DefaultServiceIPCIDR = '10.0.0.0/24';

/**
 * The lower band reserved for static allocation (ipallocator calculateRangeOffset):
 * min(max(16, size/16), 256) addresses, none for ranges under 16.
 */
export function rangeOffset(c: CIDR): bigint {
  const { size } = bounds(c);
  if (size < 16n) return 0n;
  const o = size / 16n;
  return o < 16n ? 16n : o > 256n ? 256n : o;
}

/** Picks addresses to try, dynamic band first (random start, then sequential), then the static band. */
export function* candidates(c: CIDR, random: () => number = Math.random): Generator<string> {
  const { first, size } = bounds(c);
  const offset = rangeOffset(c);
  const bands: [bigint, bigint][] = [
    [offset, size],
    [0n, offset],
  ];
  for (const [lo, hi] of bands) {
    const n = hi - lo;
    if (n <= 0n) continue;
    // A random start; up to 2^53 addresses are addressed exactly enough.
    const start = BigInt(Math.floor(random() * Number(n > 2n ** 53n ? 2n ** 53n : n)));
    for (let i = 0n; i < n; i++) yield formatIP(first + lo + ((start + i) % n), c.bits);
  }
}

/** An IPv4 or IPv6 family name as Service.spec.ipFamilies spells it. */
export const ipFamily = (c: CIDR): 'IPv4' | 'IPv6' => (c.bits === 32 ? 'IPv4' : 'IPv6');
