// Client certificates that reach the handler through the platform instead of the TLS socket:
// RFC 9440 `Client-Cert` / `Client-Cert-Chain` headers set by a trusted proxy (Cloudflare's
// managed transform, an ingress), Cloudflare's request.cf.tlsClientAuth, and PEM from API
// Gateway's mTLS context. All produce Transport.peerCertificates (DER, leaf first); the x509
// authenticator still verifies the chain against --client-ca-file.

import { decodeBase64 } from '../../util/base64.ts';

/** Decodes an RFC 8941 byte sequence `:base64:` (colons optional). Undefined when malformed. */
export function parseSfBinary(value: string): Uint8Array | undefined {
  let v = value.trim();
  if (v.startsWith(':') && v.endsWith(':') && v.length >= 2) v = v.slice(1, -1);
  if (!v || !/^[A-Za-z0-9+/]+={0,2}$/.test(v)) return undefined;
  try {
    return decodeBase64(v);
  } catch {
    return undefined;
  }
}

/** `Client-Cert` (leaf) + `Client-Cert-Chain` (list of intermediates) → DER chain, leaf first. */
export function parseRFC9440(leaf: string | null | undefined, chain?: string | null): Uint8Array[] {
  if (!leaf) return [];
  const der = parseSfBinary(leaf);
  if (!der) return [];
  const out = [der];
  if (chain) {
    for (const item of chain.split(',')) {
      const c = parseSfBinary(item);
      if (c) out.push(c);
    }
  }
  return out;
}

/** Every `-----BEGIN CERTIFICATE-----` block of a PEM bundle, as DER. */
export function pemCertificatesToDER(pem: string | undefined): Uint8Array[] {
  if (!pem) return [];
  const out: Uint8Array[] = [];
  const re = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;
  for (let m = re.exec(pem); m; m = re.exec(pem)) {
    const der = parseSfBinary(m[1]!.replace(/\s+/g, ''));
    if (der) out.push(der);
  }
  return out;
}

/** The string-valued fields of Cloudflare's `request.cf.tlsClientAuth` that we read. */
export interface CloudflareTLSClientAuth {
  certPresented?: string;
  certVerified?: string;
  certRevoked?: string;
  certRFC9440?: string;
  certRFC9440TooLarge?: boolean | string;
  certChainRFC9440?: string;
  certChainRFC9440TooLarge?: boolean | string;
}

/**
 * Peer certificates from Cloudflare mTLS. Every field is a string (`"1"`, `"SUCCESS"`, not
 * booleans, whatever the docs' example tests); only a presented, verified, unrevoked certificate counts.
 */
export function cloudflareClientCertificates(auth: CloudflareTLSClientAuth | undefined | null): Uint8Array[] {
  if (!auth) return [];
  if (auth.certPresented !== '1' || auth.certVerified !== 'SUCCESS' || auth.certRevoked === '1') return [];
  return parseRFC9440(auth.certRFC9440, auth.certChainRFC9440);
}

/**
 * Reads and removes a trusted forwarded-certificate header (`name`, and `name-Chain`). The
 * header is removed either way so nothing downstream mistakes it for the client's own.
 */
export function takeForwardedClientCertificates(
  request: Request,
  name: string,
): { request: Request; certificates: Uint8Array[] } {
  const chainName = `${name}-Chain`;
  const leaf = request.headers.get(name);
  const chain = request.headers.get(chainName);
  if (leaf === null && chain === null) return { request, certificates: [] };
  const headers = new Headers(request.headers);
  headers.delete(name);
  headers.delete(chainName);
  return { request: new Request(request, { headers }), certificates: parseRFC9440(leaf, chain) };
}
