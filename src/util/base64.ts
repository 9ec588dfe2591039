// Standard base64 (RFC 4648 §4, with padding), as Go's encoding/base64.StdEncoding: kubeconfig
// `*-data` fields, basic auth, PEM bodies, the etcd gateway's keys and values. The URL-safe
// alphabet (JWTs, JWKs) is jose's `base64url`.

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

/** The same functions under the names the storage code uses. */
export { decodeBase64 as base64Decode, encodeBase64 as base64Encode };
