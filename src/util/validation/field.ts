// Field-level validation errors (k8s.io/apimachinery/pkg/util/validation/field/{path.go,errors.go}):
// the `metadata.name: Invalid value: "Foo": …` strings and the StatusCauses of a 422 Invalid.

import { goJSON, type StatusCause } from '../../endpoints/responsewriters/status.ts';
import { goQuote } from '../go.ts';

/** field.Path: a field path printed as `spec.containers[0].name` or `metadata.labels[app]`. */
export class Path {
  private readonly name: string;
  /** When name is '': the subscript (index or map key) of the parent. */
  private readonly subscript: string;
  private readonly parent: Path | undefined;

  private constructor(name: string, subscript: string, parent: Path | undefined) {
    this.name = name;
    this.subscript = subscript;
    this.parent = parent;
  }

  static of(name: string, ...more: string[]): Path {
    let p = new Path(name, '', undefined);
    for (const n of more) p = new Path(n, '', p);
    return p;
  }

  child(name: string, ...more: string[]): Path {
    let p = new Path(name, '', this);
    for (const n of more) p = new Path(n, '', p);
    return p;
  }

  /** `[i]`. */
  index(i: number): Path {
    return new Path('', String(i), this);
  }

  /** `[key]`. */
  key(k: string): Path {
    return new Path('', k, this);
  }

  toString(): string {
    const elems: Path[] = [];
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- walks the parent chain from this
    for (let p: Path | undefined = this; p; p = p.parent) elems.push(p);
    let out = '';
    for (let i = elems.length - 1; i >= 0; i--) {
      const p = elems[i];
      if (p.name) out += (p.parent ? '.' : '') + p.name;
      else out += `[${p.subscript}]`;
    }
    return out;
  }
}

export type ErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTooFew'
  | 'InternalError'
  | 'FieldValueTypeInvalid'
  | 'FieldValueTooShort';

const typeText: Record<ErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTooFew: 'Too few',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueTooShort: 'Too short',
};

/** Marks a bad value that is not printed (upstream's omitValue). */
const omitValue = Symbol('omitValue');

/** field.Error. */
export class FieldError {
  readonly type: ErrorType;
  readonly field: string;
  readonly badValue: unknown;
  readonly detail: string;

  constructor(type: ErrorType, field: Path | string, badValue: unknown, detail = '') {
    this.type = type;
    this.field = String(field);
    this.badValue = badValue;
    this.detail = detail;
  }

  /** ErrorBody: the message without the field name. */
  body(): string {
    let s = typeText[this.type];
    switch (this.type) {
      case 'FieldValueRequired':
      case 'FieldValueForbidden':
      case 'FieldValueTooLong':
      case 'FieldValueTooShort':
      case 'InternalError':
        break;
      default:
        if (this.badValue !== omitValue) s += ': ' + formatBadValue(this.badValue);
    }
    return this.detail ? `${s}: ${this.detail}` : s;
  }

  toString(): string {
    return `${this.field}: ${this.body()}`;
  }
}

// %v for numbers and booleans, %q for strings, JSON for anything else (errors.go ErrorBody).
function formatBadValue(v: unknown): string {
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v === undefined) return 'null';
  return goJSON(v);
}

export type ErrorList = FieldError[];

export const required = (p: Path, detail = ''): FieldError => new FieldError('FieldValueRequired', p, '', detail);
export const invalid = (p: Path, value: unknown, detail: string): FieldError =>
  new FieldError('FieldValueInvalid', p, value, detail);
export const forbidden = (p: Path, detail: string): FieldError => new FieldError('FieldValueForbidden', p, '', detail);
export const notFound = (p: Path, value: unknown): FieldError => new FieldError('FieldValueNotFound', p, value);
export const duplicate = (p: Path, value: unknown): FieldError => new FieldError('FieldValueDuplicate', p, value);
export const typeInvalid = (p: Path, value: unknown, detail: string): FieldError =>
  new FieldError('FieldValueTypeInvalid', p, value, detail);
export const internalError = (p: Path, err: Error): FieldError =>
  new FieldError('InternalError', p, err.message, err.message);

/** NotSupported: `supported values: "a", "b"` (strconv.Quote of each). */
export function notSupported(p: Path, value: unknown, validValues: readonly string[]): FieldError {
  const detail = validValues.length ? 'supported values: ' + validValues.map((v) => goQuote(v)).join(', ') : '';
  return new FieldError('FieldValueNotSupported', p, value, detail);
}

/** TooLong: the value is never printed. */
export function tooLong(p: Path, maxLength: number): FieldError {
  const detail =
    maxLength >= 0 ? `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}` : 'value is too long';
  return new FieldError('FieldValueTooLong', p, '<value omitted>', detail);
}

export function tooMany(p: Path, actual: number, max: number): FieldError {
  const detail = max >= 0 ? `must have at most ${max} ${max === 1 ? 'item' : 'items'}` : 'has too many items';
  return new FieldError('FieldValueTooMany', p, actual >= 0 ? actual : omitValue, detail);
}

/**
 * ErrorList.ToAggregate().Error(): duplicates dropped, one message as is, several as `[a, b]`
 * (k8s.io/apimachinery/pkg/util/errors/errors.go); '' for an empty list.
 */
export function aggregateMessage(errs: ErrorList): string {
  const msgs = [...new Set(errs.map((e) => e.toString()))];
  if (msgs.length === 0) return '';
  return msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`;
}

/** The causes of apierrors.NewInvalid: one per field error, in order. */
export function statusCauses(errs: ErrorList): StatusCause[] {
  return errs.map((e) => ({ reason: e.type, message: e.body(), field: e.field }));
}
