// Continue tokens (k8s.io/apiserver/pkg/storage/continue.go), list-option rules
// (ValidateListOptions and PrepareKey of pkg/storage/interfaces.go) and the resourceVersion parser
// of the APIObjectVersioner (pkg/storage/api_object_versioner.go).

import { newBadRequest } from '../endpoints/apierrors.ts';
import { invalid, Path } from '../util/validation/field.ts';
import { goQuote } from '../util/go.ts';
import { InvalidError } from './errors.ts';
import type { ListOptions } from './interfaces.ts';
import { decodeBase64URL, encodeBase64URL } from '../util/base64.ts';

export const ErrInvalidStartRV =
  'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)';
export const ErrEmptyStartKey = 'continue key is not valid: encoded start key empty (version meta.k8s.io/v1)';
export const ErrGenericInvalidKey = 'continue key is not valid';
export const ErrUnrecognizedEncodedVersion =
  'continue key is not valid: server does not recognize this encoded version';

const enc = new TextEncoder();
const dec = new TextDecoder('utf-8', { fatal: true });

function base64RawURLDecode(s: string): Uint8Array {
  // RawURLEncoding: no padding, URL alphabet only.
  if (/[^A-Za-z0-9_-]/.test(s) || s.length % 4 === 1) {
    throw new Error(`illegal base64 data at input byte ${Math.max(0, s.search(/[^A-Za-z0-9_-]/))}`);
  }
  return decodeBase64URL(s);
}

/** path.Clean for the absolute paths a continue token may name. */
export function cleanPath(p: string): string {
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(seg);
  }
  const joined = out.join('/');
  return rooted ? '/' + joined : joined || '.';
}

/** storage.EncodeContinue. */
export function encodeContinue(key: string, keyPrefix: string, resourceVersion: number): string {
  if (!key.startsWith(keyPrefix)) throw new Error('unable to encode next field: the key and key prefix do not match');
  const json = JSON.stringify({ v: 'meta.k8s.io/v1', rv: resourceVersion, start: key.slice(keyPrefix.length) });
  return encodeBase64URL(enc.encode(json));
}

/** storage.DecodeContinue: the full start key and the token's revision; throws with upstream's messages. */
export function decodeContinue(continueValue: string, keyPrefix: string): { fromKey: string; rv: number } {
  let data: string;
  let c: { v?: unknown; rv?: unknown; start?: unknown };
  try {
    data = dec.decode(base64RawURLDecode(continueValue));
  } catch (err) {
    throw new Error(`${ErrGenericInvalidKey}: ${(err as Error).message}`);
  }
  try {
    c = JSON.parse(data);
    if (typeof c !== 'object' || c === null || Array.isArray(c)) throw new Error('not an object');
    if (c.v !== undefined && typeof c.v !== 'string') throw new Error('json: cannot unmarshal v');
    if (c.rv !== undefined && (typeof c.rv !== 'number' || !Number.isInteger(c.rv))) {
      throw new Error('json: cannot unmarshal rv');
    }
    if (c.start !== undefined && typeof c.start !== 'string') throw new Error('json: cannot unmarshal start');
  } catch (err) {
    throw new Error(`${ErrGenericInvalidKey}: ${(err as Error).message}`);
  }
  if (c.v !== 'meta.k8s.io/v1') throw new Error(`${ErrUnrecognizedEncodedVersion} ${String(c.v ?? '')}`);
  const rv = (c.rv as number | undefined) ?? 0;
  const start = (c.start as string | undefined) ?? '';
  if (rv === 0) throw new Error(ErrInvalidStartRV);
  if (!start) throw new Error(ErrEmptyStartKey);
  const key = start.startsWith('/') ? start : '/' + start;
  // The start key is "<last key>\x00": path.Clean leaves the NUL alone but refuses traversal.
  if (cleanPath(key) !== key) throw new Error(`${ErrGenericInvalidKey}: ${start}`);
  return { fromKey: keyPrefix + key.slice(1), rv };
}

/** APIObjectVersioner.ParseResourceVersion: "" and "0" → 0; otherwise a uint64 or an InvalidError. */
export function parseResourceVersion(resourceVersion: string | undefined): number {
  if (!resourceVersion || resourceVersion === '0') return 0;
  if (!/^\d+$/.test(resourceVersion)) {
    throw new InvalidError([
      invalid(
        Path.of('resourceVersion'),
        resourceVersion,
        `strconv.ParseUint: parsing ${goQuote(resourceVersion)}: invalid syntax`,
      ),
    ]);
  }
  const n = Number(resourceVersion);
  if (!Number.isSafeInteger(n)) {
    throw new InvalidError([
      invalid(
        Path.of('resourceVersion'),
        resourceVersion,
        `strconv.ParseUint: parsing ${goQuote(resourceVersion)}: value out of range`,
      ),
    ]);
  }
  return n;
}

/** storage.ValidateListOptions: the revision to read at (0 = latest) and the continue start key. */
export function validateListOptions(keyPrefix: string, opts: ListOptions): { withRev: number; continueKey: string } {
  const pred = opts.predicate;
  if (opts.recursive && pred?.continue) {
    let decoded: { fromKey: string; rv: number };
    try {
      decoded = decodeContinue(pred.continue, keyPrefix);
    } catch (err) {
      throw newBadRequest(`invalid continue token: ${(err as Error).message}`);
    }
    if (opts.resourceVersion && opts.resourceVersion !== '0') {
      throw newBadRequest('specifying resource version is not allowed when using continue');
    }
    // rv > 0: the list continues at that revision; rv < 0: at the latest (an inconsistent continue).
    return { withRev: decoded.rv > 0 ? decoded.rv : 0, continueKey: decoded.fromKey };
  }
  if (!opts.resourceVersion) return { withRev: 0, continueKey: '' };
  let parsed: number;
  try {
    parsed = parseResourceVersion(opts.resourceVersion);
  } catch (err) {
    throw newBadRequest(`invalid resource version: ${(err as Error).message}`);
  }
  switch (opts.resourceVersionMatch ?? '') {
    case 'NotOlderThan':
      return { withRev: 0, continueKey: '' };
    case 'Exact':
      return { withRev: parsed, continueKey: '' };
    case '':
      return { withRev: opts.recursive && (pred?.limit ?? 0) > 0 && parsed > 0 ? parsed : 0, continueKey: '' };
    default:
      throw new Error(`unknown ResourceVersionMatch value: ${opts.resourceVersionMatch}`);
  }
}

/** storage.PrepareKey: refuses `.`/`..` segments, empty keys and keys outside the resource prefix. */
export function prepareKey(resourcePrefix: string, key: string, recursive: boolean): string {
  // Every refused form starts with "." or holds "/.": two scans for the usual key, not eight.
  if (key.charCodeAt(0) === 46 || key.includes('/.')) {
    if (key === '..' || key.startsWith('../') || key.endsWith('/..') || key.includes('/../')) {
      throw new Error(`invalid key: ${goQuote(key)}`);
    }
    if (key === '.' || key.startsWith('./') || key.endsWith('/.') || key.includes('/./')) {
      throw new Error(`invalid key: ${goQuote(key)}`);
    }
  }
  if (key === '' || key === '/') throw new Error(`empty key: ${goQuote(key)}`);
  if (recursive && !key.endsWith('/')) key += '/';
  if (!key.startsWith(resourcePrefix)) {
    throw new Error(`invalid key: ${goQuote(key)} lacks resource prefix: ${goQuote(resourcePrefix)}`);
  }
  return key;
}
