// The swagger 2.0 document in protobuf, as kube-openapi serves it for
// `application/com.github.proto-openapi.spec.v2.v1.0+protobuf` (pkg/handler ToProtoBinary:
// gnostic's openapi_v2.Document, github.com/google/gnostic-models/openapiv2/OpenAPIv2.proto).
// client-go's OpenAPISchema() asks for nothing else. Encodes what the v2 documents built here
// contain; vendor extensions, enums and defaults are gnostic `Any`s holding YAML (here JSON, which
// is YAML: readers yaml.Unmarshal it, kube-openapi pkg/util/proto VendorExtensionToMap).

type J = Record<string, unknown>;

/**
 * A protobuf writer. Nested messages are written in place: a placeholder length byte is reserved
 * and the body moved when its length needs more varint bytes (no buffer per message).
 */
class Writer {
  private buf = new Uint8Array(1 << 16);
  private len = 0;

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  private varint(v: number): void {
    this.ensure(10);
    while (v > 0x7f) {
      this.buf[this.len++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.len++] = v;
  }

  private key(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  bytes(field: number, b: Uint8Array): void {
    this.key(field, 2);
    this.varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  string(field: number, s: unknown): void {
    if (typeof s === 'string' && s !== '') this.bytes(field, encoder.encode(s));
  }

  strings(field: number, list: unknown): void {
    if (Array.isArray(list)) for (const s of list) if (typeof s === 'string') this.bytes(field, encoder.encode(s));
  }

  bool(field: number, v: unknown): void {
    if (v === true) {
      this.key(field, 0);
      this.varint(1);
    }
  }

  int(field: number, v: unknown): void {
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) {
      this.key(field, 0);
      this.varint(v);
    }
  }

  double(field: number, v: unknown): void {
    if (typeof v !== 'number' || v === 0) return;
    this.key(field, 1);
    this.ensure(8);
    new DataView(this.buf.buffer).setFloat64(this.len, v, true);
    this.len += 8;
  }

  message(field: number, fill: (w: Writer) => void): void {
    this.key(field, 2);
    this.ensure(1);
    const at = this.len++;
    fill(this);
    const size = this.len - at - 1;
    let n = 1;
    for (let v = size; v > 0x7f; v = Math.floor(v / 128)) n++;
    if (n > 1) {
      this.ensure(n - 1);
      this.buf.copyWithin(at + n, at + 1, this.len);
      this.len += n - 1;
    }
    let v = size;
    for (let i = 0; i < n; i++) {
      this.buf[at + i] = i < n - 1 ? (v & 0x7f) | 0x80 : v;
      v = Math.floor(v / 128);
    }
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

const encoder = new TextEncoder();

/** gnostic Any: the value as YAML. */
function any(w: Writer, field: number, v: unknown): void {
  w.message(field, (a) => a.string(2, `${JSON.stringify(v)}\n`));
}

function vendorExtensions(w: Writer, field: number, o: J): void {
  for (const [k, v] of Object.entries(o))
    if (k.startsWith('x-'))
      w.message(field, (n) => {
        n.string(1, k);
        any(n, 2, v);
      });
}

function schema(w: Writer, s: J): void {
  w.string(1, s.$ref);
  w.string(2, s.format);
  w.string(3, s.title);
  w.string(4, s.description);
  if (s.default !== undefined) any(w, 5, s.default);
  w.double(6, s.multipleOf);
  w.double(7, s.maximum);
  w.bool(8, s.exclusiveMaximum);
  w.double(9, s.minimum);
  w.bool(10, s.exclusiveMinimum);
  w.int(11, s.maxLength);
  w.int(12, s.minLength);
  w.string(13, s.pattern);
  w.int(14, s.maxItems);
  w.int(15, s.minItems);
  w.bool(16, s.uniqueItems);
  w.int(17, s.maxProperties);
  w.int(18, s.minProperties);
  w.strings(19, s.required);
  if (Array.isArray(s.enum)) for (const e of s.enum) any(w, 20, e);
  const ap = s.additionalProperties;
  if (typeof ap === 'boolean') w.message(21, (a) => a.bool(2, ap));
  else if (ap && typeof ap === 'object') w.message(21, (a) => a.message(1, (x) => schema(x, ap as J)));
  if (typeof s.type === 'string') w.message(22, (t) => t.string(1, s.type));
  const items = s.items;
  if (items && typeof items === 'object')
    w.message(23, (it) => {
      for (const x of Array.isArray(items) ? items : [items]) it.message(1, (y) => schema(y, x as J));
    });
  if (Array.isArray(s.allOf)) for (const x of s.allOf) w.message(24, (y) => schema(y, x as J));
  if (s.properties && typeof s.properties === 'object') w.message(25, (p) => namedSchemas(p, s.properties as J));
  w.string(26, s.discriminator);
  w.bool(27, s.readOnly);
  if (s.example !== undefined) any(w, 30, s.example);
  vendorExtensions(w, 31, s);
}

/** Properties / Definitions: repeated NamedSchema additional_properties = 1. */
function namedSchemas(w: Writer, m: J): void {
  for (const [name, s] of Object.entries(m))
    w.message(1, (n) => {
      n.string(1, name);
      n.message(2, (x) => schema(x, s as J));
    });
}

function parameter(w: Writer, p: J): void {
  // ParametersItem.parameter = 1 → Parameter.
  w.message(1, (param) => {
    if (p.in === 'body') {
      param.message(1, (b) => {
        b.string(1, p.description);
        b.string(2, p.name);
        b.string(3, p.in);
        b.bool(4, p.required);
        if (p.schema) b.message(5, (x) => schema(x, p.schema as J));
        vendorExtensions(b, 6, p);
      });
      return;
    }
    // NonBodyParameter: query = 3, path = 4 (their field numbers differ after `name`).
    const path = p.in === 'path';
    param.message(2, (nb) =>
      nb.message(path ? 4 : 3, (q) => {
        q.bool(1, p.required);
        q.string(2, p.in);
        q.string(3, p.description);
        q.string(4, p.name);
        if (!path) q.bool(5, p.allowEmptyValue);
        q.string(path ? 5 : 6, p.type);
        q.string(path ? 6 : 7, p.format);
        q.bool(path ? 19 : 20, p.uniqueItems);
        vendorExtensions(q, path ? 22 : 23, p);
      }),
    );
  });
}

function operation(w: Writer, op: J): void {
  w.strings(1, op.tags);
  w.string(2, op.summary);
  w.string(3, op.description);
  w.string(5, op.operationId);
  w.strings(6, op.produces);
  w.strings(7, op.consumes);
  if (Array.isArray(op.parameters)) for (const p of op.parameters) w.message(8, (x) => parameter(x, p as J));
  const responses = op.responses as J | undefined;
  if (responses)
    w.message(9, (rs) => {
      for (const [code, r] of Object.entries(responses))
        rs.message(1, (named) => {
          named.string(1, code);
          named.message(2, (value) =>
            value.message(1, (resp) => {
              const rr = r as J;
              resp.string(1, rr.description);
              if (rr.schema) resp.message(2, (si) => si.message(1, (x) => schema(x, rr.schema as J)));
              vendorExtensions(resp, 5, rr);
            }),
          );
        });
      vendorExtensions(rs, 2, responses);
    });
  w.strings(10, op.schemes);
  w.bool(11, op.deprecated);
  vendorExtensions(w, 13, op);
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

/** gnostic's openapi_v2.Document of a swagger 2.0 document (as JSON-compatible data). */
export function encodeV2Protobuf(doc: J): Uint8Array {
  const w = new Writer();
  w.string(1, doc.swagger);
  const info = (doc.info ?? {}) as J;
  w.message(2, (i) => {
    i.string(1, info.title);
    i.string(2, info.version);
    i.string(3, info.description);
    vendorExtensions(i, 7, info);
  });
  w.string(3, doc.host);
  w.string(4, doc.basePath);
  w.strings(5, doc.schemes);
  w.strings(6, doc.consumes);
  w.strings(7, doc.produces);
  const paths = (doc.paths ?? {}) as J;
  w.message(8, (ps) => {
    vendorExtensions(ps, 1, paths);
    for (const [name, item] of Object.entries(paths)) {
      if (name.startsWith('x-')) continue;
      ps.message(2, (named) => {
        named.string(1, name);
        named.message(2, (pi) => {
          const it = item as J;
          methods.forEach((m, i) => {
            if (it[m]) pi.message(i + 2, (o) => operation(o, it[m] as J));
          });
          if (Array.isArray(it.parameters)) for (const p of it.parameters) pi.message(9, (x) => parameter(x, p as J));
          vendorExtensions(pi, 10, it);
        });
      });
    }
  });
  if (doc.definitions) w.message(9, (d) => namedSchemas(d, doc.definitions as J));
  if (Array.isArray(doc.security))
    for (const req of doc.security as J[])
      w.message(12, (sr) => {
        for (const [name, scopes] of Object.entries(req))
          sr.message(1, (n) => {
            n.string(1, name);
            n.message(2, (a) => a.strings(1, scopes));
          });
      });
  const defs = doc.securityDefinitions as J | undefined;
  if (defs)
    w.message(13, (sd) => {
      for (const [name, d] of Object.entries(defs))
        sd.message(1, (n) => {
          n.string(1, name);
          // SecurityDefinitionsItem.api_key_security = 2 (the only kind served).
          n.message(2, (item) =>
            item.message(2, (k) => {
              const dd = d as J;
              k.string(1, dd.type);
              k.string(2, dd.name);
              k.string(3, dd.in);
              k.string(4, dd.description);
            }),
          );
        });
    });
  vendorExtensions(w, 16, doc);
  return w.finish();
}
