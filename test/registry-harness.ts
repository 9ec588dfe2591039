// An in-process server for the registry tests: the EdgeServer (memory storage, the whole chain)
// with a bearer token in system:masters, and a request helper answering status, headers and body.
import { EdgeServer } from '../src/app/edge.ts';
import { discardLogger } from '../src/util/logger.ts';
import type { KV } from '../src/storage/kv.ts';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: () => Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export const ADMIN_TOKEN = 'registry-admin-token';

export interface Harness {
  server: EdgeServer;
  req(
    method: string,
    path: string,
    body?: string,
    contentType?: string,
    headers?: Record<string, string>,
  ): Promise<Answer>;
  stop(): Promise<void>;
}

export async function startServer(extraFlags = '', opts: { kv?: () => KV } = {}): Promise<Harness> {
  const server = new EdgeServer({
    flags: `--authorization-mode=RBAC --token-auth-file=/registry/tokens.csv ${extraFlags}`,
    files: { '/registry/tokens.csv': `${ADMIN_TOKEN},admin,uid-admin,system:masters\n` },
    logger: discardLogger,
    storage: opts.kv ? { openMemory: opts.kv } : undefined,
  });
  await server.ready();
  const req: Harness['req'] = async (method, path, body, contentType = 'application/json', headers = {}) => {
    const h: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}`, ...headers };
    if (body !== undefined) h['content-type'] = contentType;
    const res = await server.fetch(new Request(`https://127.0.0.1${path}`, { method, body, headers: h }), {
      remoteAddress: '127.0.0.1',
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
  };
  return { server, req, stop: () => server.stop() };
}
