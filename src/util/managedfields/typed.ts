// Typed values: the walkers of sigs.k8s.io/structured-merge-diff/typed over plain JSON and a
// schema node — ToFieldSet (tofieldset.go), Compare (compare.go), Merge with the applied object
// winning (merge.go, ruleKeepRHS), RemoveItems (remove.go) and Set.EnsureNamedFieldsAreMembers.
// Lists are granular only when their schema says so (set, or map with keys); maps are granular
// unless atomic; a value without a schema is deduced (maps granular, lists atomic).

import { fieldPE, FieldSet, indexPE, keyPE, valuePE } from './fieldpath.ts';
import { atomOf, child, fieldSchema, isDeclaredField, type Atom, type SchemaNode } from './schema.ts';

export type JSONValue = null | boolean | number | string | JSONValue[] | JSONMap;
export type JSONMap = { [k: string]: JSONValue };

/** A value that does not fit its schema as structured-merge-diff requires (upstream: a validation error). */
export class TypedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TypedError';
  }
}

const isMap = (v: unknown): v is JSONMap => typeof v === 'object' && v !== null && !Array.isArray(v);

type Shape = 'leaf' | 'map' | 'list';

/** How a pair of values at one position is walked (handleAtom with emptyPromoteToLeaf). */
function shapeOf(a: Atom, l: JSONValue | undefined, r: JSONValue | undefined): Shape {
  if (a.kind === 'scalar') return 'leaf';
  // Of the values present: all lists (maps) and all empty? Written out: this runs for every field.
  if (a.kind === 'list') {
    if (a.relationship === 'atomic') return 'leaf';
    if ((l !== undefined && !Array.isArray(l)) || (r !== undefined && !Array.isArray(r))) return 'leaf';
    const nonEmpty = (l !== undefined && l.length > 0) || (r !== undefined && (r as JSONValue[]).length > 0);
    return nonEmpty ? 'list' : 'leaf';
  }
  if (a.kind === 'map' && a.atomic) return 'leaf';
  if ((l !== undefined && !isMap(l)) || (r !== undefined && !isMap(r))) return 'leaf';
  return (l !== undefined && !isEmptyMap(l as JSONMap)) || (r !== undefined && !isEmptyMap(r as JSONMap))
    ? 'map'
    : 'leaf';
}

function isEmptyMap(m: JSONMap): boolean {
  for (const k in m) if (Object.hasOwn(m, k)) return false;
  return true;
}

function mapChild(n: SchemaNode, a: Atom, key: string): SchemaNode {
  return child(n, a.kind === 'map' ? fieldSchema(a, key) : undefined);
}

function listChild(n: SchemaNode, a: Atom): SchemaNode {
  return child(n, a.kind === 'list' ? a.element : undefined);
}

/** listItemToPathElement. */
export function listItemPE(n: SchemaNode, a: Atom & { kind: 'list' }, item: JSONValue, index: number): string {
  if (a.relationship === 'map' && a.keys.length > 0) {
    if (item === null) throw new TypedError('associative list with keys may not have a null element');
    if (!isMap(item)) throw new TypedError('associative list with keys may not have non-map elements');
    const elem = atomOf(listChild(n, a));
    const fields: [string, JSONValue][] = [];
    for (const k of a.keys) {
      if (Object.hasOwn(item, k)) fields.push([k, item[k]!]);
      else {
        const def = elem.kind === 'map' ? fieldSchema(elem, k)?.default : undefined;
        if (def !== undefined) fields.push([k, def as JSONValue]);
      }
    }
    if (fields.length === 0)
      throw new TypedError(
        `associative list with keys has an element that omits all key fields ${goStringList(a.keys)} (and doesn't have default values for any key fields)`,
      );
    return keyPE(fields);
  }
  if (a.relationship === 'set' || a.relationship === 'map') {
    if (isMap(item)) throw new TypedError("associative list without keys has an element that's a map type");
    if (Array.isArray(item)) throw new TypedError('not supported: associative list with lists as elements');
    if (item === null) throw new TypedError("associative list without keys has an element that's an explicit null");
    return valuePE(item);
  }
  return indexPE(index);
}

function goStringList(l: string[]): string {
  return `[${l.map((s) => JSON.stringify(s)).join(' ')}]`;
}

/** TypedValue.ToFieldSet. */
export function toFieldSet(v: JSONValue, n: SchemaNode): FieldSet {
  const set = new FieldSet();
  walkFieldSet(v, n, [], set);
  return set;
}

function walkFieldSet(v: JSONValue, n: SchemaNode, path: string[], set: FieldSet): void {
  const a = atomOf(n);
  const shape = shapeOf(a, v, undefined);
  if (shape === 'leaf') {
    // An empty granular map or list adds nothing by itself (its parent records it when due).
    if ((a.kind === 'map' && !a.atomic) || (a.kind === 'list' && a.relationship !== 'atomic') || a.kind === 'deduced') {
      if (isMap(v) || (Array.isArray(v) && a.kind === 'list')) return;
    }
    set.insert(path);
    return;
  }
  if (shape === 'list') {
    const items = v as JSONValue[];
    const la = a as Atom & { kind: 'list' };
    const pes = items.map((item, i) => listItemPE(n, la, item, i));
    const count = new Map<string, number>();
    for (const pe of pes) count.set(pe, (count.get(pe) ?? 0) + 1);
    const elem = listChild(n, a);
    items.forEach((item, i) => {
      const pe = pes[i]!;
      const p = [...path, pe];
      if (count.get(pe)! > 1) {
        set.insert(p);
        return;
      }
      walkFieldSet(item, elem, p, set);
      set.insert(p);
    });
    return;
  }
  for (const [k, val] of Object.entries(v as JSONMap)) {
    const p = [...path, fieldPE(k)];
    walkFieldSet(val, mapChild(n, a, k), p, set);
    if (val === null || (isMap(val) && Object.keys(val).length === 0)) set.insert(p);
    else if (!isDeclaredField(a, k)) set.insert(p);
  }
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** TypedValue.Compare(lhs, rhs). */
export function compare(l: JSONValue, r: JSONValue, n: SchemaNode): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  walkCompare(l, r, n, [], c);
  return c;
}

function walkCompare(
  l: JSONValue | undefined,
  r: JSONValue | undefined,
  n: SchemaNode,
  path: string[],
  c: Comparison,
): void {
  const a = atomOf(n);
  const shape = shapeOf(a, l, r);
  if (shape === 'leaf') {
    if (l === undefined) c.added.insert(path);
    else if (r === undefined) c.removed.insert(path);
    else if (!deepEqual(l, r)) c.modified.insert(path);
    return;
  }
  if (shape === 'map') {
    const lm = (l ?? {}) as JSONMap;
    const rm = (r ?? {}) as JSONMap;
    // The union of both key sets in Object.keys order (left's, then right's own), without building
    // it; the path is extended in place (insert copies nothing of it).
    for (const k in lm) {
      if (!Object.hasOwn(lm, k)) continue;
      path.push(fieldPE(k));
      walkCompare(lm[k], rm[k], mapChild(n, a, k), path, c);
      path.pop();
    }
    for (const k in rm) {
      if (!Object.hasOwn(rm, k) || Object.hasOwn(lm, k)) continue;
      path.push(fieldPE(k));
      walkCompare(lm[k], rm[k], mapChild(n, a, k), path, c);
      path.pop();
    }
  } else {
    const la = a as Atom & { kind: 'list' };
    const elem = listChild(n, a);
    const index = (list: JSONValue[] | undefined) => {
      const m = new Map<string, JSONValue[]>();
      (list ?? []).forEach((item, i) => {
        const pe = listItemPE(n, la, item, i);
        const got = m.get(pe);
        if (got) got.push(item);
        else m.set(pe, [item]);
      });
      return m;
    };
    const lv = index(l as JSONValue[] | undefined);
    const rv = index(r as JSONValue[] | undefined);
    for (const pe of new Set([...lv.keys(), ...rv.keys()])) {
      const ll = lv.get(pe) ?? [];
      const rl = rv.get(pe) ?? [];
      const p = [...path, pe];
      if (ll.length <= 1 && rl.length <= 1) walkCompare(ll[0], rl[0], elem, p, c);
      else if (ll.length >= 2 && rl.length >= 2) {
        if (!deepEqual(ll, rl)) c.modified.insert(p);
      } else if (ll.length >= 2) {
        if (rl.length) walkCompare(undefined, rl[0], elem, p, c);
        c.removed.insert(p);
      } else {
        if (ll.length) walkCompare(ll[0], undefined, elem, p, c);
        c.added.insert(p);
      }
    }
  }
  if (l === undefined) c.added.insert(path);
  else if (r === undefined) c.removed.insert(path);
}

export function deepEqual(a: JSONValue | undefined, b: JSONValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as JSONValue[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ka = Object.keys(a);
  const bm = b as JSONMap;
  return ka.length === Object.keys(bm).length && ka.every((k) => Object.hasOwn(bm, k) && deepEqual(a[k], bm[k]));
}

/** TypedValue.Merge: `r` (the applied configuration) wins on leaves. */
export function merge(l: JSONValue | undefined, r: JSONValue | undefined, n: SchemaNode): JSONValue | undefined {
  if (r === undefined) return l;
  if (l === undefined) return r;
  const a = atomOf(n);
  const shape = shapeOf(a, l, r);
  if (shape === 'leaf') return r;
  if (shape === 'map') {
    const lm = l as JSONMap;
    const rm = r as JSONMap;
    const out: JSONMap = {};
    for (const k of new Set([...Object.keys(lm), ...Object.keys(rm)])) {
      const v = merge(lm[k], rm[k], mapChild(n, a, k));
      if (v !== undefined) out[k] = v;
    }
    return out;
  }
  return mergeList(l as JSONValue[], r as JSONValue[], n, a as Atom & { kind: 'list' });
}

/** mergingWalker.visitListItems: the applied order wins for shared items; live-only items keep their place. */
function mergeList(lhs: JSONValue[], rhs: JSONValue[], n: SchemaNode, a: Atom & { kind: 'list' }): JSONValue[] {
  const elem = listChild(n, a);
  const rPEs: string[] = [];
  const observedR = new Map<string, JSONValue>();
  rhs.forEach((item, i) => {
    const pe = listItemPE(n, a, item, i);
    if (observedR.has(pe)) throw new TypedError(`duplicate entries for key ${pe}`);
    observedR.set(pe, item);
    rPEs.push(pe);
  });
  const lPEs: string[] = [];
  const observedL = new Map<string, JSONValue | undefined>();
  lhs.forEach((item, i) => {
    const pe = listItemPE(n, a, item, i);
    // Duplicated live items are not merged with the new value.
    observedL.set(pe, observedL.has(pe) ? undefined : item);
    lPEs.push(pe);
  });
  const shared = rPEs.filter((pe) => observedL.has(pe));
  let nextShared: string | undefined = shared.shift();
  const merged = new Set<string>();
  const out: JSONValue[] = [];
  const push = (v: JSONValue | undefined) => {
    if (v !== undefined) out.push(v);
  };
  let lI = 0;
  let rI = 0;
  while (lI < lPEs.length || rI < rPEs.length) {
    if (lI < lPEs.length && rI < rPEs.length) {
      const pe = lPEs[lI]!;
      if (pe === rPEs[rI]) {
        merged.add(pe);
        push(merge(observedL.get(pe), observedR.get(pe), elem));
        lI++;
        rI++;
        nextShared = shared.shift();
        continue;
      }
      if (observedR.has(pe) && nextShared !== undefined && nextShared !== pe) {
        lI++;
        continue;
      }
    }
    if (lI < lPEs.length) {
      const pe = lPEs[lI]!;
      if (!observedR.has(pe)) {
        push(merge(lhs[lI], undefined, elem));
        lI++;
        continue;
      } else if (merged.has(pe)) {
        lI++;
      }
    }
    if (rI < rPEs.length) {
      const pe = rPEs[rI]!;
      merged.add(pe);
      push(merge(observedL.get(pe), observedR.get(pe), elem));
      rI++;
      if (nextShared !== undefined && nextShared === pe) nextShared = shared.shift();
    }
  }
  return out;
}

/** TypedValue.RemoveItems: drops every member of `set` (and what is below it). */
export function removeItems(v: JSONValue, set: FieldSet, n: SchemaNode): JSONValue {
  const a = atomOf(n);
  const shape = shapeOf(a, v, undefined);
  if (shape === 'list') {
    const la = a as Atom & { kind: 'list' };
    const elem = listChild(n, a);
    const out: JSONValue[] = [];
    (v as JSONValue[]).forEach((item, i) => {
      const pe = listItemPE(n, la, item, i);
      if (set.members.has(pe)) return;
      const sub = set.withPrefix(pe);
      out.push(sub ? removeItems(item, sub, elem) : item);
    });
    return out;
  }
  if (shape === 'map') {
    const out: JSONMap = {};
    for (const [k, val] of Object.entries(v as JSONMap)) {
      const pe = fieldPE(k);
      if (set.members.has(pe)) continue;
      const sub = set.withPrefix(pe);
      if (!sub) {
        out[k] = val;
        continue;
      }
      const kept = removeItems(val, sub, mapChild(n, a, k));
      // An emptied map or list is dropped, as the typed object omits it.
      if (
        (isMap(kept) && Object.keys(kept).length === 0 && !isEmpty(val)) ||
        (Array.isArray(kept) && kept.length === 0 && !isEmpty(val))
      )
        continue;
      out[k] = kept;
    }
    return out;
  }
  return v;
}

const isEmpty = (v: JSONValue): boolean =>
  isMap(v) ? Object.keys(v).length === 0 : Array.isArray(v) && v.length === 0;

/** Set.EnsureNamedFieldsAreMembers: a struct's named fields that have children are members too. */
export function ensureNamedFieldsAreMembers(set: FieldSet, n: SchemaNode): FieldSet {
  const a = atomOf(n);
  const out = new FieldSet();
  for (const m of set.members) out.members.add(m);
  for (const [pe, c] of set.children) {
    let cn: SchemaNode;
    if (pe.startsWith('f:')) {
      const name = pe.slice(2);
      if (a.kind === 'map' && isDeclaredField(a, name)) out.members.add(pe);
      cn = mapChild(n, a, name);
    } else {
      cn = listChild(n, a);
    }
    out.children.set(pe, ensureNamedFieldsAreMembers(c, cn));
  }
  return out;
}
