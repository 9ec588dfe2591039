// JSON Merge Patch (RFC 7396), as gopkg.in/evanphx/json-patch.v4 MergePatch applies it for
// application/merge-patch+json (k8s.io/apiserver/pkg/endpoints/handlers/patch.go): objects merge
// key by key, null deletes, anything else (arrays included) replaces.

type JSONValue = null | boolean | number | string | JSONValue[] | { [k: string]: JSONValue };

const isObject = (v: unknown): v is Record<string, JSONValue> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Returns the merged document; neither argument is modified. */
export function applyMergePatch(doc: JSONValue, patch: JSONValue): JSONValue {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, JSONValue> = isObject(doc) ? { ...doc } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k] ?? null, v);
  }
  return out;
}
