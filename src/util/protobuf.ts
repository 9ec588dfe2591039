// Decoding the Kubernetes protobuf envelope kubectl ≥ 1.32 sends (apimachinery runtime/serializer/protobuf):
// the magic `k8s\0`, a runtime.Unknown {typeMeta, raw, contentEncoding, contentType}, and the
// generated.proto messages of the review kinds. Decode only; answers are JSON. Field numbers
// come from k8s.io/api/{authentication,authorization}/v1/generated.proto and
// apimachinery/pkg/apis/meta/v1/generated.proto. gogo writes empty strings and empty Time
// messages; they are mapped to "absent" so the result matches the JSON decoding.

import { encodeBase64 } from './base64.ts';

export const protobufMagic = new Uint8Array([0x6b, 0x38, 0x73, 0x00]);

export class ProtobufError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufError';
  }
}

/** A field: its JSON name and how to decode it. */
type FieldSpec =
  | { name: string; type: 'string' | 'bytes' | 'bool' | 'int64' | 'int32' }
  | { name: string; type: 'strings' }
  | { name: string; type: 'message'; schema: Schema; repeated?: boolean }
  | { name: string; type: 'map'; value: 'string' | 'bytes' | Schema }
  | { name: string; type: 'time' }
  | { name: string; type: 'skip' };

export type Schema = Record<number, FieldSpec>;

class Reader {
  pos = 0;
  readonly buf: Uint8Array;
  readonly end: number;
  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufError('unexpected EOF');
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
    throw new ProtobufError('proto: integer overflow');
  }
  bytes(): Uint8Array {
    const len = Number(this.varint());
    if (len < 0 || this.pos + len > this.end) throw new ProtobufError('unexpected EOF');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  skip(wire: number): void {
    switch (wire) {
      case 0:
        this.varint();
        return;
      case 1:
        this.advance(8);
        return;
      case 2:
        this.bytes();
        return;
      case 5:
        this.advance(4);
        return;
      default:
        throw new ProtobufError(`proto: illegal wireType ${wire}`);
    }
  }
  private advance(n: number): void {
    if (this.pos + n > this.end) throw new ProtobufError('unexpected EOF');
    this.pos += n;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

function toInt(v: bigint, bits: 32 | 64): number {
  const signed = bits === 64 ? BigInt.asIntN(64, v) : BigInt.asIntN(32, v);
  return Number(signed);
}

/** Decodes one message with `schema` into a JSON-shaped object (empty values dropped). */
export function decodeMessage(buf: Uint8Array, schema: Schema): Record<string, unknown> {
  const r = new Reader(buf);
  const out: Record<string, unknown> = {};
  while (r.pos < r.end) {
    const tag = r.varint();
    const field = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (field === 0) throw new ProtobufError('proto: illegal tag 0 (wire type ' + wire + ')');
    const spec = schema[field];
    if (!spec || spec.type === 'skip') {
      r.skip(wire);
      continue;
    }
    const want = spec.type === 'bool' || spec.type === 'int64' || spec.type === 'int32' ? 0 : 2;
    if (wire !== want)
      throw new ProtobufError(
        `proto: wrong wireType = ${wire} for field ${spec.name[0]!.toUpperCase()}${spec.name.slice(1)}`,
      );
    switch (spec.type) {
      case 'string': {
        const s = utf8.decode(r.bytes());
        if (s) out[spec.name] = s;
        else delete out[spec.name];
        break;
      }
      case 'bytes':
        out[spec.name] = r.bytes();
        break;
      case 'bool': {
        const b = r.varint() !== 0n;
        if (b) out[spec.name] = true;
        break;
      }
      case 'int64':
      case 'int32': {
        const n = toInt(r.varint(), spec.type === 'int64' ? 64 : 32);
        if (n) out[spec.name] = n;
        break;
      }
      case 'strings':
        ((out[spec.name] ??= []) as string[]).push(utf8.decode(r.bytes()));
        break;
      case 'message': {
        const m = decodeMessage(r.bytes(), spec.schema);
        if (spec.repeated) ((out[spec.name] ??= []) as unknown[]).push(m);
        else out[spec.name] = m;
        break;
      }
      case 'time': {
        const t = decodeMessage(r.bytes(), {
          1: { name: 'seconds', type: 'int64' },
          2: { name: 'nanos', type: 'int32' },
        });
        const secs = (t.seconds as number | undefined) ?? 0;
        // A zero Time is how gogo writes "unset".
        if (secs !== 0 || t.nanos) out[spec.name] = new Date(secs * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
        break;
      }
      case 'map': {
        const entrySchema: Schema = {
          1: { name: 'key', type: 'string' },
          2:
            spec.value === 'string' || spec.value === 'bytes'
              ? { name: 'value', type: spec.value }
              : { name: 'value', type: 'message', schema: spec.value },
        };
        const e = decodeMessage(r.bytes(), entrySchema);
        const m = (out[spec.name] ??= {}) as Record<string, unknown>;
        const key = (e.key as string | undefined) ?? '';
        // []byte values are base64 in JSON, as encoding/json writes them.
        if (spec.value === 'bytes') m[key] = encodeBase64((e.value as Uint8Array | undefined) ?? new Uint8Array());
        else m[key] = e.value ?? (spec.value === 'string' ? '' : {});
        break;
      }
    }
  }
  return out;
}

// --- schemas ---

export const objectMetaSchema: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'generateName', type: 'string' },
  3: { name: 'namespace', type: 'string' },
  4: { name: 'selfLink', type: 'string' },
  5: { name: 'uid', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'generation', type: 'int64' },
  8: { name: 'creationTimestamp', type: 'time' },
  9: { name: 'deletionTimestamp', type: 'time' },
  10: { name: 'deletionGracePeriodSeconds', type: 'int64' },
  11: { name: 'labels', type: 'map', value: 'string' },
  12: { name: 'annotations', type: 'map', value: 'string' },
  13: { name: 'ownerReferences', type: 'skip' },
  14: { name: 'finalizers', type: 'strings' },
  17: { name: 'managedFields', type: 'skip' },
};

const requirementSchema: Schema = {
  1: { name: 'key', type: 'string' },
  2: { name: 'operator', type: 'string' },
  3: { name: 'values', type: 'strings' },
};

const selectorAttributesSchema: Schema = {
  1: { name: 'rawSelector', type: 'string' },
  2: { name: 'requirements', type: 'message', schema: requirementSchema, repeated: true },
};

const resourceAttributesSchema: Schema = {
  1: { name: 'namespace', type: 'string' },
  2: { name: 'verb', type: 'string' },
  3: { name: 'group', type: 'string' },
  4: { name: 'version', type: 'string' },
  5: { name: 'resource', type: 'string' },
  6: { name: 'subresource', type: 'string' },
  7: { name: 'name', type: 'string' },
  8: { name: 'fieldSelector', type: 'message', schema: selectorAttributesSchema },
  9: { name: 'labelSelector', type: 'message', schema: selectorAttributesSchema },
};

const nonResourceAttributesSchema: Schema = {
  1: { name: 'path', type: 'string' },
  2: { name: 'verb', type: 'string' },
};

const extraValueSchema: Schema = { 1: { name: 'items', type: 'strings' } };

const sarStatus: FieldSpec = { name: 'status', type: 'skip' };

export const subjectAccessReviewSchema: Schema = {
  1: { name: 'metadata', type: 'message', schema: objectMetaSchema },
  2: {
    name: 'spec',
    type: 'message',
    schema: {
      1: { name: 'resourceAttributes', type: 'message', schema: resourceAttributesSchema },
      2: { name: 'nonResourceAttributes', type: 'message', schema: nonResourceAttributesSchema },
      3: { name: 'user', type: 'string' },
      4: { name: 'groups', type: 'strings' },
      5: { name: 'extra', type: 'map', value: extraValueSchema },
      6: { name: 'uid', type: 'string' },
    },
  },
  3: sarStatus,
};

export const selfSubjectAccessReviewSchema: Schema = {
  1: { name: 'metadata', type: 'message', schema: objectMetaSchema },
  2: {
    name: 'spec',
    type: 'message',
    schema: {
      1: { name: 'resourceAttributes', type: 'message', schema: resourceAttributesSchema },
      2: { name: 'nonResourceAttributes', type: 'message', schema: nonResourceAttributesSchema },
    },
  },
  3: sarStatus,
};

export const selfSubjectRulesReviewSchema: Schema = {
  1: { name: 'metadata', type: 'message', schema: objectMetaSchema },
  2: { name: 'spec', type: 'message', schema: { 1: { name: 'namespace', type: 'string' } } },
  3: { name: 'status', type: 'skip' },
};

export const selfSubjectReviewSchema: Schema = {
  1: { name: 'metadata', type: 'message', schema: objectMetaSchema },
  2: { name: 'status', type: 'skip' },
};

export const tokenReviewSchema: Schema = {
  1: { name: 'metadata', type: 'message', schema: objectMetaSchema },
  2: {
    name: 'spec',
    type: 'message',
    schema: { 1: { name: 'token', type: 'string' }, 2: { name: 'audiences', type: 'strings' } },
  },
  3: { name: 'status', type: 'skip' },
};

/** `extra` decoded as map<string, ExtraValue{items}> → map<string, string[]> (the JSON shape). */
export function flattenExtra(spec: Record<string, unknown> | undefined): void {
  const extra = spec?.extra as Record<string, { items?: string[] }> | undefined;
  if (!extra) return;
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(extra)) out[k] = v.items ?? [];
  spec!.extra = out;
}

export interface Unknown {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

/** Strips the magic and decodes runtime.Unknown. Errors use the upstream serializer's wording. */
export function decodeEnvelope(body: Uint8Array): Unknown {
  if (body.length < 4 || protobufMagic.some((b, i) => body[i] !== b)) {
    throw new ProtobufError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  const u = decodeMessage(body.subarray(4), {
    1: {
      name: 'typeMeta',
      type: 'message',
      schema: { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } },
    },
    2: { name: 'raw', type: 'bytes' },
    3: { name: 'contentEncoding', type: 'string' },
    4: { name: 'contentType', type: 'string' },
  });
  const tm = (u.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  return {
    apiVersion: tm.apiVersion ?? '',
    kind: tm.kind ?? '',
    raw: (u.raw as Uint8Array | undefined) ?? new Uint8Array(),
    contentEncoding: (u.contentEncoding as string | undefined) ?? '',
    contentType: (u.contentType as string | undefined) ?? '',
  };
}

// --- encoding (tests only need it to build kubectl-shaped bodies) ---

/** A tiny writer for tests: fields as [number, value] with nested arrays for messages. */
export type EncField = [number, string | number | boolean | Uint8Array | EncField[]];

export function encodeMessage(fields: EncField[]): Uint8Array {
  const out: number[] = [];
  const varint = (n: bigint) => {
    let v = BigInt.asUintN(64, n);
    do {
      let b = Number(v & 0x7fn);
      v >>= 7n;
      if (v) b |= 0x80;
      out.push(b);
    } while (v);
  };
  for (const [num, value] of fields) {
    if (typeof value === 'number' || typeof value === 'boolean') {
      varint(BigInt(num << 3));
      varint(BigInt(typeof value === 'boolean' ? (value ? 1 : 0) : value));
      continue;
    }
    const bytes =
      typeof value === 'string'
        ? new TextEncoder().encode(value)
        : value instanceof Uint8Array
          ? value
          : encodeMessage(value);
    varint(BigInt((num << 3) | 2));
    varint(BigInt(bytes.length));
    for (const b of bytes) out.push(b);
  }
  return Uint8Array.from(out);
}

/** magic + runtime.Unknown{typeMeta, raw, "", ""} as client-go writes it. */
export function encodeEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const u = encodeMessage([
    [
      1,
      [
        [1, apiVersion],
        [2, kind],
      ],
    ],
    [2, raw],
    [3, ''],
    [4, ''],
  ]);
  const out = new Uint8Array(4 + u.length);
  out.set(protobufMagic);
  out.set(u, 4);
  return out;
}
