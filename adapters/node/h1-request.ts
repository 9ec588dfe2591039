// The handler's Request for an HTTP/1.1 request: @hono/node-server's own (its URL, method, body
// and abort signal, with its handling of bodies and of clients that go away), with headers of
// its own over IncomingMessage.rawHeaders (h2-request.ts StreamHeaders). The authentication
// filter deletes Authorization from every authenticated request; @hono/node-server's headers
// build a Fetch Headers for any delete, StreamHeaders does not.

import { materialised, StreamHeaders } from './h2-request.ts';

/**
 * `instanceof Request` holds. method, url and headers are its own; the body and signal are the
 * inner request's; a clone, or any member only a real Request has, builds one on first use from
 * the inner request with these headers (so a deleted header stays deleted there too).
 */
export class IncomingRequest {
  readonly method: string;
  readonly url: string;
  readonly #inner: Request;
  readonly #raw: string[];
  #headers: StreamHeaders | undefined;
  #real: Request | undefined;

  constructor(inner: Request, rawHeaders: string[]) {
    this.#inner = inner;
    this.#raw = rawHeaders;
    this.method = inner.method;
    this.url = inner.url;
  }

  get headers(): Headers {
    return (this.#headers ??= new StreamHeaders(this.#raw)) as unknown as Headers;
  }

  get signal(): AbortSignal {
    return this.#inner.signal;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return (this.#real ?? this.#inner).body;
  }

  get bodyUsed(): boolean {
    return (this.#real ?? this.#inner).bodyUsed;
  }

  /** The inner request while nobody asked for the headers; else a Request with these headers and the inner's body. */
  real(): Request {
    if (this.#real) return this.#real;
    if (!this.#headers) return (this.#real = this.#inner);
    return (this.#real = new Request(this.#inner, { headers: this.#headers as unknown as Headers }));
  }

  clone(): Request {
    return this.real().clone();
  }

  // Body reads stay on @hono/node-server's fast path (straight from the socket) until a real Request exists.
  arrayBuffer(): Promise<ArrayBuffer> {
    return (this.#real ?? this.#inner).arrayBuffer();
  }
  blob(): Promise<Blob> {
    return (this.#real ?? this.#inner).blob();
  }
  bytes(): Promise<Uint8Array> {
    return (this.#real ?? this.#inner).bytes();
  }
  formData(): Promise<FormData> {
    return (this.#real ?? this.#inner).formData();
  }
  json(): Promise<unknown> {
    return (this.#real ?? this.#inner).json();
  }
  text(): Promise<string> {
    return (this.#real ?? this.#inner).text();
  }
}
for (const k of materialised) {
  if (k === 'bodyUsed') continue;
  Object.defineProperty(IncomingRequest.prototype, k, {
    get(this: IncomingRequest) {
      return (this.real() as unknown as Record<string, unknown>)[k];
    },
  });
}
Object.setPrototypeOf(IncomingRequest.prototype, Request.prototype);
