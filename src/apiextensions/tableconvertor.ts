// Table output of custom resources from a CRD version's additionalPrinterColumns
// (k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor/tableconvertor.go):
// Name first, then each column evaluated as the JSONPath template `{<jsonPath>}` (first match
// only, missing → null), `Age` when the version declares none (apiserver/helpers.go).
//
// The JSONPath subset printer columns use (client-go util/jsonpath): `.a.b`, `['a.b']`, `[0]`,
// `[-1]`, `[*]`, `..a` is not supported, `[?(@.type=="Ready")]` filters with == and !=.

import {
  humanDuration,
  nameColumn,
  type TableColumnDefinition,
  type TableConvertor,
} from '../registry/generic/table.ts';
import type { KubeObject } from '../registry/generic/store.ts';
import { goFloat } from './schema/validation.ts';
import type { PrinterColumn } from './types.ts';

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: Step[]; op: '==' | '!='; value: unknown };

export class JSONPathError extends Error {}

/** Parses `.a.b[0]['c']` (the template braces stripped). */
export function parseJSONPath(expr: string): Step[] {
  let s = expr.trim();
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1).trim();
  const steps: Step[] = [];
  let i = 0;
  const ident = () => {
    const m = /^[A-Za-z0-9_\-$/]+/.exec(s.slice(i));
    if (!m) throw new JSONPathError(`invalid field name at ${i} in ${expr}`);
    i += m[0].length;
    return m[0];
  };
  if (s[0] === '@' || s[0] === '$') i = 1;
  while (i < s.length) {
    const c = s[i];
    if (c === '.') {
      i++;
      if (s[i] === '.') throw new JSONPathError('recursive descent is not supported');
      if (s[i] === '*') {
        i++;
        steps.push({ kind: 'all' });
      } else if (i < s.length && s[i] !== '[') steps.push({ kind: 'field', name: ident() });
    } else if (c === '[') {
      const end = findClose(s, i);
      const inner = s.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'[^']*'$|^"[^"]*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else if (inner.startsWith('?(') && inner.endsWith(')')) steps.push(parseFilter(inner.slice(2, -1)));
      else throw new JSONPathError(`unsupported JSONPath element [${inner}]`);
    } else throw new JSONPathError(`unexpected ${JSON.stringify(c)} at ${i} in ${expr}`);
  }
  return steps;
}

function findClose(s: string, open: number): number {
  let depth = 0;
  let quote = '';
  for (let j = open; j < s.length; j++) {
    const c = s[j];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return j;
  }
  throw new JSONPathError('unclosed [');
}

function parseFilter(f: string): Step {
  const m = /^(@[^=!]*?)\s*(==|!=)\s*(.+)$/.exec(f.trim());
  if (!m) throw new JSONPathError(`unsupported filter ${f}`);
  const lit = m[3]!.trim();
  let value: unknown;
  if (/^'.*'$|^".*"$/.test(lit)) value = lit.slice(1, -1);
  else if (lit === 'true' || lit === 'false') value = lit === 'true';
  else if (!Number.isNaN(Number(lit))) value = Number(lit);
  else throw new JSONPathError(`unsupported filter value ${lit}`);
  return { kind: 'filter', path: parseJSONPath(m[1]!.trim()), op: m[2] as '==' | '!=', value };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** All results, in order (AllowMissingKeys: missing keys give no result). */
export function evalJSONPath(steps: Step[], root: unknown): unknown[] {
  let cur: unknown[] = [root];
  for (const st of steps) {
    const next: unknown[] = [];
    for (const v of cur) {
      if (st.kind === 'field') {
        if (isObject(v) && Object.hasOwn(v, st.name)) next.push(v[st.name]);
      } else if (st.kind === 'index') {
        if (Array.isArray(v)) {
          const i = st.index < 0 ? v.length + st.index : st.index;
          if (i >= 0 && i < v.length) next.push(v[i]);
        }
      } else if (st.kind === 'all') {
        if (Array.isArray(v)) next.push(...v);
        else if (isObject(v)) next.push(...Object.values(v));
      } else {
        const items = Array.isArray(v) ? v : isObject(v) ? Object.values(v) : [];
        for (const item of items) {
          const got = evalJSONPath(st.path, item);
          const eq = got.length > 0 && got[0] === st.value;
          if ((st.op === '==' && eq) || (st.op === '!=' && got.length > 0 && !eq)) next.push(item);
        }
      }
    }
    cur = next;
  }
  return cur;
}

/** The text jsonpath's PrintResults gives a value. */
function printValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : goFloat(v);
  if (typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** metav1.Time from RFC 3339. */
function parseTime(s: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s)) return undefined;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** cellForJSONValue. */
function cellFor(type: string, value: unknown, now: Date): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'string':
      return typeof value === 'string' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      const t = parseTime(value);
      return t ? humanDuration(now.getTime() - t.getTime()) : '<invalid>';
    }
  }
  return null;
}

const creationTimestampDescription =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** The columns of a version: its own, or Age. */
export function printerColumns(columns: PrinterColumn[] | undefined): PrinterColumn[] {
  if (columns && columns.length > 0) return columns;
  return [
    { name: 'Age', type: 'date', description: creationTimestampDescription, jsonPath: '.metadata.creationTimestamp' },
  ];
}

/** The TableConvertor of a CRD version. Columns whose JSONPath does not parse print null. */
export function newTableConvertor(columns: PrinterColumn[] | undefined): TableConvertor {
  const cols = printerColumns(columns);
  const parsed = cols.map((c) => {
    try {
      return parseJSONPath(c.jsonPath ?? '');
    } catch {
      return undefined;
    }
  });
  const defs: TableColumnDefinition[] = [
    nameColumn,
    ...cols.map((c) => ({
      name: c.name ?? '',
      type: c.type ?? '',
      format: c.format ?? '',
      description: c.description ?? '',
      priority: c.priority ?? 0,
    })),
  ];
  return {
    columns: defs,
    cells(obj: KubeObject, now: Date): unknown[] {
      const cells: unknown[] = [obj.metadata.name ?? ''];
      cols.forEach((c, i) => {
        const steps = parsed[i];
        const results = steps ? evalJSONPath(steps, obj) : [];
        if (results.length === 0) {
          cells.push(null);
          return;
        }
        const v = results[0];
        cells.push(c.type === 'string' ? printValue(v) : cellFor(c.type ?? '', v, now));
      });
      return cells;
    },
  };
}
