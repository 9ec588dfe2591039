// The liveness probe run after every case group: /healthz over a fresh HTTP/1.1 connection and a
// fresh HTTP/2 connection, plus an authenticated request (token-file user) over HTTP/2. Throws
// with what failed; every step is bounded by a timeout.

import http2 from 'node:http2';
import https from 'node:https';

const timeoutMs = 5000;

export function h1Get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, path, headers, rejectUnauthorized: false, agent: false, timeout: timeoutMs },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`HTTP/1.1 ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

export function h2Get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const client = http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false });
    const timer = setTimeout(() => {
      client.destroy();
      reject(new Error(`HTTP/2 ${path} timed out`));
    }, timeoutMs);
    const fail = (err: Error) => {
      clearTimeout(timer);
      client.destroy();
      reject(err);
    };
    client.on('error', fail);
    const stream = client.request({ ':path': path, ...headers });
    stream.on('error', fail);
    let status = 0;
    let body = '';
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.setEncoding('utf8');
    stream.on('data', (c: string) => (body += c));
    stream.on('end', () => {
      clearTimeout(timer);
      client.close();
      resolve({ status, body });
    });
  });
}

/** Throws unless the server answers healthily on fresh connections of both protocols. */
export async function probe(port: number, token?: string): Promise<void> {
  const h1 = await h1Get(port, '/healthz');
  if (h1.status !== 200 || h1.body !== 'ok') throw new Error(`HTTP/1.1 /healthz: ${h1.status} ${h1.body}`);
  const h2 = await h2Get(port, '/healthz');
  if (h2.status !== 200 || h2.body !== 'ok') throw new Error(`HTTP/2 /healthz: ${h2.status} ${h2.body}`);
  if (token) {
    const v = await h2Get(port, '/version', { authorization: `Bearer ${token}` });
    if (v.status !== 200 || !v.body.includes('"gitVersion"'))
      throw new Error(`authenticated /version: ${v.status} ${v.body}`);
  }
}

/** One HTTP/2 request on a fresh connection: status, response headers, body. */
export function h2Request(
  port: number,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: http2.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const client = http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false });
    const timer = setTimeout(() => {
      client.destroy();
      reject(new Error(`HTTP/2 ${headers[':path']} timed out`));
    }, timeoutMs);
    const fail = (err: Error) => {
      clearTimeout(timer);
      client.destroy();
      reject(err);
    };
    client.on('error', fail);
    const stream = client.request(headers);
    stream.on('error', fail);
    let got: http2.IncomingHttpHeaders = {};
    let text = '';
    stream.on('response', (h) => (got = h));
    stream.setEncoding('utf8');
    stream.on('data', (c: string) => (text += c));
    stream.on('end', () => {
      clearTimeout(timer);
      client.close();
      resolve({ status: Number(got[':status']), headers: got, body: text });
    });
    stream.end(body);
  });
}
