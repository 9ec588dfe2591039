// JSON Patch (RFC 6902) with the behaviour and messages of gopkg.in/evanphx/json-patch.v4, which
// k8s.io/apiserver/pkg/endpoints/handlers/patch.go applies for application/json-patch+json:
// negative array indices allowed, errors wrapped as pkg/errors does (`outer: inner`).

type JSONValue = null | boolean | number | string | JSONValue[] | { [k: string]: JSONValue };
type Container = JSONValue[] | { [k: string]: JSONValue };

/** A patch that could not be applied: the handler answers 422 with this message. */
export class JSONPatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JSONPatchError';
  }
}

const errMissing = 'missing value';
const errInvalidIndex = 'invalid index referenced';
const errTestFailed = 'test failed';
const wrap = (msg: string, inner: string): string => `${msg}: ${inner}`;

export interface Operation {
  op?: unknown;
  path?: unknown;
  from?: unknown;
  value?: JSONValue;
}

/**
 * DecodePatch: the body must be a JSON array of objects. Returns the message Go's json.Unmarshal
 * gives otherwise (the handler answers 400 with it).
 */
export function decodePatch(body: unknown): Operation[] | string {
  if (!Array.isArray(body)) return `json: cannot unmarshal ${goJSONType(body)} into Go value of type jsonpatch.Patch`;
  for (const op of body)
    if (op !== null && (typeof op !== 'object' || Array.isArray(op)))
      return `json: cannot unmarshal ${goJSONType(op)} into Go value of type jsonpatch.Operation`;
  return body.map((op) => op ?? {});
}

function goJSONType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;
}

const isContainer = (v: JSONValue | undefined): v is Container => typeof v === 'object' && v !== null;
const decodeKey = (k: string): string => k.replace(/~1/g, '/').replace(/~0/g, '~');

function atoi(key: string): number | string {
  if (!/^[+-]?\d+$/.test(key)) return `strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`;
  return Number(key);
}

/** partialArray index resolution for get/set/remove (negative counts from the end). */
function arrayIndex(ary: JSONValue[], key: string): number | string {
  const idx = atoi(key);
  if (typeof idx === 'string') return idx;
  let i = idx;
  if (i < 0) {
    if (i < -ary.length) return wrap(`Unable to access invalid index: ${idx}`, errInvalidIndex);
    i += ary.length;
  }
  if (i >= ary.length) return wrap(`Unable to access invalid index: ${idx}`, errInvalidIndex);
  return i;
}

function get(con: Container, key: string): { value: JSONValue | undefined } | string {
  if (Array.isArray(con)) {
    const i = arrayIndex(con, key);
    return typeof i === 'string' ? i : { value: con[i] };
  }
  if (!Object.hasOwn(con, key)) return wrap(`unable to get nonexistent key: ${key}`, errMissing);
  return { value: con[key] };
}

function add(con: Container, key: string, value: JSONValue): string | undefined {
  if (!Array.isArray(con)) {
    con[key] = value;
    return;
  }
  if (key === '-') {
    con.push(value);
    return;
  }
  const idx = atoi(key);
  if (typeof idx === 'string') return wrap(`value was not a proper array index: '${key}'`, idx);
  let i = idx;
  if (i > con.length || i < -(con.length + 1)) return wrap(`Unable to access invalid index: ${idx}`, errInvalidIndex);
  if (i < 0) i += con.length + 1;
  con.splice(i, 0, value);
}

function remove(con: Container, key: string): string | undefined {
  if (!Array.isArray(con)) {
    if (!Object.hasOwn(con, key)) return wrap(`Unable to remove nonexistent key: ${key}`, errMissing);
    delete con[key];
    return;
  }
  const i = arrayIndex(con, key);
  if (typeof i === 'string') return i;
  con.splice(i, 1);
}

/** findObject: the container holding the last segment of `path`, and that segment. */
function findObject(doc: Container, path: string): { con: Container; key: string } | undefined {
  const split = path.split('/');
  if (split.length < 2) return undefined;
  let con: Container = doc;
  for (const part of split.slice(1, -1)) {
    const next = get(con, decodeKey(part));
    if (typeof next === 'string' || !isContainer(next.value)) return undefined;
    con = next.value;
  }
  return { con, key: decodeKey(split[split.length - 1]) };
}

function deepEqual(a: JSONValue | undefined, b: JSONValue | undefined): boolean {
  if (a === b) return true;
  if (!isContainer(a) || !isContainer(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as JSONValue[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  const ka = Object.keys(a);
  const bo = b as Record<string, JSONValue>;
  return ka.length === Object.keys(bo).length && ka.every((k) => Object.hasOwn(bo, k) && deepEqual(a[k], bo[k]));
}

const clone = <T extends JSONValue | undefined>(v: T): T => (v === undefined ? v : structuredClone(v));
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function applyOne(doc: Container, op: Operation): string | undefined {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  const path = str(op.path);
  const from = str(op.from);
  const value = op.value === undefined ? null : clone(op.value);
  switch (kind) {
    case 'add': {
      if (path === undefined) return wrap('add operation failed to decode path', errMissing);
      const t = findObject(doc, path);
      if (!t) return wrap(`add operation does not apply: doc is missing path: "${path}"`, errMissing);
      const e = add(t.con, t.key, value);
      return e && wrap(`error in add for path: '${path}'`, e);
    }
    case 'remove': {
      if (path === undefined) return wrap('remove operation failed to decode path', errMissing);
      const t = findObject(doc, path);
      if (!t) return wrap(`remove operation does not apply: doc is missing path: "${path}"`, errMissing);
      const e = remove(t.con, t.key);
      return e && wrap(`error in remove for path: '${path}'`, e);
    }
    case 'replace': {
      if (path === undefined) return wrap('replace operation failed to decode path', errMissing);
      const t = findObject(doc, path);
      if (!t) return wrap(`replace operation does not apply: doc is missing path: ${path}`, errMissing);
      const cur = get(t.con, t.key);
      if (typeof cur === 'string')
        return wrap(`replace operation does not apply: doc is missing key: ${path}`, errMissing);
      if (Array.isArray(t.con)) t.con[arrayIndex(t.con, t.key) as number] = value;
      else t.con[t.key] = value;
      return;
    }
    case 'move':
    case 'copy': {
      if (from === undefined) return wrap(`${kind} operation failed to decode from`, errMissing);
      const src = findObject(doc, from);
      if (!src) return wrap(`${kind} operation does not apply: doc is missing from path: ${from}`, errMissing);
      const v = get(src.con, src.key);
      if (typeof v === 'string')
        return wrap(kind === 'move' ? `error in move for path: '${src.key}'` : `error in copy for from: '${from}'`, v);
      if (kind === 'move') {
        const e = remove(src.con, src.key);
        if (e) return wrap(`error in move for path: '${src.key}'`, e);
      }
      if (path === undefined) return wrap(`${kind} operation failed to decode path`, errMissing);
      const dst = findObject(doc, path);
      if (!dst) return wrap(`${kind} operation does not apply: doc is missing destination path: ${path}`, errMissing);
      const e = add(dst.con, dst.key, kind === 'copy' ? clone(v.value ?? null) : (v.value ?? null));
      return (
        e && wrap(kind === 'move' ? `error in move for path: '${path}'` : 'error while adding value during copy', e)
      );
    }
    case 'test': {
      if (path === undefined) return wrap('test operation failed to decode path', errMissing);
      const t = findObject(doc, path);
      if (!t) return wrap(`test operation does not apply: is missing path: ${path}`, errMissing);
      const cur = get(t.con, t.key);
      if (typeof cur === 'string') return wrap(`error in test for path: '${path}'`, cur);
      return deepEqual(cur.value ?? null, value) ? undefined : wrap(`testing value ${path} failed`, errTestFailed);
    }
    default:
      return `Unexpected kind: ${kind}`;
  }
}

/** Applies `ops` to a copy of `doc`; throws JSONPatchError on the first operation that fails. */
export function applyJSONPatch<T extends Container>(doc: T, ops: readonly Operation[]): T {
  const out = structuredClone(doc);
  for (const op of ops) {
    const err = applyOne(out, op);
    if (err) throw new JSONPatchError(err);
  }
  return out;
}
