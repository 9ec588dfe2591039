// Pruning and defaulting over a structural schema (k8s.io/apiextensions-apiserver/pkg/apiserver/
// schema/pruning/algorithm.go, defaulting/{algorithm,prunenulls}.go): unknown fields dropped
// (kept below x-kubernetes-preserve-unknown-fields, apiVersion/kind/metadata kept at resource
// roots and embedded resources), non-nullable nulls without a default dropped, defaults applied.

import type { Structural } from './structural.ts';

const metaFields = new Set(['apiVersion', 'kind', 'metadata']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * PruneWithOptions: removes the fields `s` does not specify, in place; returns the pruned paths
 * (`spec.foo`, `spec.items[0].bar`), sorted, for fieldValidation=Strict/Warn.
 */
export function prune(obj: unknown, s: Structural | undefined, isResourceRoot: boolean): string[] {
  if (isResourceRoot) {
    s ??= emptyStructural();
    if (!s.xEmbeddedResource) s = { ...s, xEmbeddedResource: true };
  }
  const out: string[] = [];
  pruneValue(obj, s, '', out);
  return out.sort();
}

function emptyStructural(): Structural {
  return {
    type: '',
    nullable: false,
    hasDefault: false,
    xPreserveUnknownFields: false,
    xEmbeddedResource: false,
    xIntOrString: false,
    schema: {},
  };
}

const joinKey = (parent: string, k: string) => (parent ? `${parent}.${k}` : k);

function pruneValue(x: unknown, s: Structural | undefined, path: string, out: string[]): void {
  if (s?.xPreserveUnknownFields) return skipPrune(x, s, path, out);
  if (Array.isArray(x)) {
    x.forEach((v, i) => pruneValue(v, s?.items, `${path}[${i}]`, out));
    return;
  }
  if (!isObject(x)) return;
  if (!s) {
    for (const k of Object.keys(x)) {
      out.push(joinKey(path, k));
      delete x[k];
    }
    return;
  }
  for (const k of Object.keys(x)) {
    if (s.xEmbeddedResource && metaFields.has(k)) continue;
    const prop = s.properties?.get(k);
    if (prop) pruneValue(x[k], prop, joinKey(path, k), out);
    else if (s.additionalProperties) pruneValue(x[k], s.additionalProperties.structural, joinKey(path, k), out);
    else {
      if (!metaFields.has(k) || path !== '') out.push(joinKey(path, k));
      delete x[k];
    }
  }
}

function skipPrune(x: unknown, s: Structural | undefined, path: string, out: string[]): void {
  if (!s) return;
  if (Array.isArray(x)) {
    x.forEach((v, i) => skipPrune(v, s.items, `${path}[${i}]`, out));
    return;
  }
  if (!isObject(x)) return;
  for (const k of Object.keys(x)) {
    if (s.xEmbeddedResource && metaFields.has(k)) continue;
    const prop = s.properties?.get(k);
    if (prop) pruneValue(x[k], prop, joinKey(path, k), out);
    else if (s.additionalProperties) pruneValue(x[k], s.additionalProperties.structural, joinKey(path, k), out);
  }
}

const isNonNullableNull = (x: unknown, s: Structural | undefined): boolean =>
  x === null && s !== undefined && !s.nullable;

function fieldSchema(k: string, s: Structural | undefined): Structural | undefined {
  if (!s) return undefined;
  return s.properties?.get(k) ?? s.additionalProperties?.structural;
}

/** PruneNonNullableNullsWithoutDefaults: nulls that are neither allowed nor defaulted go. */
export function pruneNonNullableNullsWithoutDefaults(x: unknown, s: Structural | undefined): void {
  if (Array.isArray(x)) {
    for (const v of x) pruneNonNullableNullsWithoutDefaults(v, s?.items);
    return;
  }
  if (!isObject(x)) return;
  for (const k of Object.keys(x)) {
    const fs = fieldSchema(k, s);
    if (isNonNullableNull(x[k], fs) && !fs!.hasDefault) delete x[k];
    else pruneNonNullableNullsWithoutDefaults(x[k], fs);
  }
}

/** Default: sets each missing (or non-nullable null) property that has a default, deep-copied, recursively. */
export function applyDefaults(x: unknown, s: Structural | undefined): void {
  if (!s) return;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      if (isNonNullableNull(x[i], s.items) && s.items!.hasDefault) x[i] = structuredClone(s.items!.default);
      applyDefaults(x[i], s.items);
    }
    return;
  }
  if (!isObject(x)) return;
  for (const [k, prop] of s.properties ?? []) {
    if (!prop.hasDefault || prop.default === null) continue;
    if (!Object.hasOwn(x, k) || isNonNullableNull(x[k], prop)) x[k] = structuredClone(prop.default);
  }
  for (const k of Object.keys(x)) {
    const prop = s.properties?.get(k);
    if (prop) applyDefaults(x[k], prop);
    else if (s.additionalProperties) {
      const ap = s.additionalProperties.structural;
      if (isNonNullableNull(x[k], ap) && ap!.hasDefault) x[k] = structuredClone(ap!.default);
      applyDefaults(x[k], ap);
    }
  }
}
