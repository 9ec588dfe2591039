// The one base64: standard (RFC 4648 §4, with padding), as Go's encoding/base64.StdEncoding for
// kubeconfig `*-data` fields, basic auth, PEM bodies, Secret data, protobuf bytes, the etcd
// gateway's keys and values; and URL-safe without padding (RawURLEncoding) for JWT parts, key
// ids, continue tokens and WebSocket bearer tokens (encoding is jose's base64url).

import { base64url } from 'jose';

/** Bytes → standard base64. */
export function encodeBase64(data: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < data.length; i += 0x8000) bin += String.fromCharCode(...data.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** Standard base64 → bytes; whitespace is ignored, anything else not base64 throws (atob's DOMException). */
export function decodeBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text.replace(/\s+/g, '')), (c) => c.charCodeAt(0));
}

/** UTF-8 text → standard base64 (`btoa` takes only Latin-1). */
export function encodeBase64Text(text: string): string {
  return encodeBase64(new TextEncoder().encode(text));
}

/** Standard base64 → UTF-8 text. */
export function decodeBase64Text(text: string): string {
  return new TextDecoder().decode(decodeBase64(text));
}

/** Bytes or UTF-8 text → URL-safe base64 without padding (RawURLEncoding). */
export function encodeBase64URL(data: Uint8Array | string): string {
  return base64url.encode(data);
}

/**
 * URL-safe base64, padding optional → bytes. Throws on a character outside the URL alphabet
 * (`+`, `/`, whitespace included) or an impossible length; callers word their own error.
 */
export function decodeBase64URL(text: string): Uint8Array {
  if (!urlAlphabet.test(text) || text.length % 4 === 1) throw new Error('illegal base64url data');
  const b64 = text.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  return decodeBase64(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
}

const urlAlphabet = /^[A-Za-z0-9_-]*={0,2}$/;

/** The same functions under the names the storage code uses. */
export { decodeBase64 as base64Decode, encodeBase64 as base64Encode };
