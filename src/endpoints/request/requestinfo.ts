// RequestInfo and its resolver, as k8s.io/apiserver/pkg/endpoints/request/requestinfo.go.
// The algorithm is upstream's NewRequestInfo, step by step; the selector grammars are
// apimachinery's fields.ParseSelector and labels.Parse (validity only: a parse error resets the
// decoded ListOptions, which decides whether `fieldSelector=metadata.name=` can name the object).

import { decodedPath } from './path.ts';

export interface RequestInfo {
  isResourceRequest: boolean;
  /** The percent-decoded URL path. */
  path: string;
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  parts: string[];
  /** Raw first `fieldSelector` value for list/watch/deletecollection, else "". */
  fieldSelector: string;
  /** Raw first `labelSelector` value for list/watch/deletecollection, else "". */
  labelSelector: string;
}

export interface RequestInfoFactoryOptions {
  /** Prefixes without slashes, e.g. `['api', 'apis']`. */
  apiPrefixes: Iterable<string>;
  /** Prefixes whose next segment is the version, not a group, e.g. `['api']`. */
  grouplessAPIPrefixes: Iterable<string>;
}

/** The resolver's only failure (upstream returns it with the partial RequestInfo). */
export class RequestInfoError extends Error {
  readonly info: RequestInfo;
  constructor(message: string, info: RequestInfo) {
    super(message);
    this.name = 'RequestInfoError';
    this.info = info;
  }
}

const specialVerbs = new Set(['proxy', 'watch']);
// Only these verbs record selectors for authorization (step 13).
const selectorVerbs = new Set(['list', 'watch', 'deletecollection']);
// Exact, upper-case methods only: Go maps nothing else.
const methodVerbs: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/**
 * RequestInfoFactory: `new RequestInfoFactory({ apiPrefixes: ['api','apis'],
 * grouplessAPIPrefixes: ['api'] }).newRequestInfo(request)`.
 */
export class RequestInfoFactory {
  readonly apiPrefixes: ReadonlySet<string>;
  readonly grouplessAPIPrefixes: ReadonlySet<string>;

  constructor(options: RequestInfoFactoryOptions) {
    this.apiPrefixes = new Set(options.apiPrefixes);
    this.grouplessAPIPrefixes = new Set(options.grouplessAPIPrefixes);
  }

  /**
   * Resolves the request. Throws RequestInfoError where upstream returns an error (a legacy
   * `watch`/`proxy` prefix with nothing after it). `url` saves re-parsing `request.url`;
   * a malformed percent-escape (Go rejects those before any handler) leaves the path as sent.
   */
  newRequestInfo(request: Request, url: URL = new URL(request.url)): RequestInfo {
    const method = request.method;
    const path = decodedPath(url) ?? url.pathname;
    // Step 1.
    const info: RequestInfo = {
      isResourceRequest: false,
      path,
      verb: method.toLowerCase(),
      apiPrefix: '',
      apiGroup: '',
      apiVersion: '',
      namespace: '',
      resource: '',
      subresource: '',
      name: '',
      parts: [],
      fieldSelector: '',
      labelSelector: '',
    };
    // Steps 2–4. `i` walks the segments instead of slicing them off.
    const trimmed = trimSlashes(path);
    if (trimmed === '') return info;
    const segs = trimmed.split('/');
    if (segs.length < 3) return info;
    if (!this.apiPrefixes.has(segs[0]!)) return info;
    // Step 5.
    info.apiPrefix = segs[0]!;
    let i = 1;
    // Step 6.
    if (!this.grouplessAPIPrefixes.has(info.apiPrefix)) {
      if (segs.length - i < 3) return info;
      info.apiGroup = segs[i++]!;
    }
    // Step 7.
    info.isResourceRequest = true;
    info.apiVersion = segs[i++]!;
    // Step 8.
    let verbViaPathPrefix = false;
    if (specialVerbs.has(segs[i]!)) {
      if (segs.length - i < 2) {
        throw new RequestInfoError(
          `unable to determine kind and namespace from url, ${url.pathname}${url.search}`,
          info,
        );
      }
      info.verb = segs[i++]!;
      verbViaPathPrefix = true;
    } else {
      info.verb = methodVerbs[method] ?? '';
    }
    // Step 9.
    const left = segs.length - i;
    if (segs[i] === 'namespaces') {
      // (Some upstream versions left the namespace empty for a PATCH of `/namespaces/<name>`,
      // for server-side apply; current upstream sets it as for any other verb.)
      if (left > 1) {
        info.namespace = segs[i + 1]!;
        if (left > 2 && segs[i + 2] !== 'status' && segs[i + 2] !== 'finalize') i += 2;
      }
    }
    // Step 10.
    const parts = i === 0 ? segs : segs.slice(i);
    info.parts = parts;
    if (parts.length >= 3 && info.verb !== 'proxy') info.subresource = parts[2]!;
    if (parts.length >= 2) info.name = parts[1]!;
    if (parts.length >= 1) info.resource = parts[0]!;
    // Step 11.
    if (info.name === '' && info.verb === 'get') {
      const q = url.search === '' ? emptyQuery : parseQuery(url.search);
      const opts = decodeListOptions(q);
      info.verb = opts.watch ? 'watch' : 'list';
      if (opts.fieldSelectorName !== undefined && isValidPathSegmentName(opts.fieldSelectorName)) {
        info.name = opts.fieldSelectorName;
      }
    }
    // Step 12.
    if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
    // Step 13.
    if (!verbViaPathPrefix && selectorVerbs.has(info.verb) && url.search !== '') {
      const q = parseQuery(url.search);
      info.fieldSelector = q.get('fieldSelector')?.[0] ?? '';
      info.labelSelector = q.get('labelSelector')?.[0] ?? '';
    }
    return info;
  }
}

function trimSlashes(p: string): string {
  let start = 0;
  let end = p.length;
  while (start < end && p.charCodeAt(start) === 47) start++;
  while (end > start && p.charCodeAt(end - 1) === 47) end--;
  return p.slice(start, end);
}

/** path.IsValidPathSegmentName: not `.`/`..`, no `/` or `%`. */
export function isValidPathSegmentName(name: string): boolean {
  return name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
}

// --- Go url.ParseQuery ---

const emptyQuery: ReadonlyMap<string, string[]> = new Map();

/**
 * Go's url.ParseQuery as used by `req.URL.Query()`: `&`-separated, pairs containing `;` or a bad
 * escape are dropped, `+` is a space. Accepts the query with or without its leading `?`.
 */
export function parseQuery(search: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const raw = search.charCodeAt(0) === 63 ? search.slice(1) : search;
  if (raw === '') return out;
  for (const pair of raw.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const k = queryUnescape(eq < 0 ? pair : pair.slice(0, eq));
    const v = queryUnescape(eq < 0 ? '' : pair.slice(eq + 1));
    if (k === null || v === null) continue;
    const list = out.get(k);
    if (list) list.push(v);
    else out.set(k, [v]);
  }
  return out;
}

/** The first value of `key` in a Go-parsed query (url.Values.Get), "" when absent. */
export function queryFirst(search: string, key: string): string {
  // Fast path: the key cannot be there, not even percent-encoded.
  if (!search.includes(key) && !search.includes('%')) return '';
  return parseQuery(search).get(key)?.[0] ?? '';
}

const badEscape = /%(?![0-9a-fA-F]{2})/;

function queryUnescape(s: string): string | null {
  if (s.includes('+')) s = s.replace(/\+/g, ' ');
  if (!s.includes('%')) return s;
  if (badEscape.test(s)) return null;
  try {
    return decodeURIComponent(s);
  } catch {
    // Valid escapes, invalid UTF-8: Go keeps the bytes; decode leniently.
    const bytes: number[] = [];
    const enc = new TextEncoder();
    for (let i = 0; i < s.length; i++) {
      if (s[i] === '%') {
        bytes.push(Number.parseInt(s.slice(i + 1, i + 3), 16));
        i += 2;
      } else {
        for (const b of enc.encode(s[i]!)) bytes.push(b);
      }
    }
    return new TextDecoder().decode(new Uint8Array(bytes));
  }
}

// --- metainternalversion.ListOptions decoding (only what RequestInfo reads) ---

interface DecodedListOptions {
  watch: boolean;
  /** The exact `metadata.name` match of the field selector, if any. */
  fieldSelectorName?: string;
}

/** runtime.Convert_Slice_string_To_bool: false only for `0` and case-insensitive `false`. */
function lenientBool(values: string[] | undefined): boolean {
  if (!values || values.length === 0) return false;
  const v = values[0]!.toLowerCase();
  return !(v === 'false' || v === '0');
}

function decodeListOptions(q: ReadonlyMap<string, string[]>): DecodedListOptions {
  const watch = lenientBool(q.get('watch'));
  if (q.size === 0) return { watch };
  // Decode errors reset the options (but `watch` is still honoured).
  for (const key of ['limit', 'timeoutSeconds']) {
    const v = q.get(key);
    if (v && v.length > 0 && !isGoInt64(v[0]!)) return { watch };
  }
  const ls = q.get('labelSelector');
  if (ls && ls.length > 0 && !isValidLabelSelector(ls[0]!)) return { watch };
  const fs = q.get('fieldSelector');
  if (!fs || fs.length === 0) return { watch };
  const terms = parseFieldSelector(fs[0]!);
  if (terms === null) return { watch };
  for (const t of terms) {
    if (t.field === 'metadata.name' && t.op !== '!=') return { watch, fieldSelectorName: t.value };
  }
  return { watch };
}

/** strconv.ParseInt(s, 10, 64) succeeds. */
function isGoInt64(s: string): boolean {
  if (!/^[+-]?[0-9]+$/.test(s)) return false;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n;
}

// --- fields.ParseSelector ---

interface FieldTerm {
  field: string;
  op: '=' | '==' | '!=';
  value: string;
}

/** fields.ParseSelector: the terms sorted as upstream sorts them, or null on a parse error. */
export function parseFieldSelector(selector: string): FieldTerm[] | null {
  const parts = splitFieldTerms(selector).sort(compareGoStrings);
  const terms: FieldTerm[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const t = splitFieldTerm(part);
    if (!t) return null;
    const value = unescapeFieldValue(t.rhs);
    if (value === null) return null;
    terms.push({ field: t.lhs, op: t.op, value });
  }
  return terms;
}

// Go sorts strings by bytes; UTF-16 order differs only for astral vs. high-BMP characters.
function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const ea = new TextEncoder().encode(a);
  const eb = new TextEncoder().encode(b);
  const n = Math.min(ea.length, eb.length);
  for (let i = 0; i < n; i++) if (ea[i] !== eb[i]) return ea[i]! - eb[i]!;
  return ea.length - eb.length;
}

function splitFieldTerms(s: string): string[] {
  if (s.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < s.length; i++) {
    if (escaped) escaped = false;
    else if (s[i] === '\\') escaped = true;
    else if (s[i] === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

function splitFieldTerm(term: string): { lhs: string; op: FieldTerm['op']; rhs: string } | null {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return null;
}

function unescapeFieldValue(s: string): string | null {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') return null;
      out += c;
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') return null;
    else out += c;
  }
  return inSlash ? null : out;
}

// --- labels.Parse (validity) ---

type LabelToken = 'id' | 'end' | 'err' | ')' | ',' | '!' | '==' | '=' | '>' | 'in' | '<' | '!=' | 'notin' | '(';
const labelSymbols = new Set(['=', '!', '(', ')', ',', '>', '<']);
const labelSymbolTokens = new Set(['!', '==', '=', '>', '<', '!=', '(', ')', ',']);

function lexLabels(s: string): { tok: LabelToken; lit: string }[] {
  const out: { tok: LabelToken; lit: string }[] = [];
  let i = 0;
  for (;;) {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === '\r' || s[i] === '\n')) i++;
    if (i >= s.length || s[i] === '\0') {
      out.push({ tok: 'end', lit: '' });
      return out;
    }
    if (labelSymbols.has(s[i]!)) {
      let buf = '';
      let last: LabelToken | undefined;
      let lastLit = '';
      while (i < s.length && labelSymbols.has(s[i]!)) {
        buf += s[i];
        if (labelSymbolTokens.has(buf)) {
          last = buf as LabelToken;
          lastLit = buf;
          i++;
        } else if (last) break;
        else i++;
      }
      if (!last) {
        out.push({ tok: 'err', lit: buf });
        return out;
      }
      out.push({ tok: last, lit: lastLit });
      continue;
    }
    let j = i;
    while (j < s.length && s[j] !== '\0' && !labelSymbols.has(s[j]!) && !' \t\r\n'.includes(s[j]!)) j++;
    const lit = s.slice(i, j);
    i = j;
    out.push({ tok: lit === 'in' ? 'in' : lit === 'notin' ? 'notin' : 'id', lit });
  }
}

const qualifiedNamePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** validation.IsQualifiedName. */
export function isQualifiedName(key: string): boolean {
  const parts = key.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0 || prefix.length > 253 || !dns1123Subdomain.test(prefix)) return false;
  } else return false;
  return name.length > 0 && name.length <= 63 && qualifiedNamePart.test(name);
}

/** validation.IsValidLabelValue. */
function isValidLabelValue(v: string): boolean {
  return v === '' || (v.length <= 63 && qualifiedNamePart.test(v));
}

/** labels.Parse succeeds. */
export function isValidLabelSelector(selector: string): boolean {
  const toks = lexLabels(selector);
  let p = 0;
  // In the Values context `in`/`notin` are identifiers.
  const look = () => {
    const t = toks[p]!;
    return t.tok === 'in' || t.tok === 'notin' ? 'id' : t.tok;
  };
  const next = () => toks[p++]!;
  for (;;) {
    const t = look();
    if (t === 'end') return true;
    if (t !== 'id' && t !== '!') return false;
    // parseKeyAndInferOperator
    let unary: '!' | 'exists' | undefined;
    let tok = next();
    if (tok.tok === '!') {
      unary = '!';
      tok = next();
    }
    if (tok.tok !== 'id' && tok.tok !== 'in' && tok.tok !== 'notin') return false;
    if (!isQualifiedName(tok.lit)) return false;
    const after = look();
    if (after === 'end' || after === ',') unary = unary ?? 'exists';
    if (!unary) {
      const op = next().tok; // KeyAndOperator context: in/notin are keywords
      let values: string[];
      if (op === 'in' || op === 'notin') {
        if (next().tok !== '(') return false;
        const la = look();
        if (la === ')') {
          next();
          values = [''];
        } else if (la === 'id' || la === ',') {
          const list = parseIdentifierList();
          if (list === null) return false;
          if (next().tok !== ')') return false;
          values = list;
        } else return false;
      } else if (op === '=' || op === '==' || op === '!=' || op === '>' || op === '<') {
        const la = look();
        if (la === 'end' || la === ',') values = [''];
        else {
          const v = next();
          if (v.tok !== 'id' && v.tok !== 'in' && v.tok !== 'notin') return false;
          values = [v.lit];
        }
        if ((op === '>' || op === '<') && !values.every(isGoInt64)) return false;
      } else return false;
      if (!values.every(isValidLabelValue)) return false;
    }
    const sep = next().tok;
    if (sep === 'end') return true;
    if (sep !== ',') return false;
    const la = look();
    if (la !== 'id' && la !== '!') return false;
  }

  function parseIdentifierList(): string[] | null {
    const s = new Set<string>();
    for (;;) {
      const t = next();
      const tt = t.tok === 'in' || t.tok === 'notin' ? 'id' : t.tok;
      if (tt === 'id') {
        s.add(t.lit);
        const la = look();
        if (la === ',') continue;
        if (la === ')') return [...s];
        return null;
      }
      if (tt === ',') {
        if (s.size === 0) s.add('');
        const la = look();
        if (la === ')') {
          s.add('');
          return [...s];
        }
        if (la === ',') {
          next();
          s.add('');
        }
        continue;
      }
      return null;
    }
  }
}
