// Starts the edge-apiserver CLI in-process (adapters/node/cli.ts main) on a free port for the
// parity tests, with a token file: `alice-token` (system:masters) and `bob-token` (no groups).
import net from 'node:net';
import tls from 'node:tls';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../adapters/node/cli.ts';
import { KlogLogger } from '../src/util/logger.ts';
import type { Config } from '../src/server/config.ts';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface ParityServer {
  port: number;
  dir: string;
  stderr: () => string;
  stop: () => Promise<number>;
}

/** Runs main() with `flags` (plus port, bind address, cert dir and token file); resolves once it serves. */
export async function startServer(flags: string[], configure?: (config: Config) => void): Promise<ParityServer> {
  const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-parity-'));
  writeFileSync(join(dir, 'tokens.csv'), 'alice-token,alice,uid-alice,system:masters\nbob-token,bob,uid-bob\n');
  const port = await freePort();
  const stop = new AbortController();
  let err = '';
  const exited = main(
    [
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
      `--cert-dir=${join(dir, 'certs')}`,
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      ...flags,
    ],
    {
      signals: false,
      signal: stop.signal,
      logger: new KlogLogger(0, (line) => void (err += line + '\n')),
      stdout: () => {},
      stderr: (s) => void (err += s),
      configure,
    },
  );
  const deadline = Date.now() + 20_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) break;
    const done = await Promise.race([exited.then((c) => c), new Promise<undefined>((r) => setTimeout(r, 50))]);
    if (done !== undefined) throw new Error(`server exited ${done}: ${err}`);
    if (Date.now() > deadline) throw new Error(`server did not start: ${err}`);
  }
  return {
    port,
    dir,
    stderr: () => err,
    stop: async () => {
      stop.abort();
      const code = await exited;
      rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
}

/** One HTTP/1.1 request over a raw TLS socket; resolves with the response bytes (head + Content-Length body). */
export function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] }, () =>
      s.write(request),
    );
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`timeout; got ${JSON.stringify(buf.toString('latin1'))}`));
    }, 10_000);
    s.on('data', (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      const text = buf.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const m = /\r\ncontent-length: (\d+)\r\n/i.exec(text.slice(0, end + 2));
      const want = end + 4 + (m ? Number(m[1]) : 0);
      if (buf.length >= want) {
        clearTimeout(timer);
        s.destroy();
        resolve(buf.subarray(0, want).toString('utf8'));
      }
    });
    s.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}
