// AWS Lambda: the chain behind API Gateway (REST v1 and HTTP API v2), ALB and function URLs,
// through Hono's Lambda adapter (event ↔ Request/Response). The server is built once per
// execution environment from APISERVER_* env vars (the same kube-apiserver flags as the CLI);
// files the flags name are read from the deployment package unless given in APISERVER_FILES*.
// Client certificates come from API Gateway mTLS (custom domain with a truststore).
//
//   // handler.ts — configure with env vars only:
//   export { handler } from 'edge-apiserver/lambda';
//   // or in code:
//   import { createHandler } from 'edge-apiserver/lambda';
//   export const handler = createHandler({ flags: '--authorization-mode=RBAC', files: {...} });

import { Hono } from 'hono';
import { handle, type LambdaContext, type LambdaEvent } from 'hono/aws-lambda';
import type { Transport } from '../../src/endpoints/request/context.ts';
import { pemCertificatesToDER, takeForwardedClientCertificates } from '../../src/endpoints/request/client-cert.ts';
import {
  CLIENT_CERT_HEADER_VAR,
  EdgeServer,
  mergeSettings,
  settingsFromEnv,
  type EdgeSettings,
} from '../../src/app/edge.ts';
import type { FileSystem } from '../../src/util/filesystem.ts';
import { NodeFileSystem } from '../node/fs.ts';
import { openAuditLogFile } from '../node/audit-log-writer.ts';
import { nodeWebhookFetch } from '../node/webhook-fetch.ts';

/**
 * The deployment package's files, read as the Node adapter reads them (Lambda runs Node). Of the
 * Node platform Lambda also takes webhooks with client certificates and audit log files (under
 * /tmp, the only writable path); API Gateway terminates TLS, and the host IP is not the service's.
 */
export const lambdaFileSystem: FileSystem = new NodeFileSystem();

interface ClientCertContext {
  clientCertPem?: string;
}
/** The request-context fields read here, across event kinds. */
interface AnyRequestContext {
  identity?: { sourceIp?: string; clientCert?: ClientCertContext | null };
  authentication?: { clientCert?: ClientCertContext | null } | null;
  http?: { sourceIp?: string; protocol?: string };
  protocol?: string;
  elb?: unknown;
}

/** What the event says about the connection: client IP, protocol and the mTLS client certificate. */
export function lambdaTransport(event: LambdaEvent): Transport {
  const rc = ((event as { requestContext?: unknown }).requestContext ?? {}) as AnyRequestContext;
  const transport: Transport = {};
  if (rc.http) {
    transport.remoteAddress = rc.http.sourceIp;
    transport.protocol = protocolName(rc.http.protocol);
  } else if (rc.identity) {
    transport.remoteAddress = rc.identity.sourceIp;
    transport.protocol = protocolName(rc.protocol);
  } else if (rc.elb) {
    // ALB appends the client's address to X-Forwarded-For: the last entry is the one it saw.
    const headers = event as {
      headers?: Record<string, string | undefined>;
      multiValueHeaders?: Record<string, string[] | undefined>;
    };
    const xff = headers.headers?.['x-forwarded-for'] ?? headers.multiValueHeaders?.['x-forwarded-for']?.join(',');
    const last = xff?.split(',').pop()?.trim();
    if (last) transport.remoteAddress = last;
  }
  const pem = rc.authentication?.clientCert?.clientCertPem ?? rc.identity?.clientCert?.clientCertPem;
  const certs = pemCertificatesToDER(pem);
  if (certs.length) transport.peerCertificates = certs;
  return transport;
}

function protocolName(p: string | undefined): string | undefined {
  if (!p) return undefined;
  if (p === 'HTTP/2.0' || p === 'HTTP/2') return 'h2';
  if (p === 'HTTP/1.1') return 'http/1.1';
  return p.toLowerCase();
}

type LambdaHandler = ReturnType<typeof handle>;

export interface LambdaSettings extends EdgeSettings {
  /** Trust this RFC 9440 header (e.g. `Client-Cert`) from a proxy in front; default: APISERVER_CLIENT_CERT_HEADER. */
  clientCertHeader?: string;
}

/**
 * A Lambda handler for API Gateway v1/v2, ALB and function-URL events. Settings given here are
 * merged with the env (env flags after these, env files win by path).
 */
export function createHandler(settings: LambdaSettings = {}): LambdaHandler {
  const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
  const header = settings.clientCertHeader ?? (env[CLIENT_CERT_HEADER_VAR] || undefined);
  const server = new EdgeServer(() =>
    mergeSettings(
      {
        ...settings,
        fileSystem: settings.fileSystem ?? lambdaFileSystem,
        webhookFetch: settings.webhookFetch ?? nodeWebhookFetch,
        openAuditLog: settings.openAuditLog ?? openAuditLogFile,
      },
      settingsFromEnv(env),
    ),
  );
  const app = new Hono<{ Bindings: { event: LambdaEvent; lambdaContext?: LambdaContext } }>();
  app.all('*', (c) => {
    const transport = lambdaTransport(c.env.event);
    let request = c.req.raw;
    if (header) {
      const taken = takeForwardedClientCertificates(request, header);
      request = taken.request;
      if (!transport.peerCertificates && taken.certificates.length) transport.peerCertificates = taken.certificates;
    }
    return server.fetch(request, transport);
  });
  return handle(app);
}

/** Ready to deploy: configured by APISERVER_* env vars. */
export const handler: LambdaHandler = createHandler();
