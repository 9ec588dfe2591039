// SNI certificate selection as upstream's dynamic serving controller and Go's crypto/tls
// (dynamiccertificates/named_certificates.go): names extracted from certificates (CN if a DNS name, DNS SANs, never
// IPs), explicit names beat extracted ones, earlier --tls-sni-cert-key entries beat later ones;
// per handshake: exact name, then one-label wildcard, then the default certificate.

import * as x509 from './x509.ts';
import { isIP } from '../../util/net.ts';

const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** validation.IsDNS1123Subdomain. */
export function isDNS1123Subdomain(s: string): boolean {
  return s.length > 0 && s.length <= 253 && dns1123Subdomain.test(s);
}

/** getCertificateNames: the CN when it is a DNS name (not an IP), then the DNS SANs. */
export function getCertificateNames(cert: x509.X509Certificate): string[] {
  const names: string[] = [];
  const cn = cert.subjectName.getField('CN')[0] ?? '';
  const cnIsValidDomain = cn === '*' || isDNS1123Subdomain(cn.startsWith('*.') ? cn.slice(2) : cn);
  if (cn && !isIP(cn) && cnIsValidDomain) names.push(cn);
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  for (const n of san?.names.items ?? []) if (n.type === 'dns') names.push(n.value);
  return names;
}

export interface SNICandidate<T> {
  /** Names from --tls-sni-cert-key (or the loopback name); empty means "extract". */
  explicitNames: readonly string[];
  /** The leaf, to extract names from when there are no explicit ones. */
  leaf?: x509.X509Certificate;
  value: T;
}

/** The name → certificate map (explicit names first, earlier entries win). */
export function buildNameToCertificate<T>(candidates: readonly SNICandidate<T>[]): Map<string, T> {
  const explicit = new Map<string, T>();
  const implicit = new Map<string, T>();
  for (let i = candidates.length - 1; i >= 0; i--) {
    const c = candidates[i]!;
    if (c.explicitNames.length) for (const n of c.explicitNames) explicit.set(n.toLowerCase(), c.value);
    else if (c.leaf) for (const n of getCertificateNames(c.leaf)) implicit.set(n.toLowerCase(), c.value);
  }
  const byName = new Map(explicit);
  for (const [n, v] of implicit) if (!byName.has(n)) byName.set(n, v);
  return byName;
}

/** Go's per-handshake lookup: exact lower-cased name, then `*.` + all but the first label. */
export function selectByServerName<T>(byName: ReadonlyMap<string, T>, serverName: string): T | undefined {
  const name = serverName.toLowerCase();
  const exact = byName.get(name);
  if (exact !== undefined || !name) return exact;
  const labels = name.split('.');
  labels[0] = '*';
  return byName.get(labels.join('.'));
}

/** Without SNI, upstream looks up the connection's local IP (only explicit IP names match). */
export function selectByLocalAddress<T>(
  byName: ReadonlyMap<string, T>,
  localAddress: string | undefined,
): T | undefined {
  if (!localAddress) return undefined;
  const ip = localAddress.startsWith('::ffff:') && isIP(localAddress.slice(7)) ? localAddress.slice(7) : localAddress;
  return isIP(ip) ? byName.get(ip.toLowerCase()) : undefined;
}
