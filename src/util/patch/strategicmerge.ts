// Strategic merge patch, the server side of k8s.io/apimachinery/pkg/util/strategicpatch/patch.go
// (StrategicMergeMapPatch: mergeMap with MergeParallelList and IgnoreUnmatchedNulls): maps merge key
// by key, null deletes, lists replace unless their field says `x-kubernetes-patch-strategy: merge`
// (scalars: union; objects: merged by `x-kubernetes-patch-merge-key`), and the directives `$patch:
// replace|merge|delete`, `$retainKeys`, `$deleteFromPrimitiveList/<f>` and `$setElementOrder/<f>`.
// The patch metadata comes from the kind's OpenAPI v3 schema (strategicpatch/meta.go
// PatchMetaFromOpenAPIV3); the error messages are upstream's (mergepatch/errors.go).

import {
  atomOf,
  child,
  isDeclaredField,
  resolveNode,
  rootNode,
  type SchemaNode,
  type TypeSchema,
} from '../managedfields/schema.ts';

type JSONValue = null | boolean | number | string | JSONValue[] | JSONMap;
type JSONMap = { [k: string]: JSONValue };

const directiveMarker = '$patch';
const deleteDirective = 'delete';
const replaceDirective = 'replace';
const mergeDirective = 'merge';
const retainKeysStrategy = 'retainKeys';
const deleteFromPrimitiveListDirectivePrefix = '$deleteFromPrimitiveList';
const retainKeysDirective = '$retainKeys';
const setElementOrderDirectivePrefix = '$setElementOrder';

/**
 * A patch that cannot be applied. `kind` says how handlers/patch.go answers it
 * (interpretStrategicMergePatchError): `BadRequest` (400), `Invalid` (422) or `Other` (upstream
 * answers these with a 500 carrying the message; this server answers 422, see docs/apply.md).
 */
export class StrategicMergePatchError extends Error {
  readonly kind: 'BadRequest' | 'Invalid' | 'Other';
  constructor(message: string, kind: 'BadRequest' | 'Invalid' | 'Other' = 'Other') {
    super(message);
    this.name = 'StrategicMergePatchError';
    this.kind = kind;
  }
}

// mergepatch/errors.go sentinels.
export const ErrBadJSONDoc = 'invalid JSON document';
export const ErrNoListOfLists = 'lists of lists are not supported';
export const ErrBadPatchFormatForPrimitiveList = 'invalid patch format of primitive list';
export const ErrBadPatchFormatForRetainKeys = 'invalid patch format of retainKeys';
export const ErrBadPatchFormatForSetElementOrderList = 'invalid patch format of setElementOrder list';
export const ErrUnsupportedStrategicMergePatchFormat = 'strategic merge patch format is not supported';

const badRequest = (m: string) => new StrategicMergePatchError(m, 'BadRequest');
const other = (m: string) => new StrategicMergePatchError(m, 'Other');

const isMap = (v: unknown): v is JSONMap => typeof v === 'object' && v !== null && !Array.isArray(v);

/** reflect.TypeOf(v).String() for the values encoding/json (with PreserveInts) produces. */
function goType(v: JSONValue | undefined): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'object') return 'map[string]interface {}';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return Number.isInteger(v) ? 'int64' : 'float64';
}

/** fmt's %v of such a value (maps print sorted by key). */
export function goFormat(v: JSONValue | undefined): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goFormat).join(' ')}]`;
  if (typeof v === 'object')
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goFormat(v[k])}`)
      .join(' ')}]`;
  if (typeof v === 'number' && !Number.isInteger(v)) {
    const s = String(v);
    return s.replace(/e([+-])(\d)$/, 'e$10$2');
  }
  return String(v);
}

const errBadArgType = (expected: string, actual: JSONValue | undefined) =>
  other(`expected a ${expected}, but received a ${goType(actual)}`);
const errNoMergeKey = (m: JSONMap, k: string) => other(`map: ${goFormat(m)} does not contain declared merge key: ${k}`);
const errBadPatchType = (t: JSONValue, m: JSONMap) =>
  other(`unknown patch type: ${typeof t === 'string' ? t : `%!s(${goType(t)}=${goFormat(t)})`} in map: ${goFormat(m)}`);

const MAP = 'map[string]interface {}';
const SLICE = '[]interface {}';

interface PatchMeta {
  strategies: string[];
  mergeKey: string;
}

/** The patch metadata lookup of one position (LookupPatchMeta). */
class Lookup {
  readonly node: SchemaNode;
  constructor(node: SchemaNode) {
    this.node = node;
  }

  name(): string {
    return this.node.name ?? 'Struct';
  }

  private field(key: string): { node: SchemaNode; meta: PatchMeta } {
    const n = this.node;
    if (!n.schema) return { node: { schema: undefined }, meta: { strategies: [], mergeKey: '' } };
    const a = atomOf(n);
    if (a.kind !== 'map' || (a.fields && !isDeclaredField(a, key) && !a.element && !allowsUnknown(n))) {
      if (a.kind === 'deduced') return { node: { schema: undefined }, meta: { strategies: [], mergeKey: '' } };
      if (a.kind !== 'map')
        throw other(`merging an object in json but data type is not struct, instead is: ${goKind(a.kind)}`);
      throw other(`unable to find api field in struct ${this.name()} for the json field ${JSON.stringify(key)}`);
    }
    const raw = a.fields && isDeclaredField(a, key) ? a.fields[key] : a.element;
    const meta: PatchMeta = {
      strategies: raw?.['x-kubernetes-patch-strategy'] ? raw['x-kubernetes-patch-strategy'].split(',') : [],
      mergeKey: raw?.['x-kubernetes-patch-merge-key'] ?? '',
    };
    // The extensions may sit beside an allOf/$ref wrapper or on the referenced schema.
    const resolved = child(n, raw);
    if (resolved.schema && resolved.schema !== raw) {
      meta.strategies = meta.strategies.length
        ? meta.strategies
        : (resolved.schema['x-kubernetes-patch-strategy']?.split(',') ?? []);
      meta.mergeKey ||= resolved.schema['x-kubernetes-patch-merge-key'] ?? '';
    }
    return { node: resolved, meta };
  }

  forStruct(key: string): { sub: Lookup; meta: PatchMeta } {
    const f = this.field(key);
    return { sub: new Lookup(f.node), meta: f.meta };
  }

  forSlice(key: string): { sub: Lookup; meta: PatchMeta } {
    const f = this.field(key);
    const s = f.node.schema;
    const items = s?.items ? resolveNode({ schema: s.items, definitions: f.node.definitions }) : f.node;
    return { sub: new Lookup(s ? items : { schema: undefined }), meta: f.meta };
  }
}

function allowsUnknown(n: SchemaNode): boolean {
  const s = n.schema!;
  return s.additionalProperties === true || s['x-kubernetes-preserve-unknown-fields'] === true;
}

function goKind(k: string): string {
  return k === 'list' ? 'slice' : k === 'scalar' ? 'string' : k;
}

interface MergeOptions {
  mergeParallelList: boolean;
  ignoreUnmatchedNulls: boolean;
}

/**
 * Applies a strategic merge patch to `original` with the patch metadata of `schema` (the kind's
 * OpenAPI v3 schema; undefined = no metadata: every list is replaced). Neither input is modified.
 * Throws StrategicMergePatchError.
 */
export function strategicMergePatch(original: JSONMap, patch: JSONMap, schema: TypeSchema | undefined): JSONMap {
  const o = structuredClone(original);
  const p = structuredClone(patch);
  return mergeMap(o, p, new Lookup(rootNode(schema)), { mergeParallelList: true, ignoreUnmatchedNulls: true });
}

function handleDirectiveInMergeMap(directive: JSONValue, patch: JSONMap): JSONMap {
  if (directive === replaceDirective) {
    delete patch[directiveMarker];
    return patch;
  }
  if (directive === deleteDirective) return {};
  throw errBadPatchType(directive, patch);
}

function containsDirectiveMarker(item: JSONValue): boolean {
  return isMap(item) && Object.hasOwn(item, directiveMarker);
}

function mergeKeyValueEqual(left: JSONValue, right: JSONValue, mergeKey: string): boolean {
  if (!mergeKey) return scalarEqual(left, right);
  if (!isMap(left)) throw errBadArgType(MAP, left);
  if (!isMap(right)) throw errBadArgType(MAP, right);
  if (!Object.hasOwn(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
  if (!Object.hasOwn(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
  return scalarEqual(left[mergeKey], right[mergeKey]);
}

/** Go's interface == on decoded JSON: scalars compare by value; maps and slices never compare equal (they panic upstream). */
function scalarEqual(a: JSONValue | undefined, b: JSONValue | undefined): boolean {
  if (typeof a === 'object' && a !== null) return false;
  if (typeof a === 'number' && typeof b === 'number') return a === b && Number.isInteger(a) === Number.isInteger(b);
  return a === b;
}

function extractKey(s: string, prefix: string): string {
  const i = s.indexOf('/');
  if (i < 0 || s.slice(0, i) !== prefix) {
    if (prefix === deleteFromPrimitiveListDirectivePrefix) throw badRequest(ErrBadPatchFormatForPrimitiveList);
    throw badRequest(ErrBadPatchFormatForSetElementOrderList);
  }
  return s.slice(i + 1);
}

function extractToDeleteItems(l: JSONValue[]): { nonDelete: JSONValue[]; toDelete: JSONValue[] } {
  const nonDelete: JSONValue[] = [];
  const toDelete: JSONValue[] = [];
  for (const v of l) {
    if (!isMap(v)) throw errBadArgType(MAP, v);
    if (v[directiveMarker] === deleteDirective) toDelete.push(v);
    else nonDelete.push(v);
  }
  return { nonDelete, toDelete };
}

function validatePatchWithSetOrderList(
  patchList: JSONValue | undefined,
  setOrderList: JSONValue,
  mergeKey: string,
): void {
  if (!Array.isArray(setOrderList)) throw badRequest(ErrBadPatchFormatForSetElementOrderList);
  const typedPatchList = patchList === undefined ? [] : patchList;
  if (!Array.isArray(typedPatchList)) throw badRequest(ErrBadPatchFormatForSetElementOrderList);
  if (setOrderList.length === 0 || typedPatchList.length === 0) return;
  const nonDeleteList = mergeKey ? extractToDeleteItems(typedPatchList).nonDelete : typedPatchList;
  let patchIndex = 0;
  let setOrderIndex = 0;
  while (patchIndex < nonDeleteList.length && setOrderIndex < setOrderList.length) {
    if (containsDirectiveMarker(nonDeleteList[patchIndex]!)) {
      patchIndex++;
      continue;
    }
    if (mergeKeyValueEqual(nonDeleteList[patchIndex]!, setOrderList[setOrderIndex]!, mergeKey)) patchIndex++;
    setOrderIndex++;
  }
  if (patchIndex < nonDeleteList.length && setOrderIndex >= setOrderList.length)
    throw other(
      `The order in patch list:\n${goFormat(typedPatchList)}\n doesn't match ${setElementOrderDirectivePrefix} list:\n${goFormat(setOrderList)}\n`,
    );
}

function applyRetainKeysDirective(original: JSONMap, patch: JSONMap): void {
  if (!Object.hasOwn(patch, retainKeysDirective)) return;
  const retainKeysInPatch = patch[retainKeysDirective]!;
  delete patch[retainKeysDirective];
  if (!Array.isArray(retainKeysInPatch)) throw badRequest(ErrBadPatchFormatForRetainKeys);
  const keep = new Set<unknown>(retainKeysInPatch);
  for (const [k, v] of Object.entries(patch)) {
    if (
      v === null ||
      k.startsWith(deleteFromPrimitiveListDirectivePrefix) ||
      k.startsWith(setElementOrderDirectivePrefix)
    )
      continue;
    if (!keep.has(k)) throw badRequest(ErrBadPatchFormatForRetainKeys);
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

function mergePatchIntoOriginal(original: JSONMap, patch: JSONMap, schema: Lookup, opts: MergeOptions): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(setElementOrderDirectivePrefix)) continue;
    const setElementOrderInPatch = patch[key]!;
    delete patch[key];
    if (!Array.isArray(setElementOrderInPatch)) throw errBadArgType(SLICE, setElementOrderInPatch);
    const originalKey = extractKey(key, setElementOrderDirectivePrefix);
    const foundOriginal = Object.hasOwn(original, originalKey);
    const foundPatch = Object.hasOwn(patch, originalKey);
    let originalFieldValue: JSONValue[] = [];
    let patchFieldValue: JSONValue[] | undefined;
    if (foundOriginal) {
      const v = original[originalKey]!;
      if (!Array.isArray(v)) throw errBadArgType(SLICE, v);
      originalFieldValue = v;
    }
    if (foundPatch) {
      const v = patch[originalKey]!;
      if (!Array.isArray(v)) throw errBadArgType(SLICE, v);
      patchFieldValue = v;
    }
    const { sub, meta } = schema.forSlice(originalKey);
    const patchStrategy = extractRetainKeysPatchStrategy(meta.strategies);
    validatePatchWithSetOrderList(patchFieldValue, setElementOrderInPatch, meta.mergeKey);
    let merged: JSONValue[];
    if (foundOriginal && !foundPatch) merged = originalFieldValue;
    else if (!foundOriginal && foundPatch) merged = removeDirectives(patchFieldValue!).value as JSONValue[];
    else if (foundOriginal && foundPatch)
      merged = mergeSliceHandler(originalFieldValue, patchFieldValue!, sub, patchStrategy, meta.mergeKey, false, opts);
    else continue;
    const { patchItems, serverOnly } = meta.mergeKey
      ? partitionMapsByPresentInList(merged, setElementOrderInPatch, meta.mergeKey)
      : partitionPrimitivesByPresentInList(merged, setElementOrderInPatch);
    const kind = sliceElementType(originalFieldValue, patchFieldValue ?? []);
    original[originalKey] = normalizeElementOrder(
      patchItems,
      serverOnly,
      setElementOrderInPatch,
      originalFieldValue,
      meta.mergeKey,
      kind,
    );
    delete patch[originalKey];
  }
}

function partitionPrimitivesByPresentInList(
  original: JSONValue[],
  partitionBy: JSONValue[],
): { patchItems: JSONValue[]; serverOnly: JSONValue[] } {
  const patchItems: JSONValue[] = [];
  const serverOnly: JSONValue[] = [];
  for (const v of original) {
    if (partitionBy.some((p) => scalarEqual(p, v))) patchItems.push(v);
    else serverOnly.push(v);
  }
  return { patchItems, serverOnly };
}

function partitionMapsByPresentInList(
  original: JSONValue[],
  partitionBy: JSONValue[],
  mergeKey: string,
): { patchItems: JSONValue[]; serverOnly: JSONValue[] } {
  const patchItems: JSONValue[] = [];
  const serverOnly: JSONValue[] = [];
  for (const v of original) {
    if (!isMap(v)) throw errBadArgType(MAP, v);
    if (!Object.hasOwn(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    if (findMapInSliceBasedOnKeyValue(partitionBy, mergeKey, v[mergeKey]!).found) patchItems.push(v);
    else serverOnly.push(v);
  }
  return { patchItems, serverOnly };
}

/** Removes directives; `keep: false` when the value itself is a directive. */
function removeDirectives(obj: JSONValue): { value: JSONValue; keep: boolean } {
  if (isMap(obj)) {
    if (Object.hasOwn(obj, directiveMarker)) return { value: null, keep: false };
    for (const k of Object.keys(obj)) {
      const r = removeDirectives(obj[k]!);
      if (r.keep) obj[k] = r.value;
      else delete obj[k];
    }
    return { value: obj, keep: true };
  }
  if (Array.isArray(obj)) {
    const res: JSONValue[] = [];
    for (const v of obj) {
      const r = removeDirectives(v);
      if (r.keep) res.push(r.value);
    }
    return { value: res, keep: true };
  }
  return { value: obj, keep: true };
}

function discardNullValuesFromPatch(v: JSONValue): void {
  if (isMap(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else discardNullValuesFromPatch(v[k]!);
    }
  } else if (Array.isArray(v)) {
    for (const x of v) discardNullValuesFromPatch(x);
  }
}

function takePatchValue(original: JSONMap, k: string, patchV: JSONValue, opts: MergeOptions): void {
  if (opts.ignoreUnmatchedNulls) discardNullValuesFromPatch(patchV);
  const r = removeDirectives(patchV);
  if (r.keep) original[k] = r.value;
  else delete original[k];
}

function goKindOf(v: JSONValue): string {
  return goType(v);
}

function mergeMap(original: JSONMap, patch: JSONMap, schema: Lookup, opts: MergeOptions): JSONMap {
  if (Object.hasOwn(patch, directiveMarker)) return handleDirectiveInMergeMap(patch[directiveMarker]!, patch);
  applyRetainKeysDirective(original, patch);
  mergePatchIntoOriginal(original, patch, schema, opts);
  for (const rawKey of Object.keys(patch)) {
    let k = rawKey;
    const patchV = patch[rawKey]!;
    let isDeleteList = false;
    if (k.startsWith(deleteFromPrimitiveListDirectivePrefix)) {
      k = extractKey(k, deleteFromPrimitiveListDirectivePrefix);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete original[k];
      if (opts.ignoreUnmatchedNulls) continue;
    }
    if (!Object.hasOwn(original, k)) {
      if (!isDeleteList) takePatchValue(original, k, patchV, opts);
      continue;
    }
    const ov = original[k]!;
    if (goKindOf(ov) !== goKindOf(patchV)) {
      if (!isDeleteList) takePatchValue(original, k, patchV, opts);
      continue;
    }
    if (isMap(ov)) {
      const { sub, meta } = schema.forStruct(k);
      const strategy = extractRetainKeysPatchStrategy(meta.strategies);
      original[k] = strategy !== replaceDirective ? mergeMap(ov, patchV as JSONMap, sub, opts) : (patchV as JSONMap);
    } else if (Array.isArray(ov)) {
      const { sub, meta } = schema.forSlice(k);
      const strategy = extractRetainKeysPatchStrategy(meta.strategies);
      original[k] = mergeSliceHandler(ov, patchV as JSONValue[], sub, strategy, meta.mergeKey, isDeleteList, opts);
    } else {
      const r = removeDirectives(patchV);
      if (r.keep) original[k] = r.value;
      else delete original[k];
    }
  }
  return original;
}

function mergeSliceHandler(
  original: JSONValue[],
  patch: JSONValue[],
  schema: Lookup,
  strategy: string,
  mergeKey: string,
  isDeleteList: boolean,
  opts: MergeOptions,
): JSONValue[] {
  if (strategy === mergeDirective || isDeleteList)
    return mergeSlice(original, patch, schema, mergeKey, opts, isDeleteList);
  return patch;
}

type ElemKind = 'map' | 'scalar';

function sliceElementType(...slices: JSONValue[][]): ElemKind {
  let prev: string | undefined;
  for (const s of slices)
    for (const v of s) {
      const t = goType(v);
      if (prev === undefined) {
        prev = t;
        if (Array.isArray(v)) throw new StrategicMergePatchError(ErrNoListOfLists, 'Invalid');
      } else if (prev !== t) {
        throw other(`list element types are not identical: [${slices.map(goFormat).join(' ')}]`);
      }
    }
  if (prev === undefined) throw other('no elements in any of the given slices');
  return prev === MAP ? 'map' : 'scalar';
}

// Go slices share their backing array: deleting from a merging list and appending to it write into
// the array the caller still holds (with its old length), and the server order later read from
// that view decides where server-only items land. The list code below keeps that aliasing:
// `backing` is the caller's array, `len` the logical length of the slice being worked on.

function mergeSlice(
  original: JSONValue[],
  patch: JSONValue[],
  schema: Lookup,
  mergeKey: string,
  opts: MergeOptions,
  isDeleteList: boolean,
): JSONValue[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementType(original, patch);
  let merged: JSONValue[];
  let serverOrder = original;
  if (kind !== 'map') {
    if (opts.mergeParallelList && isDeleteList) return deleteFromSlice(original, patch);
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    if (!mergeKey) throw other(`cannot merge lists without merge key for ${schema.name()}`);
    const special = mergeSliceWithSpecialElements(original, patch, mergeKey);
    patch = special.patch;
    merged = mergeSliceWithoutSpecialElements(special.backing, special.len, patch, mergeKey, schema, opts);
    serverOrder = special.backing.slice(0, special.len);
  }
  const { patchItems, serverOnly } = mergeKey
    ? partitionMapsByPresentInList(merged, patch, mergeKey)
    : partitionPrimitivesByPresentInList(merged, patch);
  return normalizeElementOrder(patchItems, serverOnly, patch, serverOrder, mergeKey, kind);
}

function mergeSliceWithSpecialElements(
  original: JSONValue[],
  patch: JSONValue[],
  mergeKey: string,
): { backing: JSONValue[]; len: number; patch: JSONValue[] } {
  const without: JSONValue[] = [];
  let replace = false;
  let len = original.length;
  for (const v of patch) {
    const m = v as JSONMap;
    if (!Object.hasOwn(m, directiveMarker)) {
      without.push(v);
      continue;
    }
    const patchType = m[directiveMarker]!;
    if (patchType === deleteDirective) {
      if (!Object.hasOwn(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
      len = deleteMatchingEntries(original, len, mergeKey, m[mergeKey]!);
    } else if (patchType === replaceDirective) {
      replace = true;
    } else if (patchType === mergeDirective) {
      throw other('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(patchType, m);
    }
  }
  if (replace) return { backing: without, len: without.length, patch: [] };
  return { backing: original, len, patch: without };
}

/** append(original[:k], original[k+1:]...) in place: the backing array keeps its length. */
function deleteMatchingEntries(backing: JSONValue[], len: number, mergeKey: string, mergeValue: JSONValue): number {
  for (;;) {
    const r = findMapInSliceBasedOnKeyValue(backing.slice(0, len), mergeKey, mergeValue);
    if (!r.found) return len;
    backing.copyWithin(r.index, r.index + 1, len);
    len--;
  }
}

function mergeSliceWithoutSpecialElements(
  backing: JSONValue[],
  len: number,
  patch: JSONValue[],
  mergeKey: string,
  schema: Lookup,
  opts: MergeOptions,
): JSONValue[] {
  let out = backing;
  for (const v of patch) {
    const m = v as JSONMap;
    if (!Object.hasOwn(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
    const r = findMapInSliceBasedOnKeyValue(out.slice(0, len), mergeKey, m[mergeKey]!);
    if (r.found) out[r.index] = mergeMap(r.map!, m, schema, opts);
    else if (out === backing && len < backing.length) out[len++] = v;
    else {
      // append beyond the capacity: a new array from here on.
      if (out === backing) out = backing.slice(0, len);
      out.push(v);
      len = out.length;
    }
  }
  return out.slice(0, len);
}

function deleteFromSlice(current: JSONValue[], toDelete: JSONValue[]): JSONValue[] {
  return current.filter((v) => !toDelete.some((d) => scalarEqual(d, v)));
}

function findMapInSliceBasedOnKeyValue(
  m: JSONValue[],
  key: string,
  value: JSONValue,
): { map?: JSONMap; index: number; found: boolean } {
  for (let i = 0; i < m.length; i++) {
    const v = m[i]!;
    if (!isMap(v)) throw other(`value for key ${i} is not a map`);
    if (Object.hasOwn(v, key) && scalarEqual(v[key], value)) return { map: v, index: i, found: true };
  }
  return { index: 0, found: false };
}

function deduplicateScalars(s: JSONValue[]): JSONValue[] {
  // The same in-place swap-with-last algorithm as upstream, so the resulting order matches.
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (scalarEqual(s[i], s[j])) {
        s[j] = s[length]!;
        s = s.slice(0, length);
        length--;
        j--;
      }
    }
  }
  return s;
}

function extractRetainKeysPatchStrategy(strategies: string[]): string {
  switch (strategies.length) {
    case 0:
      return '';
    case 1:
      return strategies[0] === retainKeysStrategy ? '' : strategies[0]!;
    case 2:
      if (strategies[0] === retainKeysStrategy) return strategies[1]!;
      if (strategies[1] === retainKeysStrategy) return strategies[0]!;
      throw other(`unexpected patch strategy: [${strategies.join(' ')}]`);
    default:
      throw other(`unexpected patch strategy: [${strategies.join(' ')}]`);
  }
}

function indexOf(l: JSONValue[], val: JSONValue, mergeKey: string, kind: ElemKind): number {
  const get = (item: JSONValue): JSONValue | undefined =>
    kind === 'map' ? (isMap(item) ? item[mergeKey] : undefined) : item;
  const want = get(val);
  for (let i = 0; i < l.length; i++) {
    const got = get(l[i]!);
    if (want === undefined ? got === undefined : scalarEqual(want, got)) return i;
  }
  return -1;
}

function validateMergeKeyInLists(mergeKey: string, ...lists: JSONValue[][]): void {
  for (const list of lists)
    for (const item of list) {
      if (!isMap(item)) throw errBadArgType(MAP, item);
      if (!Object.hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    }
}

function normalizeSliceOrder(toSort: JSONValue[], order: JSONValue[], mergeKey: string, kind: ElemKind): JSONValue[] {
  let toDelete: JSONValue[] = [];
  if (kind === 'map') {
    validateMergeKeyInLists(mergeKey, toSort, order);
    const r = extractToDeleteItems(toSort);
    toSort = r.nonDelete;
    toDelete = r.toDelete;
  }
  // sort.SliceStable with upstream's comparator (items missing from `order` compare as "less").
  const sorted = stableSort(toSort, (a, b) => {
    const ia = indexOf(order, a, mergeKey, kind);
    if (ia >= 0) {
      const ib = indexOf(order, b, mergeKey, kind);
      if (ib >= 0) return ia < ib;
    }
    return true;
  });
  return [...sorted, ...toDelete];
}

/** Go's sort.SliceStable (insertion sort for short slices, as its small-block pass) with a less function. */
function stableSort<T>(items: T[], less: (a: T, b: T) => boolean): T[] {
  const a = [...items];
  // Go's stable sort: insertionSort on blocks of 20, then symMerge. Insertion sort over the whole
  // slice gives the same result whenever `less` is a strict weak order; for the lists patches
  // carry that holds for items found in `order`.
  for (let i = 1; i < a.length; i++)
    for (let j = i; j > 0 && less(a[j]!, a[j - 1]!); j--) [a[j], a[j - 1]] = [a[j - 1]!, a[j]!];
  return a;
}

function normalizeElementOrder(
  patch: JSONValue[],
  serverOnly: JSONValue[],
  patchOrder: JSONValue[],
  serverOrder: JSONValue[],
  mergeKey: string,
  kind: ElemKind,
): JSONValue[] {
  const p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
}

function mergeSortedSlice(
  left: JSONValue[],
  right: JSONValue[],
  serverOrder: JSONValue[],
  mergeKey: string,
  kind: ElemKind,
): JSONValue[] {
  const out: JSONValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]!);
    else if (j >= right.length) out.push(left[i++]!);
    else {
      const li = indexOf(serverOrder, left[i]!, mergeKey, kind);
      const ri = indexOf(serverOrder, right[j]!, mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]!);
      else out.push(right[j++]!);
    }
  }
  return out;
}
