// Label selectors with upstream's syntax, validation and messages (k8s.io/apimachinery/pkg/labels/
// selector.go: the lexer, the parser and NewRequirement; validation from pkg/util/validation).

import { aggregateMessage, FieldError, invalid, Path, type ErrorList } from '../../util/validation/field.ts';
import { validateLabelValue, validateQualifiedName } from '../../util/validation/validation.ts';

export type Operator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

export type Labels = Record<string, string>;

export class LabelSelector {
  readonly requirements: Requirement[];
  constructor(requirements: Requirement[]) {
    this.requirements = requirements;
  }

  empty(): boolean {
    return this.requirements.length === 0;
  }

  matches(labels: Labels | undefined): boolean {
    const ls = labels ?? {};
    for (const r of this.requirements) if (!matchRequirement(r, ls)) return false;
    return true;
  }

  /** The value a requirement pins the label to (RequiresExactMatch), for index lookups. */
  requiresExactMatch(label: string): string | undefined {
    for (const r of this.requirements) {
      if (r.key !== label) continue;
      if ((r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1)
        return r.values[0];
      return undefined;
    }
    return undefined;
  }

  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

export const everythingLabels = new LabelSelector([]);

function matchRequirement(r: Requirement, ls: Labels): boolean {
  const has = Object.prototype.hasOwnProperty.call(ls, r.key);
  const v = has ? ls[r.key]! : '';
  switch (r.operator) {
    case '=':
    case '==':
    case 'in':
      return has && r.values.includes(v);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(v);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has) return false;
      if (!/^[+-]?\d+$/.test(v)) return false;
      const lv = BigInt(v);
      const rv = BigInt(r.values[0]!);
      return r.operator === 'gt' ? lv > rv : lv < rv;
    }
  }
}

function requirementString(r: Requirement): string {
  switch (r.operator) {
    case '!':
      return `!${r.key}`;
    case 'exists':
      return r.key;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
    case 'gt':
      return `${r.key}>${r.values[0]}`;
    case 'lt':
      return `${r.key}<${r.values[0]}`;
    default:
      return `${r.key}${r.operator}${r.values[0]}`;
  }
}

export class SelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorParseError';
  }
}

/** labels.NewRequirement's checks; the message is the aggregate of field errors. */
function newRequirement(key: string, op: Operator, values: string[]): Requirement {
  const errs: ErrorList = [];
  const keyErrs = validateQualifiedName(key);
  if (keyErrs.length) errs.push(invalid(Path.of('key'), key, keyErrs.join('; ')));
  switch (op) {
    case 'in':
    case 'notin':
      if (!values.length)
        errs.push(invalid(Path.of('values'), values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1)
        errs.push(invalid(Path.of('values'), values, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length)
        errs.push(invalid(Path.of('values'), values, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1)
        errs.push(invalid(Path.of('values'), values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (!/^[+-]?\d+$/.test(v)) {
          errs.push(invalid(Path.of('values').index(i), v, "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      });
      break;
  }
  values.forEach((v, i) => {
    const ve = validateLabelValue(v);
    if (ve.length) errs.push(invalid(Path.of('values').index(i).key(key), v, ve.join('; ')));
  });
  if (errs.length) throw new SelectorParseError(aggregateMessage(errs));
  return { key, operator: op, values };
}

type Tok = 'err' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'in' | '<' | '!=' | 'notin' | '(' | 'id';
const literalTokens: Record<string, Tok> = {
  ')': ')',
  ',': ',',
  '!': '!',
  '==': '==',
  '=': '=',
  '>': '>',
  in: 'in',
  '<': '<',
  '!=': '!=',
  notin: 'notin',
  '(': '(',
};
const isWhitespace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string) => '=!(),><'.includes(c);

function lex(s: string): { tok: Tok; lit: string }[] {
  const out: { tok: Tok; lit: string }[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos]!)) pos++;
    if (pos >= s.length) {
      out.push({ tok: 'eos', lit: '' });
      return out;
    }
    if (isSpecial(s[pos]!)) {
      let buf = '';
      let last: { tok: Tok; lit: string } | undefined;
      while (pos < s.length && isSpecial(s[pos]!)) {
        buf += s[pos];
        pos++;
        const t = literalTokens[buf];
        if (t) last = { tok: t, lit: buf };
        else if (last) {
          pos--;
          break;
        }
      }
      out.push(last ?? { tok: 'err', lit: `error expected: keyword found '${buf}'` });
      continue;
    }
    let buf = '';
    while (pos < s.length && !isSpecial(s[pos]!) && !isWhitespace(s[pos]!)) buf += s[pos++];
    const t = literalTokens[buf];
    out.push({ tok: t ?? 'id', lit: buf });
  }
}

const binaryOperators = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

/** labels.Parse: requirements sorted by key; errors carry upstream's messages. */
export function parseLabelSelector(selector: string): LabelSelector {
  const items = lex(selector);
  let pos = 0;
  const look = (values: boolean) => {
    const it = items[pos]!;
    return values && (it.tok === 'in' || it.tok === 'notin') ? { tok: 'id' as Tok, lit: it.lit } : it;
  };
  const consume = (values: boolean) => {
    const it = look(values);
    pos++;
    return it;
  };
  const parseRequirement = (): Requirement => {
    let op: Operator | undefined;
    let t = consume(true);
    if (t.tok === '!') {
      op = '!';
      t = consume(true);
    }
    if (t.tok !== 'id') throw new SelectorParseError(`found '${t.lit}', expected: identifier`);
    const key = t.lit;
    const keyErrs = validateQualifiedName(key);
    if (keyErrs.length)
      // A nil field path prints as <nil> in upstream's message.
      throw new SelectorParseError(new FieldError('FieldValueInvalid', '<nil>', key, keyErrs.join('; ')).toString());
    const next = look(true).tok;
    if (next === 'eos' || next === ',') return newRequirement(key, op === '!' ? '!' : 'exists', []);
    if (op === '!') return newRequirement(key, '!', []);
    const o = consume(false);
    const opMap: Partial<Record<Tok, Operator>> = {
      in: 'in',
      '=': '=',
      '==': '==',
      '>': 'gt',
      '<': 'lt',
      notin: 'notin',
      '!=': '!=',
    };
    const operator = opMap[o.tok];
    if (!operator) throw new SelectorParseError(`found '${o.lit}', expected: ${binaryOperators.join(', ')}`);
    let values: Set<string>;
    if (operator === 'in' || operator === 'notin') {
      const open = consume(true);
      if (open.tok !== '(') throw new SelectorParseError(`found '${open.lit}' expected: '('`);
      const l = look(true);
      if (l.tok === 'id' || l.tok === ',') {
        values = new Set();
        for (;;) {
          const v = consume(true);
          if (v.tok === 'id') {
            values.add(v.lit);
            const n = look(true);
            if (n.tok === ',') continue;
            if (n.tok === ')') break;
            throw new SelectorParseError(`found '${n.lit}', expected: ',' or ')'`);
          } else if (v.tok === ',') {
            if (!values.size) values.add('');
            const n = look(true);
            if (n.tok === ')') {
              values.add('');
              break;
            }
            if (n.tok === ',') values.add('');
          } else throw new SelectorParseError(`found '${v.lit}', expected: ',', or identifier`);
        }
        if (consume(true).tok !== ')') throw new SelectorParseError(`found '${l.lit}', expected: ')'`);
      } else if (l.tok === ')') {
        consume(true);
        values = new Set(['']);
      } else throw new SelectorParseError(`found '${l.lit}', expected: ',', ')' or identifier`);
    } else {
      const l = look(true);
      if (l.tok === 'eos' || l.tok === ',') values = new Set(['']);
      else {
        const v = consume(true);
        if (v.tok !== 'id') throw new SelectorParseError(`found '${v.lit}', expected: identifier`);
        values = new Set([v.lit]);
      }
    }
    return newRequirement(key, operator, [...values].sort());
  };

  const reqs: Requirement[] = [];
  for (;;) {
    const t = look(true);
    if (t.tok === 'id' || t.tok === '!') {
      try {
        reqs.push(parseRequirement());
      } catch (err) {
        throw new SelectorParseError(`unable to parse requirement: ${(err as Error).message}`);
      }
      const after = consume(true);
      if (after.tok === 'eos') break;
      if (after.tok === ',') {
        const t2 = look(true);
        if (t2.tok !== 'id' && t2.tok !== '!')
          throw new SelectorParseError(`found '${t2.lit}', expected: identifier after ','`);
        continue;
      }
      throw new SelectorParseError(`found '${after.lit}', expected: ',' or 'end of string'`);
    }
    if (t.tok === 'eos') break;
    throw new SelectorParseError(`found '${t.lit}', expected: !, identifier, or 'end of string'`);
  }
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return new LabelSelector(reqs);
}

/** labels.SelectorFromSet: equality on every pair. */
export function labelSelectorFromSet(set: Labels): LabelSelector {
  return new LabelSelector(
    Object.keys(set)
      .sort()
      .map((k) => ({ key: k, operator: '=' as Operator, values: [set[k]!] })),
  );
}
