// A raw HTTP/1.1 client over TLS (ALPN http/1.1): writes exactly the bytes a case gives (malformed
// request lines, smuggling shapes, slow drips) and reads what comes back, bounded by a timeout.

import tls from 'node:tls';

export interface RawResponse {
  status: number;
  statusLine: string;
  /** Header lines as sent (name: value), in order. */
  headerLines: string[];
  body: string;
}

/** Splits a byte stream of (possibly pipelined) HTTP/1.1 responses; bodies by Content-Length or chunked. */
export function parseResponses(raw: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = raw;
  while (rest.length) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...headerLines] = rest.slice(0, end).split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine!);
    if (!m) break;
    rest = rest.slice(end + 4);
    const header = (n: string) =>
      headerLines
        .find((l) => l.toLowerCase().startsWith(`${n}:`))
        ?.slice(n.length + 1)
        .trim();
    let body = '';
    const cl = header('content-length');
    const status = Number(m[1]);
    if (cl !== undefined) {
      body = rest.slice(0, Number(cl));
      rest = rest.slice(Number(cl));
    } else if (header('transfer-encoding')?.toLowerCase() === 'chunked') {
      for (;;) {
        const nl = rest.indexOf('\r\n');
        if (nl < 0) break;
        const size = parseInt(rest.slice(0, nl), 16);
        rest = rest.slice(nl + 2);
        if (!size) {
          rest = rest.slice(rest.indexOf('\r\n') + 2);
          break;
        }
        body += rest.slice(0, size);
        rest = rest.slice(size + 2);
      }
    } else if (status !== 204 && status !== 304 && !(status >= 100 && status < 200)) {
      body = rest;
      rest = '';
    }
    out.push({ status, statusLine: statusLine!, headerLines, body });
  }
  return out;
}

export class RawH1 {
  readonly socket: tls.TLSSocket;
  received = '';
  closed = false;
  private waiters: (() => void)[] = [];

  private constructor(socket: tls.TLSSocket) {
    this.socket = socket;
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      this.received += d;
      this.wake();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  static connect(port: number, host = '127.0.0.1'): Promise<RawH1> {
    return new Promise((resolve, reject) => {
      const socket = tls.connect({ host, port, ALPNProtocols: ['http/1.1'], rejectUnauthorized: false });
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
        resolve(new RawH1(socket));
      });
    });
  }

  write(s: string | Buffer): void {
    if (!this.socket.destroyed) this.socket.write(s);
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

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

  /** Waits for `n` complete responses (or the close, or `ms`). */
  async responses(n = 1, ms = 5000): Promise<RawResponse[]> {
    await this.until(
      () => parseResponses(this.received).length >= n && (this.closed || completeBodies(this.received)),
      ms,
    );
    return parseResponses(this.received);
  }

  async closedWithin(ms: number): Promise<boolean> {
    await this.until(() => false, ms);
    return this.closed;
  }

  close(): void {
    this.socket.destroy();
  }
}

/** True when the last response's body is complete (known length or chunked end). */
function completeBodies(raw: string): boolean {
  const end = raw.lastIndexOf('\r\n\r\n');
  if (end < 0) return false;
  const rs = parseResponses(raw);
  const last = rs[rs.length - 1];
  if (!last) return false;
  const cl = last.headerLines.find((l) => l.toLowerCase().startsWith('content-length:'));
  if (cl) return last.body.length >= Number(cl.split(':')[1]);
  return raw.endsWith('0\r\n\r\n');
}

/** One request on a fresh connection: writes `bytes`, returns the responses and whether it closed. */
export async function exchange(
  port: number,
  bytes: string | Buffer,
  ms = 5000,
): Promise<{ responses: RawResponse[]; raw: string; closed: boolean }> {
  const c = await RawH1.connect(port);
  try {
    c.write(bytes);
    const responses = await c.responses(1, ms);
    await c.until(() => c.closed, 200);
    return { responses, raw: c.received, closed: c.closed };
  } finally {
    c.close();
  }
}
