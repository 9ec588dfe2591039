// A webhook's fetch on Node (audit, token review, subject access review) when the kubeconfig
// carries TLS material (a CA bundle, a client certificate and key, insecure-skip-tls-verify,
// tls-server-name): global fetch() cannot take those, node:https can. Plain http:// and TLS-less kubeconfigs use the platform fetch.
//
//   buildServerFromFlags(argv, { fileSystem, openAuditLog: openAuditLogFile, webhookFetch: nodeWebhookFetch })

import http from 'node:http';
import https from 'node:https';
import type { FetchFunction } from '../../src/util/webhook/client.ts';
import type { WebhookTLSConfig } from '../../src/util/webhook/kubeconfig.ts';

const nullBodyStatus = new Set([101, 103, 204, 205, 304]);

/** A WebhookFetchFactory for ApplyContext.webhookFetch. */
export function nodeWebhookFetch(tls: WebhookTLSConfig): FetchFunction {
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input);
      const headers = Object.fromEntries(new Headers(init.headers).entries());
      const options: https.RequestOptions = { method: init.method ?? 'GET', headers, signal: init.signal ?? undefined };
      if (url.protocol === 'https:') {
        Object.assign(options, {
          ca: tls.caData,
          cert: tls.certData,
          key: tls.keyData,
          rejectUnauthorized: !tls.insecureSkipTLSVerify,
          servername: tls.serverName,
        });
      }
      const req = (url.protocol === 'https:' ? https : http).request(url, options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const status = res.statusCode ?? 500;
          const resHeaders = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') resHeaders.set(k, v);
          resolve(
            new Response(nullBodyStatus.has(status) ? null : Buffer.concat(chunks), {
              status,
              statusText: res.statusMessage,
              headers: resHeaders,
            }),
          );
        });
      });
      req.on('error', reject);
      req.end(typeof init.body === 'string' ? init.body : undefined);
    });
}
