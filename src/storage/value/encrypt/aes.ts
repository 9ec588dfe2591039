// AES-GCM and AES-CBC providers with WebCrypto (k8s.io/apiserver/pkg/storage/value/encrypt/aes):
// GCM stores a random 12-byte nonce, then the sealed data (ciphertext and tag) authenticated with
// the object's key; CBC stores a random 16-byte IV, then the PKCS#7-padded ciphertext.

import type { Transformer } from '../transformer.ts';

const gcmNonceSize = 12;
const blockSize = 16;

const shortData = () => new Error('the stored data was shorter than the required size');

async function importKey(raw: Uint8Array, name: 'AES-GCM' | 'AES-CBC'): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', raw as BufferSource, { name }, false, ['encrypt', 'decrypt']);
}

function prepend(head: Uint8Array, body: ArrayBuffer): Uint8Array {
  const out = new Uint8Array(head.length + body.byteLength);
  out.set(head);
  out.set(new Uint8Array(body), head.length);
  return out;
}

/** aes.NewGCMTransformer. */
export function newGCMTransformer(key: Uint8Array): Transformer {
  const k = importKey(key, 'AES-GCM');
  return {
    async transformFromStorage(data, authenticatedData) {
      if (data.length < gcmNonceSize) throw shortData();
      const iv = data.subarray(0, gcmNonceSize);
      let out: ArrayBuffer;
      try {
        out = await crypto.subtle.decrypt(
          { name: 'AES-GCM', iv: iv as BufferSource, additionalData: authenticatedData as BufferSource },
          await k,
          data.subarray(gcmNonceSize) as BufferSource,
        );
      } catch {
        // Go's crypto/cipher error text.
        throw new Error('cipher: message authentication failed');
      }
      return { data: new Uint8Array(out), stale: false };
    },
    async transformToStorage(data, authenticatedData) {
      const iv = crypto.getRandomValues(new Uint8Array(gcmNonceSize));
      const sealed = await crypto.subtle.encrypt(
        { name: 'AES-GCM', iv, additionalData: authenticatedData as BufferSource },
        await k,
        data as BufferSource,
      );
      return prepend(iv, sealed);
    },
  };
}

/** aes.NewCBCTransformer. */
export function newCBCTransformer(key: Uint8Array): Transformer {
  const k = importKey(key, 'AES-CBC');
  return {
    async transformFromStorage(data) {
      if (data.length < blockSize) throw shortData();
      const body = data.subarray(blockSize);
      if (body.length % blockSize !== 0) throw new Error('the stored data is not a multiple of the block size');
      let out: ArrayBuffer;
      try {
        out = await crypto.subtle.decrypt(
          { name: 'AES-CBC', iv: data.subarray(0, blockSize) as BufferSource },
          await k,
          body as BufferSource,
        );
      } catch {
        throw new Error('invalid padding on input');
      }
      return { data: new Uint8Array(out), stale: false };
    },
    async transformToStorage(data) {
      const iv = crypto.getRandomValues(new Uint8Array(blockSize));
      return prepend(iv, await crypto.subtle.encrypt({ name: 'AES-CBC', iv }, await k, data as BufferSource));
    },
  };
}
