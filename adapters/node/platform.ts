// The Platform (src/server/platform.ts) on Node: node:fs files with watches, audit log files with
// lumberjack's rotation, webhooks and etcd over node:https (CA bundles, client certificates), the
// embedded SQLite file on node:sqlite, and utilnet.ChooseHostInterface for the advertise address.
// Bun and Deno run the same modules through their Node compatibility (adapters/bun, adapters/deno).
//
//   buildServerFromFlags(argv, { ...nodePlatform(), logger })

import type { Platform } from '../../src/server/platform.ts';
import type { AuditLogOpener } from '../../src/audit/log.ts';
import { NodeFileSystem } from './fs.ts';
import { chooseHostInterface } from './host-interface.ts';
import { nodeEtcdFetch } from './etcd-fetch.ts';
import { nodeStoragePlatform } from './storage.ts';
import { nodeWebhookFetch } from './webhook-fetch.ts';

/** Rotated audit log files (audit-log-writer.ts, node:zlib), loaded when --audit-log-path names a file. */
const openAuditLogFile: AuditLogOpener = async (filename, options) =>
  (await import('./audit-log-writer.ts')).openAuditLogFile(filename, options);

/** The Node CLI's platform: every capability, TLS terminated by adapters/node/listener.ts. */
export function nodePlatform(): Platform {
  return {
    fileSystem: new NodeFileSystem(),
    servesTLS: true,
    chooseHostInterface: () => chooseHostInterface(),
    webhookFetch: nodeWebhookFetch,
    openAuditLog: openAuditLogFile,
    storage: nodeStoragePlatform(),
  };
}

/**
 * What Bun and Deno reuse of the Node platform through their Node compatibility (node:fs,
 * node:https, node:zlib): files with watches, rotated audit log files, webhooks with client
 * certificates, TLS etcd, and the host IP when the runtime may read it (a failure leaves the
 * advertise address undefaulted, as on the edge; `lookUpHostIP: false` skips it where asking would prompt
 * for a permission). Their own listener decides `servesTLS`; the embedded SQLite comes with
 * `bunStoragePlatform()` / `denoStoragePlatform()` (their main.ts pass it), else the default backend is memory.
 */
export function nodeCompatiblePlatform(opts: { lookUpHostIP?: boolean } = {}): Platform {
  let hostIP: string | undefined;
  if (opts.lookUpHostIP !== false) {
    try {
      hostIP = chooseHostInterface();
    } catch {
      hostIP = undefined;
    }
  }
  return {
    fileSystem: new NodeFileSystem(),
    hostIP,
    webhookFetch: nodeWebhookFetch,
    openAuditLog: openAuditLogFile,
    storage: { etcdFetch: nodeEtcdFetch },
  };
}
