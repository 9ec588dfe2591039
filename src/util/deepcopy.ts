// runtime.DeepCopyJSON / DeepCopyJSONValue (k8s.io/apimachinery/pkg/runtime/converter.go): a copy
// of a JSON value (objects, arrays, strings, numbers, booleans, null). Several times faster than
// structuredClone, which serialises through V8's value serializer; values that are not JSON
// (a Date, a Uint8Array, a Map …) are copied with structuredClone, and `undefined` properties are
// kept as they are.

/** A deep copy of a JSON value. */
export function deepCopyJSONValue<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = deepCopyJSONValue(v[i]);
    return out as T;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const k in v) {
    if (!Object.hasOwn(v, k)) continue;
    const x = deepCopyJSONValue((v as Record<string, unknown>)[k]);
    // A `__proto__` key (JSON.parse makes it an own property; a ConfigMap key may be one) stays a property.
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    else out[k] = x;
  }
  return out as T;
}

/** DeepCopyJSON: a deep copy of a JSON object. */
export const deepCopyJSON: <T extends object>(o: T) => T = deepCopyJSONValue;
