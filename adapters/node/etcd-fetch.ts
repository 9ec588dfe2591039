// The etcd engine's fetch on Node for `--etcd-cafile/--etcd-certfile/--etcd-keyfile`: global fetch()
// cannot trust a private CA or present a client certificate, node:https can. Responses stream
// (the watch is one long response), connections are kept alive, TLS ≥ 1.2.
//
//   buildServerFromFlags(argv, { storage: { etcdFetch: nodeEtcdFetch, … } })

import https from 'node:https';
import { Readable } from 'node:stream';
import type { EtcdFetch } from '../../src/storage/etcd3/client.ts';
import type { EtcdTLSMaterial } from '../../src/storage/storagebackend/open.ts';

/** StoragePlatform.etcdFetch: a fetch over one keep-alive agent holding the CA and client certificate. */
export function nodeEtcdFetch(tls: EtcdTLSMaterial): EtcdFetch {
  const agent = new https.Agent({ keepAlive: true, ca: tls.ca, cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' });
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input);
      if (url.protocol !== 'https:') {
        // Plain endpoints in a mixed list go through the platform fetch.
        fetch(input, init).then(resolve, reject);
        return;
      }
      const headers = Object.fromEntries(new Headers(init.headers).entries());
      const req = https.request(url, { method: init.method ?? 'GET', headers, agent, signal: init.signal ?? undefined }, (res) => {
        const resHeaders = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') resHeaders.set(k, v);
        const body = Readable.toWeb(res) as ReadableStream<Uint8Array>;
        resolve(new Response(body, { status: res.statusCode ?? 500, statusText: res.statusMessage, headers: resHeaders }));
      });
      req.on('error', reject);
      req.end(typeof init.body === 'string' ? init.body : undefined);
    });
}
