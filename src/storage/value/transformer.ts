// Value transformers (k8s.io/apiserver/pkg/storage/value/transformer.go): what the storage layer
// applies to an object's bytes on their way to and from the engine — encryption at rest. The key
// of the object is the authenticated data, so a ciphertext cannot be moved to another key.

/** value.Transformer. */
export interface Transformer {
  /**
   * The stored bytes back to plain bytes; `stale` when they were not written by the transformer
   * that writes now (a rewrite brings them up to date).
   */
  transformFromStorage(data: Uint8Array, authenticatedData: Uint8Array): Promise<{ data: Uint8Array; stale: boolean }>;
  transformToStorage(data: Uint8Array, authenticatedData: Uint8Array): Promise<Uint8Array>;
}

/** value.PrefixTransformer: a transformer and the prefix its output carries. */
export interface PrefixTransformer {
  prefix: Uint8Array;
  transformer: Transformer;
}

const enc = new TextEncoder();

/** The bytes every encrypting provider's output starts with (`k8s:enc:`). */
export const encryptedPrefix = enc.encode('k8s:enc:');

function hasPrefix(data: Uint8Array, prefix: Uint8Array): boolean {
  if (data.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (data[i] !== prefix[i]) return false;
  return true;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * value.NewPrefixTransformers: the first writes (with its prefix); reading tries each transformer
 * whose prefix the data has, in order. A failing transformer with the empty prefix (identity, set
 * above an encrypting one to migrate away from encryption) lets the next ones try.
 */
export function newPrefixTransformers(err: Error, ...transformers: PrefixTransformer[]): Transformer {
  if (transformers.length === 0) throw new Error('at least one transformer is required');
  return {
    async transformFromStorage(data, authenticatedData) {
      for (let i = 0; i < transformers.length; i++) {
        const t = transformers[i]!;
        if (!hasPrefix(data, t.prefix)) continue;
        try {
          const r = await t.transformer.transformFromStorage(data.subarray(t.prefix.length), authenticatedData);
          return { data: r.data, stale: r.stale || i !== 0 };
        } catch (e) {
          if (t.prefix.length === 0) continue;
          throw e;
        }
      }
      throw err;
    },
    async transformToStorage(data, authenticatedData) {
      const t = transformers[0]!;
      return concat(t.prefix, await t.transformer.transformToStorage(data, authenticatedData));
    },
  };
}

/** identity.NewEncryptCheckTransformer: stores plain bytes and refuses to read encrypted ones. */
export const identityTransformer: Transformer = {
  async transformFromStorage(data) {
    if (hasPrefix(data, encryptedPrefix)) throw new Error('identity transformer tried to read encrypted data');
    return { data, stale: false };
  },
  async transformToStorage(data) {
    return data;
  },
};
