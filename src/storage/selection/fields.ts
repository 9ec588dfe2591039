// Field selectors (k8s.io/apimachinery/pkg/fields/selector.go): `k=v`, `k==v`, `k!=v` joined by
// commas, with `\` escaping `,`, `=`, `!` and `\` in values. Which fields a resource supports is the
// registry's business (its field label conversion); here a missing field matches as "".

export type Fields = Record<string, string>;

export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

export class FieldSelector {
  readonly requirements: FieldRequirement[];
  constructor(requirements: FieldRequirement[]) {
    this.requirements = requirements;
  }

  empty(): boolean {
    return this.requirements.length === 0;
  }

  matches(fields: Fields | undefined): boolean {
    const fs = fields ?? {};
    for (const r of this.requirements) {
      const v = fs[r.field] ?? '';
      if (r.operator === '=' ? v !== r.value : v === r.value) return false;
    }
    return true;
  }

  requiresExactMatch(fieldName: string): string | undefined {
    for (const r of this.requirements) if (r.field === fieldName && r.operator === '=') return r.value;
    return undefined;
  }

  /** Rewrites field names (the registry's field label conversion); throws what `fn` throws. */
  transform(fn: (field: string, value: string) => [string, string]): FieldSelector {
    return new FieldSelector(
      this.requirements.map((r) => {
        const [f, v] = fn(r.field, r.value);
        return { field: f, operator: r.operator, value: v };
      }),
    );
  }

  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeValue(r.value)}`).join(',');
  }
}

export const everythingFields = new FieldSelector([]);

export class FieldSelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FieldSelectorParseError';
  }
}

function escapeValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/=/g, '\\=').replace(/!/g, '\\!');
}

function unescapeValue(v: string): string {
  if (!v.includes('\\')) return v;
  let out = '';
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c !== '\\') {
      if (c === '=' || c === ',' || c === '!')
        throw new FieldSelectorParseError(`invalid field selector: unescaped character ${c}`);
      out += c;
      continue;
    }
    const n = v[i + 1];
    if (n === undefined || !'\\,=!'.includes(n)) {
      throw new FieldSelectorParseError(`invalid field selector: invalid escape sequence: \\${n ?? ''}`);
    }
    out += n;
    i++;
  }
  return out;
}

/** Splits on unescaped commas. */
function splitTerms(s: string): string[] {
  if (!s) return [];
  const terms: string[] = [];
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

const termOperators = ['!=', '==', '='] as const;

/** fields.ParseSelector. */
export function parseFieldSelector(selector: string): FieldSelector {
  const reqs: FieldRequirement[] = [];
  for (const term of splitTerms(selector)) {
    if (!term) continue;
    let found = false;
    for (let i = 0; i < term.length && !found; i++) {
      if (term[i] === '\\') {
        i++;
        continue;
      }
      for (const op of termOperators) {
        if (term.startsWith(op, i)) {
          const value = unescapeValue(term.slice(i + op.length));
          reqs.push({ field: term.slice(0, i), operator: op === '!=' ? '!=' : '=', value });
          found = true;
          break;
        }
      }
    }
    if (!found) throw new FieldSelectorParseError(`invalid selector: '${selector}'; can't understand '${term}'`);
  }
  return new FieldSelector(reqs);
}

/** fields.SelectorFromSet / OneTermEqualSelector. */
export function fieldSelectorFromSet(set: Fields): FieldSelector {
  return new FieldSelector(
    Object.keys(set)
      .sort()
      .map((k) => ({ field: k, operator: '=' as const, value: set[k]! })),
  );
}
