// A client for etcd v3's JSON gateway (grpc-gateway over the client port: POST /v3/kv/range|txn|
// deleterange|compaction, /v3/lease/grant, streaming /v3/watch) with nothing but `fetch`, so it
// runs on every runtime. The gateway's JSON is protojson: bytes are standard base64, int64 are
// strings, zero values are omitted (a failed txn has no `succeeded`, a PUT event no `type`).
//
// Endpoints are tried in order; a request moves to the next endpoint only when the connection
// could not be made (nothing was sent), so a write is never sent twice. Every unary request has a
// timeout: a stopped or unreachable etcd turns into an EtcdUnavailableError, never a hang.

import { base64Decode, base64Encode } from '../../util/base64.ts';
import { CompactedError, FutureRevisionError, ValueTooLargeError, type KeyValue } from '../kv.ts';

/** The fetch the client uses (Node passes one that presents client certificates). */
export type EtcdFetch = (input: string, init: RequestInit) => Promise<Response>;

export interface EtcdClientOptions {
  /** `--etcd-servers`: `http://host:port` or `https://host:port`, tried in order. */
  endpoints: readonly string[];
  /** Defaults to the global fetch. */
  fetch?: EtcdFetch;
  /** Timeout of one unary request, ms (default 20 s, etcd3's dial timeout in storagebackend/factory/etcd3.go). */
  requestTimeoutMs?: number;
}

/** etcd could not be reached (connection refused, DNS, TLS, timeout). */
export class EtcdUnavailableError extends Error {
  readonly endpoint: string;
  constructor(endpoint: string, reason: string) {
    super(`etcd ${endpoint}: ${reason}`);
    this.name = 'EtcdUnavailableError';
    this.endpoint = endpoint;
  }
}

/** etcd answered with an error (grpc status code and message, e.g. `etcdserver: request timed out`). */
export class EtcdResponseError extends Error {
  readonly code: number;
  readonly httpStatus: number;
  constructor(message: string, code: number, httpStatus: number) {
    super(message);
    this.name = 'EtcdResponseError';
    this.code = code;
    this.httpStatus = httpStatus;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function b64(bytes: Uint8Array | string): string {
  return base64Encode(typeof bytes === 'string' ? encoder.encode(bytes) : bytes);
}

/** The exclusive end of a byte-prefix range (clientv3.GetPrefixRangeEnd), base64. */
export function prefixEndB64(prefix: string): string {
  const end = encoder.encode(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      const out = end.slice(0, i + 1);
      out[i]!++;
      return base64Encode(out);
    }
  }
  // All 0xff (or empty): etcd's "\x00" means every key from `key` on.
  return 'AA==';
}

/** mvccpb.KeyValue as the gateway writes it. */
export interface RawKeyValue {
  key?: string;
  value?: string;
  create_revision?: string;
  mod_revision?: string;
  version?: string;
  lease?: string;
}

export interface RawHeader {
  revision?: string;
}

export function decodeKeyValue(raw: RawKeyValue): KeyValue {
  const kv: KeyValue = {
    key: raw.key ? decoder.decode(base64Decode(raw.key)) : '',
    value: raw.value ? base64Decode(raw.value) : new Uint8Array(0),
    createRevision: Number(raw.create_revision ?? 0),
    modRevision: Number(raw.mod_revision ?? 0),
  };
  return kv;
}

export function headerRevision(h: RawHeader | undefined): number {
  return Number(h?.revision ?? 0);
}

const unavailableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EPIPE',
]);

/** True when the request could not have reached etcd (safe to try the next endpoint). */
function notSent(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string } })?.cause;
  const code = cause?.code ?? (err as { code?: string })?.code;
  return (
    typeof code === 'string' &&
    (code === 'ECONNREFUSED' ||
      code === 'ENOTFOUND' ||
      code === 'EHOSTUNREACH' ||
      code === 'ENETUNREACH' ||
      code === 'EAI_AGAIN')
  );
}

function reason(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const cause = e?.cause;
  if (cause?.code && unavailableCodes.has(cause.code)) return cause.message ?? cause.code;
  if (cause?.message) return `${e.message ?? String(err)}: ${cause.message}`;
  return e?.message ?? String(err);
}

export class EtcdGatewayClient {
  readonly endpoints: readonly string[];
  private readonly fetchFn: EtcdFetch;
  private readonly timeoutMs: number;
  /** Index of the endpoint that answered last (tried first). */
  private current = 0;

  constructor(opts: EtcdClientOptions) {
    if (!opts.endpoints.length) throw new Error('etcd: no endpoints');
    this.endpoints = opts.endpoints.map((e) => e.replace(/\/+$/, ''));
    for (const e of this.endpoints) {
      if (!/^https?:\/\/[^/]+$/.test(e))
        throw new Error(`etcd: invalid endpoint ${JSON.stringify(e)}: want scheme://host:port`);
    }
    this.fetchFn = opts.fetch ?? ((input, init) => fetch(input, init));
    this.timeoutMs = opts.requestTimeoutMs ?? 20_000;
  }

  /** One unary gateway call; rejects with the kv.ts errors, EtcdResponseError or EtcdUnavailableError. */
  async call<T>(path: string, body: unknown, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<T> {
    const payload = JSON.stringify(body);
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    let lastErr: unknown;
    for (let attempt = 0; attempt < this.endpoints.length; attempt++) {
      const i = (this.current + attempt) % this.endpoints.length;
      const endpoint = this.endpoints[i]!;
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
      let res: Response;
      let text: string;
      try {
        res = await this.fetchFn(endpoint + path, {
          method: 'POST',
          body: payload,
          headers: { 'content-type': 'application/json' },
          signal,
        });
        text = await res.text();
      } catch (err) {
        if (opts.signal?.aborted) throw opts.signal.reason;
        if (timeout.aborted)
          throw new EtcdUnavailableError(endpoint, `request ${path} timed out after ${timeoutMs / 1000}s`);
        lastErr = err;
        if (notSent(err)) continue;
        throw new EtcdUnavailableError(endpoint, reason(err));
      }
      this.current = i;
      let json: Record<string, unknown>;
      try {
        json = JSON.parse(text) as Record<string, unknown>;
      } catch {
        throw new EtcdResponseError(
          `etcd ${endpoint}: unexpected response to ${path} (HTTP ${res.status}): ${text.slice(0, 200)}`,
          2,
          res.status,
        );
      }
      if (!res.ok || typeof json.error === 'string') throw responseError(json, res.status);
      return json as T;
    }
    throw new EtcdUnavailableError(
      this.endpoints.length === 1 ? this.endpoints[0]! : this.endpoints.join(','),
      reason(lastErr),
    );
  }

  /**
   * Opens a streaming /v3/watch and yields each `result`. The stream is cancelled by aborting
   * `signal`. Connecting and the `created` response are bounded by the request timeout.
   */
  async *watchStream(
    createRequest: Record<string, unknown>,
    signal: AbortSignal,
  ): AsyncGenerator<Record<string, unknown>> {
    const body = JSON.stringify({ create_request: createRequest });
    let res: Response | undefined;
    let endpoint = '';
    let lastErr: unknown;
    const ctl = new AbortController();
    const onAbort = () => ctl.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => ctl.abort(new Error('timeout')), this.timeoutMs);
    try {
      for (let attempt = 0; attempt < this.endpoints.length && !res; attempt++) {
        const i = (this.current + attempt) % this.endpoints.length;
        endpoint = this.endpoints[i]!;
        try {
          res = await this.fetchFn(endpoint + '/v3/watch', {
            method: 'POST',
            body,
            headers: { 'content-type': 'application/json' },
            signal: ctl.signal,
          });
          this.current = i;
        } catch (err) {
          if (signal.aborted) return;
          if (ctl.signal.aborted)
            throw new EtcdUnavailableError(endpoint, `watch timed out after ${this.timeoutMs / 1000}s`);
          lastErr = err;
          if (notSent(err)) continue;
          throw new EtcdUnavailableError(endpoint, reason(err));
        }
      }
      if (!res) throw new EtcdUnavailableError(this.endpoints.join(','), reason(lastErr));
      if (!res.ok || !res.body) {
        const text = await res.text().catch(() => '');
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(text) as Record<string, unknown>;
        } catch {
          json = { error: `unexpected watch response (HTTP ${res.status}): ${text.slice(0, 200)}` };
        }
        throw responseError(json, res.status);
      }
      const reader = res.body.getReader();
      const dec = new TextDecoder();
      let buf = '';
      let created = false;
      try {
        for (;;) {
          let chunk: ReadableStreamReadResult<Uint8Array>;
          try {
            chunk = await reader.read();
          } catch (err) {
            if (signal.aborted) return;
            if (!created && ctl.signal.aborted)
              throw new EtcdUnavailableError(endpoint, `watch timed out after ${this.timeoutMs / 1000}s`);
            throw new EtcdUnavailableError(endpoint, `watch stream broken: ${reason(err)}`);
          }
          if (chunk.done) {
            if (signal.aborted) return;
            throw new EtcdUnavailableError(endpoint, 'watch stream closed by the server');
          }
          buf += dec.decode(chunk.value, { stream: true });
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl).trim();
            buf = buf.slice(nl + 1);
            if (!line) continue;
            const msg = JSON.parse(line) as { result?: Record<string, unknown>; error?: unknown };
            if (msg.error !== undefined) {
              throw responseError(
                typeof msg.error === 'object' && msg.error
                  ? (msg.error as Record<string, unknown>)
                  : (msg as Record<string, unknown>),
                200,
              );
            }
            if (!msg.result) continue;
            if (!created) {
              created = true;
              clearTimeout(timer);
            }
            yield msg.result;
            if (signal.aborted) return;
          }
        }
      } finally {
        reader.cancel().catch(() => {});
      }
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      ctl.abort();
    }
  }
}

/** Maps a gateway error body to the kv.ts errors (ErrCompacted, ErrFutureRev) or EtcdResponseError. */
function responseError(json: Record<string, unknown>, status: number): Error {
  const message = String(json.message ?? json.error ?? `HTTP ${status}`);
  const code = Number(json.code ?? 2);
  if (message.includes('required revision has been compacted')) return new CompactedError(0, 0);
  if (message.includes('required revision is a future revision')) return new FutureRevisionError(0);
  if (message.includes('request is too large')) return new ValueTooLargeError('', 0, 0, message);
  return new EtcdResponseError(message, code, status);
}
