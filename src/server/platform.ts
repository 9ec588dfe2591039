// The Platform seam, beside Transport: what a runtime provides to the option groups when they
// build the server (file system, audit log files, webhook TLS, storage engines, the host's IP),
// where Transport is what the listener knows about one request. kube-apiserver reaches the OS
// directly; here each adapter fills this once (adapters/node/platform.ts for Node, and for Bun and
// Deno through their Node compatibility; the edge adapters fill their own), and everything under
// src/ stays portable. Per-request background work (Workers' ctx.waitUntil) stays on Transport:
// edge runtimes tie it to the request that started it.

import type { AuditLogOpener } from '../audit/log.ts';
import type { StoragePlatform } from '../storage/storagebackend/open.ts';
import type { FileSystem } from '../util/filesystem.ts';
import type { WebhookFetchFactory } from '../util/webhook/client.ts';

export interface Platform {
  /** Files the flags name (token files, certificates, manifests, kubeconfigs); Node: node:fs. */
  fileSystem: FileSystem;
  /**
   * True when this process terminates TLS itself (Node, and Deno/Bun with certificates): the
   * serving options load or generate certificates, and the Node CLI's secure defaults apply.
   */
  servesTLS?: boolean;
  /** The host's default interface IP: the advertise address when none is given and the bind address is unspecified or loopback. */
  hostIP?: string;
  /**
   * utilnet.ChooseHostInterface where the platform can look (Node): the IP, or throws upstream's
   * error text (a start-up error). Preferred over `hostIP`.
   */
  chooseHostInterface?: () => string;
  /** Opens an `--audit-log-path` file with rotation (Node: adapters/node/audit-log-writer.ts); absent: only `-`. */
  openAuditLog?: AuditLogOpener;
  /** A fetch presenting a webhook kubeconfig's CA / client certificate (audit, authn, authz, OIDC); absent: the global fetch. */
  webhookFetch?: WebhookFetchFactory;
  /** Storage engines (a SQLite binding, a TLS fetch for etcd, a Durable Object). */
  storage?: StoragePlatform;
}
