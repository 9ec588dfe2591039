// A raw HTTP/2 client for attacking the server (RFC 9113 framing, RFC 7541 HPACK): frames are
// built by hand so that a test can send what no well-behaved client library would (bursts over
// the stream limit, CONTINUATION floods, bad HPACK, bad pseudo-headers, frames on closed streams).
// The encoder knows only "literal without indexing, new name" plus deliberate bad encodings; the
// reader decodes what it needs (the `:status` of responses, DATA, RST_STREAM, GOAWAY). It tells
// the server a header table size of 0, so responses use only the static table and literals.

import tls from 'node:tls';

export const FrameType = {
  DATA: 0x0,
  HEADERS: 0x1,
  PRIORITY: 0x2,
  RST_STREAM: 0x3,
  SETTINGS: 0x4,
  PUSH_PROMISE: 0x5,
  PING: 0x6,
  GOAWAY: 0x7,
  WINDOW_UPDATE: 0x8,
  CONTINUATION: 0x9,
} as const;

export const Flags = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 } as const;

/** RFC 9113 §7 error codes. */
export const ErrorCode = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  INTERNAL_ERROR: 0x2,
  FLOW_CONTROL_ERROR: 0x3,
  STREAM_CLOSED: 0x5,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
  ENHANCE_YOUR_CALM: 0xb,
} as const;

export const preface = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

export function frame(type: number, flags: number, streamId: number, payload: Uint8Array = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(9);
  h.writeUIntBE(payload.length, 0, 3);
  h[3] = type;
  h[4] = flags;
  h.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([h, payload]);
}

export function settings(values: [number, number][] = [], ack = false): Buffer {
  const p = Buffer.alloc(values.length * 6);
  values.forEach(([id, v], i) => {
    p.writeUInt16BE(id, i * 6);
    p.writeUInt32BE(v, i * 6 + 2);
  });
  return frame(FrameType.SETTINGS, ack ? Flags.ACK : 0, 0, p);
}

export function ping(data: Uint8Array = Buffer.alloc(8), ack = false): Buffer {
  return frame(FrameType.PING, ack ? Flags.ACK : 0, 0, data);
}

export function windowUpdate(streamId: number, increment: number): Buffer {
  const p = Buffer.alloc(4);
  p.writeUInt32BE(increment & 0x7fffffff);
  return frame(FrameType.WINDOW_UPDATE, 0, streamId, p);
}

export function rstStream(streamId: number, code: number = ErrorCode.CANCEL): Buffer {
  const p = Buffer.alloc(4);
  p.writeUInt32BE(code);
  return frame(FrameType.RST_STREAM, 0, streamId, p);
}

export function priority(streamId: number, dependsOn: number, weight = 15): Buffer {
  const p = Buffer.alloc(5);
  p.writeUInt32BE(dependsOn & 0x7fffffff);
  p[4] = weight;
  return frame(FrameType.PRIORITY, 0, streamId, p);
}

export function data(streamId: number, payload: Uint8Array | string, endStream = false): Buffer {
  return frame(
    FrameType.DATA,
    endStream ? Flags.END_STREAM : 0,
    streamId,
    typeof payload === 'string' ? Buffer.from(payload) : payload,
  );
}

/** HPACK integer with an N-bit prefix (RFC 7541 §5.1); `first` carries the pattern bits. */
export function hpackInt(value: number, prefixBits: number, first = 0): Buffer {
  const max = (1 << prefixBits) - 1;
  if (value < max) return Buffer.from([first | value]);
  const out = [first | max];
  value -= max;
  while (value >= 128) {
    out.push((value % 128) + 128);
    value = Math.floor(value / 128);
  }
  out.push(value);
  return Buffer.from(out);
}

function hpackString(s: string | Buffer): Buffer {
  const b = typeof s === 'string' ? Buffer.from(s, 'latin1') : s;
  return Buffer.concat([hpackInt(b.length, 7), b]);
}

/** Literal header field without indexing, new name (RFC 7541 §6.2.2). */
export function literal(name: string, value: string | Buffer): Buffer {
  return Buffer.concat([Buffer.from([0x00]), hpackString(name), hpackString(value)]);
}

/** A header block of literals, in order (pseudo-headers first is the caller's business). */
export function headerBlock(fields: [string, string | Buffer][]): Buffer {
  return Buffer.concat(fields.map(([n, v]) => literal(n, v)));
}

/** The pseudo-headers and headers of a request. */
export function requestFields(method: string, path: string, headers: Record<string, string> = {}): [string, string][] {
  return [
    [':method', method],
    [':scheme', 'https'],
    [':authority', '127.0.0.1'],
    [':path', path],
    ...Object.entries(headers),
  ];
}

export function headers(streamId: number, block: Buffer, { endStream = true, endHeaders = true } = {}): Buffer {
  return frame(
    FrameType.HEADERS,
    (endStream ? Flags.END_STREAM : 0) | (endHeaders ? Flags.END_HEADERS : 0),
    streamId,
    block,
  );
}

export function continuation(streamId: number, block: Buffer, endHeaders = false): Buffer {
  return frame(FrameType.CONTINUATION, endHeaders ? Flags.END_HEADERS : 0, streamId, block);
}

/** Deliberately broken HPACK: each is a header block a conforming decoder must reject. */
export const badHpack = {
  /** Indexed field 0 (RFC 7541 §6.1: index 0 is an error). */
  indexZero: Buffer.from([0x80]),
  /** Indexed field far past the static table with an empty dynamic table. */
  indexOutOfRange: hpackInt(5000, 7, 0x80),
  /** A string length longer than the block. */
  truncatedString: Buffer.from([0x00, 0x05, 0x61]),
  /** An integer that never terminates within 2^62 (overflow). */
  integerOverflow: Buffer.from([0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]),
  /** A Huffman string whose padding is not the EOS prefix (zeros). */
  badHuffmanPadding: Buffer.from([0x00, 0x81, 0x00, 0x01, 0x61]),
  /** A dynamic table size update larger than SETTINGS_HEADER_TABLE_SIZE (4096). */
  tableSizeTooLarge: hpackInt(1 << 20, 5, 0x20),
  /** A table size update after a field (must come first). */
  lateTableSizeUpdate: Buffer.concat([literal(':method', 'GET'), hpackInt(0, 5, 0x20)]),
};

export interface Frame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer<ArrayBufferLike>;
}

/** What the client learnt of a stream. */
export interface StreamResult {
  status?: number;
  body: Buffer<ArrayBufferLike>;
  rst?: number;
  ended: boolean;
}

// RFC 7541 Appendix B codes of the ten digits (`:status` values are digits only).
const digitCodes: [number, number][] = [
  [0x0, 5],
  [0x1, 5],
  [0x2, 5],
  [0x19, 6],
  [0x1a, 6],
  [0x1b, 6],
  [0x1c, 6],
  [0x1d, 6],
  [0x1e, 6],
  [0x1f, 6],
];

/** Decodes a Huffman string made of digits only; undefined for anything else. */
function huffmanDigits(b: Buffer): string | undefined {
  let bits = 0;
  let n = 0;
  let out = '';
  for (const byte of b) {
    bits = (bits << 8) | byte;
    n += 8;
    for (;;) {
      let matched = false;
      for (let d = 0; d < 10; d++) {
        const [code, len] = digitCodes[d]!;
        if (n >= len && ((bits >> (n - len)) & ((1 << len) - 1)) === code) {
          out += String(d);
          n -= len;
          bits &= (1 << n) - 1;
          matched = true;
          break;
        }
      }
      if (!matched) break;
    }
  }
  // What is left must be EOS padding (all ones, < 8 bits).
  return n < 8 && bits === (1 << n) - 1 ? out : undefined;
}

const staticStatus: Record<number, number> = { 8: 200, 9: 204, 10: 206, 11: 304, 12: 400, 13: 404, 14: 500 };

function readInt(b: Buffer, pos: number, prefixBits: number): [number, number] {
  const max = (1 << prefixBits) - 1;
  let v = b[pos]! & max;
  pos++;
  if (v < max) return [v, pos];
  let m = 0;
  for (;;) {
    const byte = b[pos++]!;
    v += (byte & 0x7f) * 2 ** m;
    m += 7;
    if (!(byte & 0x80)) return [v, pos];
  }
}

function readString(b: Buffer, pos: number): [Buffer, boolean, number] {
  const huffman = (b[pos]! & 0x80) !== 0;
  const [len, p] = readInt(b, pos, 7);
  return [b.subarray(p, p + len), huffman, p + len];
}

/**
 * The `:status` of a response header block (static table only: the client advertised a header
 * table size of 0), or undefined when it cannot be read.
 */
export function decodeStatus(block: Buffer): number | undefined {
  let pos = 0;
  while (pos < block.length) {
    const b = block[pos]!;
    if (b & 0x80) {
      const [idx, p] = readInt(block, pos, 7);
      if (staticStatus[idx]) return staticStatus[idx];
      pos = p;
      continue;
    }
    if ((b & 0xe0) === 0x20) {
      pos = readInt(block, pos, 5)[1];
      continue;
    }
    const prefix = (b & 0xc0) === 0x40 ? 6 : 4;
    const [nameIdx, p] = readInt(block, pos, prefix);
    pos = p;
    let name = '';
    if (nameIdx === 0) {
      const [n, h, q] = readString(block, pos);
      name = h ? '' : n.toString('latin1');
      pos = q;
    }
    const [v, h, q] = readString(block, pos);
    pos = q;
    if (nameIdx === 8 || name === ':status') return Number(h ? huffmanDigits(v) : v.toString('latin1'));
  }
  return undefined;
}

export interface H2ConnectOptions {
  port: number;
  host?: string;
  /** Extra SETTINGS of the client preface. */
  settings?: [number, number][];
  /** Answer the server's SETTINGS and PINGs (default true). */
  autoAck?: boolean;
}

/**
 * A raw HTTP/2 connection over TLS (ALPN h2). Frames the server sends are collected; helpers
 * wait for a stream's end, a GOAWAY or the connection's close, each bounded by a timeout.
 */
export class RawH2 {
  readonly socket: tls.TLSSocket;
  readonly frames: Frame[] = [];
  readonly streams = new Map<number, StreamResult>();
  goaway?: { lastStreamId: number; code: number; debug: string };
  closed = false;
  private buf: Buffer<ArrayBufferLike> = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  private readonly autoAck: boolean;
  /** A header block being continued (CONTINUATION). */
  private pendingBlock?: { streamId: number; parts: Buffer[]; endStream: boolean };

  private constructor(socket: tls.TLSSocket, autoAck: boolean) {
    this.socket = socket;
    this.autoAck = autoAck;
    socket.on('data', (d: Buffer) => this.onData(d));
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  static connect(opts: H2ConnectOptions): Promise<RawH2> {
    return new Promise((resolve, reject) => {
      const socket = tls.connect({
        host: opts.host ?? '127.0.0.1',
        port: opts.port,
        ALPNProtocols: ['h2'],
        rejectUnauthorized: false,
      });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error('TLS connect timed out'));
      }, 5000);
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      socket.once('secureConnect', () => {
        clearTimeout(timer);
        if (socket.alpnProtocol !== 'h2') return reject(new Error(`ALPN chose ${socket.alpnProtocol}`));
        const c = new RawH2(socket, opts.autoAck ?? true);
        // SETTINGS_HEADER_TABLE_SIZE 0: the server's responses need no dynamic table.
        socket.write(Buffer.concat([preface, settings([[0x1, 0], ...(opts.settings ?? [])])]));
        resolve(c);
      });
    });
  }

  write(...chunks: Buffer[]): boolean {
    if (this.socket.destroyed) return false;
    return this.socket.write(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
  }

  /** Sends a complete request on `streamId`; `body` goes in one DATA frame. */
  request(streamId: number, method: string, path: string, hdrs: Record<string, string> = {}, body?: string): void {
    const block = headerBlock(requestFields(method, path, hdrs));
    if (body === undefined) this.write(headers(streamId, block));
    else this.write(headers(streamId, block, { endStream: false }), data(streamId, body, true));
  }

  private stream(id: number): StreamResult {
    let s = this.streams.get(id);
    if (!s) this.streams.set(id, (s = { body: Buffer.alloc(0), ended: false }));
    return s;
  }

  private onData(d: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    while (this.buf.length >= 9) {
      const len = this.buf.readUIntBE(0, 3);
      if (this.buf.length < 9 + len) break;
      const f: Frame = {
        type: this.buf[3]!,
        flags: this.buf[4]!,
        streamId: this.buf.readUInt32BE(5) & 0x7fffffff,
        payload: this.buf.subarray(9, 9 + len),
      };
      this.buf = this.buf.subarray(9 + len);
      this.onFrame(f);
    }
    this.wake();
  }

  private onFrame(f: Frame): void {
    if (this.frames.length < 10_000) this.frames.push(f);
    switch (f.type) {
      case FrameType.SETTINGS:
        if (!(f.flags & Flags.ACK) && this.autoAck) this.write(settings([], true));
        break;
      case FrameType.PING:
        if (!(f.flags & Flags.ACK) && this.autoAck) this.write(ping(f.payload, true));
        break;
      case FrameType.GOAWAY:
        this.goaway = {
          lastStreamId: f.payload.readUInt32BE(0) & 0x7fffffff,
          code: f.payload.readUInt32BE(4),
          debug: f.payload.subarray(8).toString('latin1'),
        };
        break;
      case FrameType.RST_STREAM: {
        const s = this.stream(f.streamId);
        s.rst = f.payload.readUInt32BE(0);
        s.ended = true;
        break;
      }
      case FrameType.HEADERS:
      case FrameType.CONTINUATION: {
        let p = f.payload;
        if (f.type === FrameType.HEADERS) {
          let start = 0;
          let pad = 0;
          if (f.flags & Flags.PADDED) {
            pad = p[0]!;
            start = 1;
          }
          if (f.flags & Flags.PRIORITY) start += 5;
          p = p.subarray(start, p.length - pad);
          this.pendingBlock = { streamId: f.streamId, parts: [], endStream: (f.flags & Flags.END_STREAM) !== 0 };
        }
        const pending = this.pendingBlock;
        if (!pending) break;
        pending.parts.push(p);
        if (f.flags & Flags.END_HEADERS) {
          const s = this.stream(pending.streamId);
          s.status ??= decodeStatus(Buffer.concat(pending.parts));
          if (pending.endStream) s.ended = true;
          this.pendingBlock = undefined;
        }
        break;
      }
      case FrameType.DATA: {
        const s = this.stream(f.streamId);
        s.body = Buffer.concat([s.body, f.payload]);
        if (f.flags & Flags.END_STREAM) s.ended = true;
        // Keep the windows open for large responses.
        if (f.payload.length && this.autoAck)
          this.write(windowUpdate(0, f.payload.length), windowUpdate(f.streamId, f.payload.length));
        break;
      }
    }
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Waits until `cond()` holds, the connection closed, or `ms` passed; returns cond(). */
  async until(cond: () => boolean, ms = 5000): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!cond() && !this.closed && Date.now() < deadline) {
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
    return cond();
  }

  /** Waits for stream `id` to end (response complete or reset). */
  async response(id: number, ms = 5000): Promise<StreamResult> {
    await this.until(() => this.streams.get(id)?.ended === true, ms);
    return this.stream(id);
  }

  /** Waits for the connection to close (server-side) within `ms`; true if it did. */
  async closedWithin(ms: number): Promise<boolean> {
    await this.until(() => false, ms);
    return this.closed;
  }

  close(): void {
    this.socket.destroy();
  }
}
