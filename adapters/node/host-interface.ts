// utilnet.ChooseHostInterface (k8s.io/apimachinery/pkg/util/net/interface.go) for Node: the IP of
// the interface holding the default route (/proc/net/route, then /proc/net/ipv6_route), IPv4
// first; without default routes, the first global unicast address of any up, non-loopback
// interface (IPv4 before IPv6). The advertise address when --advertise-address is not given.

import { readFileSync } from 'node:fs';
import os from 'node:os';

type Family = 'IPv4' | 'IPv6';

interface Route {
  iface: string;
  family: Family;
}

/** Default routes (destination 0.0.0.0/0 or ::/0) from the kernel's route tables; null: no tables. */
export function defaultRoutes(read: (path: string) => string = (p) => readFileSync(p, 'utf8')): Route[] | null {
  let v4: string;
  try {
    v4 = read('/proc/net/route');
  } catch {
    return null;
  }
  const routes: Route[] = [];
  // Iface Destination Gateway Flags RefCnt Use Metric Mask …; the header line comes first.
  for (const line of v4.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length >= 8 && f[1] === '00000000' && f[7] === '00000000') routes.push({ iface: f[0]!, family: 'IPv4' });
  }
  try {
    // dest destlen src srclen nexthop metric refcnt use flags iface
    for (const line of read('/proc/net/ipv6_route').split('\n')) {
      const f = line.trim().split(/\s+/);
      if (f.length >= 10 && /^0{32}$/.test(f[0]!) && f[1] === '00' && f[9] !== 'lo')
        routes.push({ iface: f[9]!, family: 'IPv6' });
    }
  } catch {
    // No IPv6.
  }
  return routes;
}

/** net.IP.IsGlobalUnicast for the addresses os.networkInterfaces() reports. */
export function isGlobalUnicast(address: string, family: Family): boolean {
  if (family === 'IPv4') {
    const [a, b] = address.split('.').map(Number) as [number, number];
    if (a === 0 || a === 127 || a >= 224) return false; // unspecified, loopback, multicast, broadcast
    return !(a === 169 && b === 254); // link-local
  }
  const a = address.toLowerCase();
  if (a === '::' || a === '::1' || a.startsWith('ff')) return false;
  return !/^fe[89ab]/.test(a);
}

type Interfaces = ReturnType<typeof os.networkInterfaces>;

function ipOf(ifaces: Interfaces, name: string, family: Family): string | undefined {
  for (const a of ifaces[name] ?? []) if (a.family === family && isGlobalUnicast(a.address, family)) return a.address;
  return undefined;
}

/** ChooseHostInterface: the IP, or throws upstream's error text. */
export function chooseHostInterface(
  ifaces: Interfaces = os.networkInterfaces(),
  routes: Route[] | null = defaultRoutes(),
): string {
  if (routes === null || routes.length === 0) {
    // chooseIPFromHostInterfaces: every interface, IPv4 first.
    for (const family of ['IPv4', 'IPv6'] as const) {
      for (const [name, addrs] of Object.entries(ifaces)) {
        if (addrs?.some((a) => a.internal)) continue;
        const ip = ipOf(ifaces, name, family);
        if (ip) return ip;
      }
    }
    throw new Error('no acceptable interface with global unicast address found on host');
  }
  for (const family of ['IPv4', 'IPv6'] as const) {
    for (const r of routes) {
      if (r.family !== family) continue;
      const ip = ipOf(ifaces, r.iface, family);
      if (ip) return ip;
    }
  }
  throw new Error('unable to select an IP from default routes.');
}
