// A workload-low flood client that behaves like client-go under APF: `streams` requests always
// outstanding over one HTTP/2 connection per `connections`; a 429 makes that stream wait
// Retry-After seconds before trying again. Prints one JSON line with status counts at the end.
//   node bench/apf-flood.ts <port> <token> <connections> <streams> <seconds>

import http2 from 'node:http2';
import { benchPath } from './variants.ts';

const [port, token, connections, streams, seconds] = process.argv.slice(2);
const end = Date.now() + Number(seconds) * 1000;
const counts: Record<string, number> = {};

async function loop(session: http2.ClientHttp2Session): Promise<void> {
  while (Date.now() < end) {
    const { status, retryAfter } = await new Promise<{ status: number; retryAfter: number }>((resolve) => {
      const req = session.request({ ':path': benchPath, authorization: `Bearer ${token}` });
      let status = 0;
      let retryAfter = 0;
      req.on('response', (h) => {
        status = Number(h[':status']);
        retryAfter = Number(h['retry-after'] ?? 0);
      });
      req.on('data', () => {});
      req.on('end', () => resolve({ status, retryAfter }));
      req.on('error', () => resolve({ status: -1, retryAfter: 1 }));
      req.end();
    });
    counts[status] = (counts[status] ?? 0) + 1;
    if (retryAfter > 0) await new Promise((r) => setTimeout(r, Math.min(retryAfter * 1000, end - Date.now())));
  }
}

const sessions = Array.from({ length: Number(connections) }, () =>
  http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false, settings: { enablePush: false } }),
);
await Promise.all(sessions.flatMap((s) => Array.from({ length: Number(streams) }, () => loop(s))));
for (const s of sessions) s.close();
console.log(JSON.stringify(counts));
