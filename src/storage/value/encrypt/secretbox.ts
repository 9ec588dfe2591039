// The secretbox provider (k8s.io/apiserver/pkg/storage/value/encrypt/secretbox): NaCl secretbox
// (XSalsa20-Poly1305, not in WebCrypto) with a random 24-byte nonce stored before the box.

import { secretbox } from '@noble/ciphers/salsa.js';
import type { Transformer } from '../transformer.ts';

const nonceSize = 24;
const overhead = 16;

/** secretbox.NewSecretboxTransformer over a 32-byte key. */
export function newSecretboxTransformer(key: Uint8Array): Transformer {
  return {
    async transformFromStorage(data) {
      if (data.length < overhead + nonceSize) throw new Error('the stored data was shorter than the required size');
      let out: Uint8Array;
      try {
        out = secretbox(key, data.subarray(0, nonceSize)).open(data.subarray(nonceSize));
      } catch {
        throw new Error('output array was not large enough for encryption');
      }
      return { data: out, stale: false };
    },
    async transformToStorage(data) {
      const nonce = crypto.getRandomValues(new Uint8Array(nonceSize));
      const box = secretbox(key, nonce).seal(data);
      const out = new Uint8Array(nonceSize + box.length);
      out.set(nonce);
      out.set(box, nonceSize);
      return out;
    },
  };
}
