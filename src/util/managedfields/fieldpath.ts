// Field sets (sigs.k8s.io/structured-merge-diff/fieldpath: PathElement, Set) and their FieldsV1
// encoding (fieldpath/serialize.go, serialize-pe.go): a path element is `f:<field>`,
// `k:<json object of the key fields, sorted>` (an item of a list-type map), `v:<json value>` (an
// item of a set) or `i:<index>`; a set is a tree whose nodes are members (`{}`, or `".": {}` beside
// children) and children.

type JSONValue = null | boolean | number | string | JSONValue[] | { [k: string]: JSONValue };

export const fieldPE = (name: string): string => `f:${name}`;
export const valuePE = (v: JSONValue): string => `v:${JSON.stringify(v)}`;
export const indexPE = (i: number): string => `i:${i}`;

/** `k:{...}` with the key fields sorted by name (value.FieldList.Sort). */
export function keyPE(fields: [string, JSONValue][]): string {
  const sorted = [...fields].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `k:{${sorted.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
}

/** A path element's kind in PathElement order (a switch: this runs for every pair a sort compares). */
function rank(pe: string): number {
  switch (pe[0]) {
    case 'f':
      return 0;
    case 'k':
      return 1;
    case 'v':
      return 2;
    case 'i':
      return 3;
    default:
      return 4;
  }
}

/** PathElement.Compare: field names first, then keys, values, indices. */
export function comparePE(a: string, b: string): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 3) return Number(a.slice(2)) - Number(b.slice(2));
  if (ra === 2) {
    const va = JSON.parse(a.slice(2)) as unknown;
    const vb = JSON.parse(b.slice(2)) as unknown;
    if (typeof va === 'number' && typeof vb === 'number') return va - vb;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/** value.ToString: strings quoted, the rest as Go prints them. */
function valueString(v: JSONValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(', ')}]`;
  if (typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}=${valueString(x)}`)
      .join(', ')}}`;
  return String(v);
}

/** PathElement.String(): `.name`, `[k="v",k2=1]`, `[="v"]`, `[0]`. */
export function peString(pe: string): string {
  const body = pe.slice(2);
  switch (pe[0]) {
    case 'f':
      return `.${body}`;
    case 'k': {
      const m = JSON.parse(body) as Record<string, JSONValue>;
      return `[${Object.entries(m)
        .map(([k, v]) => `${k}=${valueString(v)}`)
        .join(',')}]`;
    }
    case 'v':
      return `[=${valueString(JSON.parse(body) as JSONValue)}]`;
    default:
      return `[${body}]`;
  }
}

export const pathString = (path: readonly string[]): string => path.map(peString).join('');

/** fieldpath.Set. */
export class FieldSet {
  readonly members = new Set<string>();
  readonly children = new Map<string, FieldSet>();

  static of(...paths: (readonly string[])[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: readonly string[]): void {
    if (path.length === 0) return;
    let s: FieldSet | undefined;
    for (let i = 0; i < path.length - 1; i++) {
      const parent: FieldSet = s ?? this;
      s = parent.children.get(path[i]!);
      if (!s) parent.children.set(path[i]!, (s = new FieldSet()));
    }
    (s ?? this).members.add(path[path.length - 1]!);
  }

  has(path: readonly string[]): boolean {
    if (path.length === 0) return false;
    let s: FieldSet | undefined = this.children.get(path[0]!);
    if (path.length === 1) return this.members.has(path[0]!);
    for (let i = 1; i < path.length - 1 && s; i++) s = s.children.get(path[i]!);
    return !!s && s.members.has(path[path.length - 1]!);
  }

  withPrefix(pe: string): FieldSet | undefined {
    return this.children.get(pe);
  }

  empty(): boolean {
    if (this.members.size > 0) return false;
    for (const c of this.children.values()) if (!c.empty()) return false;
    return true;
  }

  union(o: FieldSet): FieldSet {
    const out = this.clone();
    out.addAll(o);
    return out;
  }

  private addAll(o: FieldSet): void {
    for (const m of o.members) this.members.add(m);
    for (const [pe, c] of o.children) {
      let mine = this.children.get(pe);
      if (!mine) this.children.set(pe, (mine = new FieldSet()));
      mine.addAll(c);
    }
  }

  clone(): FieldSet {
    const out = new FieldSet();
    out.addAll(this);
    return out;
  }

  /** Members of this not in o; children recursively (a member of o does not remove a subtree). */
  difference(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!o.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const oc = o.children.get(pe);
      const d = oc ? c.difference(oc) : c.clone();
      if (!d.empty()) out.children.set(pe, d);
    }
    return out;
  }

  intersection(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (o.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const oc = o.children.get(pe);
      if (!oc) continue;
      const i = c.intersection(oc);
      if (!i.empty()) out.children.set(pe, i);
    }
    return out;
  }

  /** Every member path as Set.Iterate lists them: members first, then each child's, in PathElement order. */
  paths(prefix: string[] = [], out: string[][] = []): string[][] {
    for (const pe of [...this.members].sort(comparePE)) out.push([...prefix, pe]);
    for (const pe of [...this.children.keys()].sort(comparePE)) this.children.get(pe)!.paths([...prefix, pe], out);
    return out;
  }

  equals(o: FieldSet): boolean {
    return this.difference(o).empty() && o.difference(this).empty();
  }

  /** FieldsV1 JSON (SetToFields). */
  toFieldsV1(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    // Members, then children that are not members too (most sets have few children).
    const pes = [...this.members];
    if (this.children.size) for (const pe of this.children.keys()) if (!this.members.has(pe)) pes.push(pe);
    if (pes.length > 1) pes.sort(comparePE);
    for (const pe of pes) {
      const c = this.children.get(pe);
      if (c && !c.empty()) {
        const inner: Record<string, unknown> = {};
        if (this.members.has(pe)) inner['.'] = {};
        Object.assign(inner, c.toFieldsV1());
        out[pe] = inner;
      } else if (this.members.has(pe)) {
        out[pe] = {};
      }
    }
    return out;
  }

  /** FieldsToSet; throws on a malformed FieldsV1 document. */
  static fromFieldsV1(v: unknown): FieldSet {
    const s = new FieldSet();
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('expected an object');
    for (const [pe, inner] of Object.entries(v)) {
      if (pe === '.') continue;
      if (!/^(f:|k:\{|v:|i:\d)/.test(pe)) throw new Error(`unknown path element ${JSON.stringify(pe)}`);
      if (pe[0] === 'k' || pe[0] === 'v') JSON.parse(pe.slice(2));
      if (typeof inner !== 'object' || inner === null || Array.isArray(inner))
        throw new Error(`expected an object at ${JSON.stringify(pe)}`);
      const keys = Object.keys(inner);
      if (keys.length === 0 || keys.includes('.')) s.members.add(pe);
      if (keys.some((k) => k !== '.')) {
        const c = FieldSet.fromFieldsV1(inner);
        if (!c.empty()) s.children.set(pe, c);
      }
    }
    return s;
  }
}
