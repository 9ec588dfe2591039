// A small pflag: kube-apiserver's flag syntax, value types, error messages and sectioned help
// (component-base cli/flag NamedFlagSets). Portable, so edge adapters parse the same strings.

import { formatGoDuration, parseGoDuration } from '../../util/duration.ts';
import { isIP } from '../../util/net.ts';
import { goQuote, parseGoBool } from '../../util/go.ts';
import { flagUsage } from './flag-usage.ts';

export class FlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlagError';
  }
}

/** One flag: its current value and whether the command line set it (pflag's Changed). */
export class Flag<T> {
  value: T;
  changed = false;
  readonly name: string;
  readonly defaultValue: T;
  readonly def: FlagDefinition<T>;
  constructor(def: FlagDefinition<T>) {
    this.def = def;
    this.name = def.name;
    this.value = def.defaultValue;
    this.defaultValue = def.defaultValue;
  }
}

export interface FlagDefinition<T> {
  name: string;
  shorthand?: string;
  /** Help text; without it, --help prints flagUsage's entry for the name (flag-usage.ts). */
  usage?: string;
  defaultValue: T;
  /** The type word shown in help (`int`, `string`, `duration`, `strings` …); "" for bools. */
  typeName: string;
  /** Parses one occurrence. `current` is the value so far; `first` is true on the first occurrence. */
  set: (raw: string, current: T, first: boolean) => T;
  /** Value used when the flag is given without `=value` (bools: "true"). */
  noOptDefVal?: string;
  /** Default rendered in help; omitted when it returns "". */
  formatDefault?: (v: T) => string;
  hidden?: boolean;
  deprecated?: string;
}

interface Section {
  name: string;
  flags: Flag<unknown>[];
}

const intPattern = /^[+-]?(0[xX][0-9a-fA-F_]+|0[oO]?[0-7_]*|0[bB][01_]+|[1-9][0-9_]*|0)$/;

function parseGoInt(raw: string, bits = 64): number {
  if (!intPattern.test(raw) || raw.includes('_')) {
    throw new FlagError(`strconv.ParseInt: parsing ${goQuote(raw)}: invalid syntax`);
  }
  const n = Number(raw.replace(/^([+-]?)0([oO])/, '$10o'));
  const limit = 2 ** (bits - 1);
  if (!Number.isFinite(n) || n >= limit || n < -limit) {
    throw new FlagError(`strconv.ParseInt: parsing ${goQuote(raw)}: value out of range`);
  }
  return n;
}

/** Go's encoding/csv reading of one line, as pflag's stringSlice does. */
function readCSV(raw: string): string[] {
  if (raw === '') return [];
  const out: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  let atFieldStart = true;
  while (i < raw.length) {
    const c = raw[i]!;
    if (quoted) {
      if (c === '"') {
        if (raw[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === '"' && atFieldStart) {
      quoted = true;
      atFieldStart = false;
      i++;
      continue;
    }
    if (c === ',') {
      out.push(field);
      field = '';
      atFieldStart = true;
      i++;
      continue;
    }
    if (c === '"') throw new FlagError(`parse error on line 1, column ${i + 1}: bare " in non-quoted-field`);
    field += c;
    atFieldStart = false;
    i++;
  }
  if (quoted)
    throw new FlagError(`parse error on line 1, column ${raw.length + 1}: extraneous or missing " in quoted-field`);
  out.push(field);
  return out;
}

/**
 * A set of named flag sections. Flags are declared with typed helpers that return a `Flag`
 * holder, like pflag's `IntVar` returning a pointer.
 */
export class FlagSet {
  readonly name: string;
  private readonly byName = new Map<string, Flag<unknown>>();
  private readonly byShorthand = new Map<string, Flag<unknown>>();
  private readonly sections: Section[] = [];
  private current: Section | undefined;

  constructor(name: string) {
    this.name = name;
  }

  /** Subsequent flags go into this named section (`Secure serving flags:` in help). */
  section(name: string): this {
    let s = this.sections.find((x) => x.name === name);
    if (!s) {
      s = { name, flags: [] };
      this.sections.push(s);
    }
    this.current = s;
    return this;
  }

  add<T>(def: FlagDefinition<T>): Flag<T> {
    const name = normalizeName(def.name);
    if (this.byName.has(name)) throw new Error(`${this.name} flag redefined: ${name}`);
    const flag = new Flag<T>({ ...def, name });
    this.byName.set(name, flag as Flag<unknown>);
    if (def.shorthand) this.byShorthand.set(def.shorthand, flag as Flag<unknown>);
    if (!this.current) this.section('Generic');
    this.current!.flags.push(flag as Flag<unknown>);
    return flag;
  }

  lookup(name: string): Flag<unknown> | undefined {
    return this.byName.get(normalizeName(name));
  }

  string(name: string, defaultValue: string, usage?: string): Flag<string> {
    return this.add({
      name,
      usage,
      defaultValue,
      typeName: 'string',
      set: (raw) => raw,
      formatDefault: (v) => (v ? goQuote(v) : ''),
    });
  }

  bool(name: string, defaultValue: boolean, usage?: string): Flag<boolean> {
    return this.add({
      name,
      usage,
      defaultValue,
      typeName: '',
      noOptDefVal: 'true',
      set: (raw) => {
        const b = parseGoBool(raw);
        if (b === undefined) throw new FlagError(`strconv.ParseBool: parsing ${goQuote(raw)}: invalid syntax`);
        return b;
      },
      formatDefault: (v) => (v ? 'true' : ''),
    });
  }

  int(name: string, defaultValue: number, usage?: string, bits = 64): Flag<number> {
    return this.add({
      name,
      usage,
      defaultValue,
      typeName: bits === 32 ? 'int32' : 'int',
      set: (raw) => parseGoInt(raw, bits),
      formatDefault: (v) => (v ? String(v) : ''),
    });
  }

  float(name: string, defaultValue: number, usage?: string): Flag<number> {
    return this.add({
      name,
      usage,
      defaultValue,
      typeName: 'float',
      set: (raw) => {
        const t = raw.trim();
        if (t === '' || Number.isNaN(Number(t)))
          throw new FlagError(`strconv.ParseFloat: parsing ${goQuote(raw)}: invalid syntax`);
        return Number(t);
      },
      formatDefault: (v) => (v ? String(v) : ''),
    });
  }

  /** A Go duration; the value is in nanoseconds, as time.Duration. */
  duration(name: string, defaultNanos: number, usage?: string): Flag<number> {
    return this.add({
      name,
      usage,
      defaultValue: defaultNanos,
      typeName: 'duration',
      set: (raw) => parseGoDuration(raw),
      formatDefault: (v) => formatGoDuration(v),
    });
  }

  /** pflag stringSlice: comma-separated (CSV), first occurrence replaces the default, later ones append. */
  stringSlice(name: string, defaultValue: string[], usage?: string): Flag<string[]> {
    return this.add({
      name,
      usage,
      defaultValue,
      typeName: 'strings',
      set: (raw, current, first) => (first ? readCSV(raw) : [...current, ...readCSV(raw)]),
      formatDefault: (v) => (v.length ? `[${v.join(',')}]` : ''),
    });
  }

  /** pflag stringArray: one value per occurrence, no comma splitting. */
  stringArray(name: string, defaultValue: string[], usage?: string): Flag<string[]> {
    return this.add({
      name,
      usage,
      defaultValue,
      typeName: 'stringArray',
      set: (raw, current, first) => (first ? [raw] : [...current, raw]),
      formatDefault: (v) => (v.length ? `[${v.join(',')}]` : ''),
    });
  }

  /** pflag IP. */
  ip(name: string, defaultValue: string, usage?: string): Flag<string> {
    return this.add({
      name,
      usage,
      defaultValue,
      typeName: 'ip',
      set: (raw) => {
        const t = raw.trim();
        if (!isIP(t)) throw new FlagError(`failed to parse IP: ${goQuote(raw)}`);
        return t;
      },
      formatDefault: (v) => v,
    });
  }

  /** Sets a flag by name as the command line would (used by `parse` and by edge adapters). */
  set(name: string, raw: string): void {
    const flag = this.lookup(name);
    if (!flag) throw new FlagError(`unknown flag: --${name}`);
    this.setFlag(flag, raw, `--${flag.name}`);
  }

  private setFlag(flag: Flag<unknown>, raw: string, shown: string): void {
    try {
      flag.value = flag.def.set(raw, flag.value, !flag.changed);
      flag.changed = true;
    } catch (err) {
      const label = flag.def.shorthand ? `-${flag.def.shorthand}, --${flag.name}` : shown;
      throw new FlagError(`invalid argument ${goQuote(raw)} for ${goQuote(label)} flag: ${(err as Error).message}`);
    }
  }

  /** Parses argv (without the program name). Returns positional arguments. */
  parse(args: readonly string[]): string[] {
    const positional: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      if (arg === '--') {
        positional.push(...args.slice(i + 1));
        break;
      }
      if (!arg.startsWith('-') || arg === '-') {
        positional.push(arg);
        continue;
      }
      if (arg.startsWith('--')) {
        const body = arg.slice(2);
        const eq = body.indexOf('=');
        const name = eq < 0 ? body : body.slice(0, eq);
        if (name === '' || name.startsWith('-') || name.startsWith('=')) throw new FlagError(`bad flag syntax: ${arg}`);
        const flag = this.lookup(name);
        if (!flag) {
          if (name === 'help') throw new HelpRequested();
          throw new FlagError(`unknown flag: --${name}`);
        }
        let raw: string;
        if (eq >= 0) raw = body.slice(eq + 1);
        else if (flag.def.noOptDefVal !== undefined) raw = flag.def.noOptDefVal;
        else if (i + 1 < args.length) raw = args[++i]!;
        else throw new FlagError(`flag needs an argument: --${name}`);
        this.setFlag(flag, raw, `--${flag.name}`);
        continue;
      }
      // Shorthand: -v=3, -v 3, -h.
      const body = arg.slice(1);
      const c = body[0]!;
      const flag = this.byShorthand.get(c);
      if (!flag) {
        if (c === 'h') throw new HelpRequested();
        throw new FlagError(`unknown shorthand flag: '${c}' in -${body}`);
      }
      let raw: string;
      if (body.length > 1) raw = body[1] === '=' ? body.slice(2) : body.slice(1);
      else if (flag.def.noOptDefVal !== undefined) raw = flag.def.noOptDefVal;
      else if (i + 1 < args.length) raw = args[++i]!;
      else throw new FlagError(`flag needs an argument: '${c}' in -${c}`);
      this.setFlag(flag, raw, `-${c}`);
    }
    return positional;
  }

  /** Sectioned help text like kube-apiserver's `--help`. */
  usage(command: string, width = 100): string {
    let out = `Usage:\n  ${command} [flags]\n`;
    for (const s of this.sections) {
      // pflag sorts flags by name within a section (SortFlags).
      const visible = s.flags
        .filter((f) => !f.def.hidden)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      if (!visible.length) continue;
      out += `\n${s.name} flags:\n\n` + formatFlagUsages(visible, width);
    }
    return out;
  }
}

/** The `--help` request, surfaced as an exception so callers print usage and exit 0. */
export class HelpRequested extends Error {
  constructor() {
    super('help requested');
    this.name = 'HelpRequested';
  }
}

/** cliflag.WordSepNormalizeFunc: `_` and `.` separators become `-`. */
function normalizeName(name: string): string {
  return name.replace(/_/g, '-');
}

function formatFlagUsages(flags: Flag<unknown>[], width: number): string {
  const lines = flags.map((f) => {
    const d = f.def;
    let head = d.shorthand ? `  -${d.shorthand}, --${f.name}` : `      --${f.name}`;
    if (d.typeName) head += ' ' + d.typeName;
    let usage = d.usage ?? (Object.hasOwn(flagUsage, f.name) ? flagUsage[f.name]! : '');
    const def = d.formatDefault?.(f.defaultValue) ?? '';
    if (def) usage += ` (default ${def})`;
    if (d.deprecated) usage += ` (DEPRECATED: ${d.deprecated})`;
    return { head, usage };
  });
  const col = Math.max(...lines.map((l) => l.head.length)) + 3;
  return lines
    .map(
      ({ head, usage }) =>
        head.padEnd(col) + wrap(usage, Math.max(width - col, 30)).join('\n' + ' '.repeat(col)) + '\n',
    )
    .join('');
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(' ')) {
      if (line && line.length + 1 + word.length > width) {
        out.push(line);
        line = word;
      } else line = line ? line + ' ' + word : word;
    }
    out.push(line);
  }
  return out;
}
