// What every edge/serverless adapter shares: settings from env vars/bindings (the same
// kube-apiserver flag strings as the CLI, files as bundled text), a server built once per
// isolate, and a run without a listener (so post-start hooks run and MuxAndDiscoveryComplete
// fires, as RunWithContext does on Node). Adapters only add the platform's Request/Transport.

import type { Transport } from '../endpoints/request/context.ts';
import { errorMessage, httpError } from '../endpoints/responsewriters/status.ts';
import type { Logger } from '../util/logger.ts';
import { KlogLogger } from '../util/logger.ts';
import { buildServerFromFlags, type BuiltServer } from './build.ts';
import type { Config } from '../server/config.ts';
import { splitArgs } from '../server/options/args.ts';
import { MemoryFileSystem, type FileSystem } from '../util/filesystem.ts';
import type { ServingListener } from '../server/genericapiserver.ts';
import type { StoragePlatform } from '../storage/storagebackend/open.ts';
import type { Platform } from '../server/platform.ts';
import { decodeBase64 } from '../util/base64.ts';

/**
 * How an adapter (or an embedder) describes the server it wants: flags, bundled files, and the
 * platform's services (src/server/platform.ts; Deno and Bun pass the Node-compatible ones).
 */
export interface EdgeSettings extends Partial<Platform> {
  /** kube-apiserver flags: one string (shell-quoted, see splitArgs) or argv. */
  flags?: string | readonly string[];
  /** Files the flags name (token files, RBAC manifests, policies …): path → content. */
  files?: Record<string, string | Uint8Array>;
  /** Read when a path is not in `files` (Deno, Bun and Lambda can read real files). */
  fileSystem?: FileSystem;
  /** Applied to the Config after the flags (extra routes, authenticators, …). */
  configure?: (config: Config) => void | Promise<void>;
  logger?: Logger;
  /** Server name (default "kube-apiserver"). */
  name?: string;
  /**
   * This process terminates TLS itself (Deno, Bun with certificates): the serving options load the
   * certificates and the secure defaults of the Node CLI apply (e.g. RBAC authorization).
   */
  servesTLS?: boolean;
  /**
   * The platform's storage engines: `openSQLite` (Bun, Deno), `openKV` (a Durable Object), a TLS
   * `etcdFetch`. Without a SQLite binding the default backend is memory; `--etcd-servers` works anywhere.
   */
  storage?: StoragePlatform;
}

/** Env var / binding names read by settingsFromEnv. */
export const FLAGS_VAR = 'APISERVER_FLAGS';
/** Every var whose name starts with this holds files as JSON `{"<path>": "<content>"}`. */
export const FILES_VAR_PREFIX = 'APISERVER_FILES';
/** Names a trusted header carrying the client certificate in RFC 9440 form (e.g. `Client-Cert`). */
export const CLIENT_CERT_HEADER_VAR = 'APISERVER_CLIENT_CERT_HEADER';
/** klog verbosity (`-v`) of the adapter's logger. */
export const VERBOSITY_VAR = 'APISERVER_V';

/**
 * Reads settings from an env object (Worker bindings, Deno.env.toObject(), process.env):
 * `APISERVER_FLAGS` (flag string or JSON array), every `APISERVER_FILES*` var (a JSON object
 * or an object binding; later names win), `APISERVER_V`. Secrets are just more vars:
 * e.g. `wrangler secret put APISERVER_FILES_SECRET` with the token file inside.
 */
export function settingsFromEnv(env: Record<string, unknown> | undefined): EdgeSettings {
  const e = env ?? {};
  const flags = e[FLAGS_VAR];
  const files: Record<string, string | Uint8Array> = {};
  for (const name of Object.keys(e)
    .filter((k) => k.startsWith(FILES_VAR_PREFIX))
    .sort()) {
    Object.assign(files, parseFilesVar(name, e[name]));
  }
  const settings: EdgeSettings = {
    flags: typeof flags === 'string' || Array.isArray(flags) ? (flags as string | string[]) : undefined,
    files,
  };
  const v = e[VERBOSITY_VAR];
  if (v !== undefined && v !== '') settings.logger = new KlogLogger(Number(v) || 0);
  return settings;
}

function parseFilesVar(name: string, value: unknown): Record<string, string | Uint8Array> {
  let obj = value;
  if (typeof value === 'string') {
    try {
      obj = JSON.parse(value);
    } catch (err) {
      throw new Error(`${name}: not a JSON object of path → content: ${errorMessage(err)}`);
    }
  }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj))
    throw new Error(`${name}: not a JSON object of path → content`);
  const out: Record<string, string | Uint8Array> = {};
  for (const [path, content] of Object.entries(obj as Record<string, unknown>)) {
    if (typeof content === 'string') out[path] = content;
    else if (content && typeof content === 'object' && typeof (content as { base64?: unknown }).base64 === 'string') {
      out[path] = decodeBase64((content as { base64: string }).base64);
    } else throw new Error(`${name}: ${JSON.stringify(path)} must be a string or {"base64": "…"}`);
  }
  return out;
}

/**
 * Settings given in code (bundled files, configure) combined with settings from the env:
 * env flags come after the code's (so they win for single-valued flags), env files win by path.
 */
export function mergeSettings(own: EdgeSettings, fromEnv: EdgeSettings): EdgeSettings {
  return {
    ...own,
    logger: own.logger ?? fromEnv.logger,
    fileSystem: own.fileSystem ?? fromEnv.fileSystem,
    files: { ...own.files, ...fromEnv.files },
    flags: [...splitArgs(own.flags), ...splitArgs(fromEnv.flags)],
  };
}

/** In-memory files first, then `fallback` (a real file system where the platform has one). */
export class LayeredFileSystem implements FileSystem {
  private readonly memory: MemoryFileSystem;
  private readonly paths: Set<string>;
  private readonly fallback?: FileSystem;
  constructor(files: Record<string, string | Uint8Array>, fallback?: FileSystem) {
    this.memory = new MemoryFileSystem(files);
    this.paths = new Set(Object.keys(files));
    this.fallback = fallback;
  }
  readFile(path: string): Promise<Uint8Array> {
    if (this.paths.has(path) || !this.fallback) return this.memory.readFile(path);
    return this.fallback.readFile(path);
  }
  async readDir(path: string): Promise<string[] | undefined> {
    const own = await this.memory.readDir(path);
    const other = this.fallback?.readDir ? await this.fallback.readDir(path) : undefined;
    if (!own) return other;
    if (!other) return own;
    return [...new Set([...own, ...other])].sort();
  }
  watch(path: string, onChange: () => void): () => void {
    if (this.paths.has(path) || !this.fallback?.watch) return () => {};
    return this.fallback.watch(path, onChange);
  }
  /** Writes go to the fallback (Deno, Bun: generated certificates, the admin kubeconfig). */
  get writeFile(): FileSystem['writeFile'] {
    const fb = this.fallback;
    return fb?.writeFile ? (path, data, mode) => fb.writeFile!(path, data, mode) : undefined;
  }
  get mkdirAll(): FileSystem['mkdirAll'] {
    const fb = this.fallback;
    return fb?.mkdirAll ? (path, mode) => fb.mkdirAll!(path, mode) : undefined;
  }
  get remove(): FileSystem['remove'] {
    const fb = this.fallback;
    return fb?.remove ? (path) => fb.remove!(path) : undefined;
  }
}

/** The file system the options read: `files` over the platform's own, if any. */
export function edgeFileSystem(settings: EdgeSettings): FileSystem {
  return new LayeredFileSystem(settings.files ?? {}, settings.fileSystem);
}

/** Builds the server from settings (flags → options → config → server) and prepares it. */
export function buildEdgeServer(settings: EdgeSettings): Promise<BuiltServer> {
  return buildServerFromFlags(splitArgs(settings.flags), {
    fileSystem: edgeFileSystem(settings),
    logger: settings.logger,
    configure: settings.configure,
    name: settings.name,
    servesTLS: settings.servesTLS,
    hostIP: settings.hostIP,
    chooseHostInterface: settings.chooseHostInterface,
    openAuditLog: settings.openAuditLog,
    webhookFetch: settings.webhookFetch,
    storage: settings.storage,
  });
}

/** Whether argv names a serving certificate (`--tls-cert-file`): the process will terminate TLS. */
export function namesServingCert(args: readonly string[]): boolean {
  return args.some(
    (a) => a === '--tls-cert-file' || (a.startsWith('--tls-cert-file=') && a.length > '--tls-cert-file='.length),
  );
}

/** Where a runtime with its own listener (Deno, Bun) serves: from the kube-apiserver flags. */
export interface ListenSettings {
  /** `--secure-port` (default 6443). */
  port: number;
  /** `--bind-address` (default 0.0.0.0). */
  hostname: string;
  /** PEM from `--tls-cert-file` / `--tls-private-key-file`, when both are given. */
  cert?: string;
  key?: string;
}

/**
 * The serving flags as a listener outside Node uses them: port, address and the certificate
 * files (read through the same file system as every other option). Certificate generation,
 * SNI and reload stay with the Node listener (docs/edge.md "Differences from the Node listener").
 */
export async function listenSettings(built: BuiltServer, fileSystem: FileSystem): Promise<ListenSettings> {
  const ss = built.config.secureServing;
  const out: ListenSettings = { port: ss?.bindPort ?? 6443, hostname: ss?.bindAddress || '0.0.0.0' };
  const loaded = ss?.cert?.currentCertKeyContent();
  if (loaded) return { ...out, cert: loaded.cert, key: loaded.key };
  // Not loaded (the platform does not serve TLS itself): the files the serving options parsed.
  const certFile = built.options.secureServing?.certFile ?? '';
  const keyFile = built.options.secureServing?.keyFile ?? '';
  if (certFile && keyFile) {
    const dec = new TextDecoder();
    out.cert = dec.decode(await fileSystem.readFile(certFile));
    out.key = dec.decode(await fileSystem.readFile(keyFile));
  }
  return out;
}

/**
 * Starts a built server without a listener: runs post-start hooks and waits (one macrotask at
 * most) for MuxAndDiscoveryComplete, so unknown paths answer 404 rather than 503. Returns a
 * function that starts the graceful shutdown sequence and resolves when it is done.
 */
export async function startWithoutListener(built: BuiltServer): Promise<() => Promise<void>> {
  const stop = new AbortController();
  const logger = built.config.logger;
  const done = built.server.run({ signal: stop.signal }).catch((err) => {
    logger.error('server run failed', { err: errorMessage(err) });
  });
  const complete = built.config.lifecycleSignals.MuxAndDiscoveryComplete;
  await Promise.race([complete.signaled, new Promise((r) => setTimeout(r, 0))]);
  return async () => {
    stop.abort();
    await done;
  };
}

/**
 * One server per isolate/process, built on first use. `fetch` is what adapters call; a server
 * that failed to build answers every request with a 500 (the error is logged once) instead of
 * retrying a configuration that cannot get better.
 */
export class EdgeServer {
  private readonly source: EdgeSettings | (() => EdgeSettings | Promise<EdgeSettings>);
  private starting?: Promise<BuiltServer>;
  private stopFn?: () => Promise<void>;
  private built?: BuiltServer;
  private failed?: unknown;

  constructor(settings: EdgeSettings | (() => EdgeSettings | Promise<EdgeSettings>)) {
    this.source = settings;
  }

  /** Builds and starts the server once; later calls return the same one. Rejects on bad flags. */
  ready(): Promise<BuiltServer> {
    this.starting ??= (async () => {
      const settings = typeof this.source === 'function' ? await this.source() : this.source;
      const built = await buildEdgeServer(settings);
      this.stopFn = await startWithoutListener(built);
      this.built = built;
      return built;
    })();
    return this.starting;
  }

  /** Serves one request through the chain. */
  async fetch(request: Request, transport?: Transport): Promise<Response> {
    let built = this.built;
    if (!built) {
      if (this.failed !== undefined) return startFailed();
      try {
        built = await this.ready();
      } catch (err) {
        if (this.failed === undefined) {
          this.failed = err;
          new KlogLogger().error('edge-apiserver failed to start', { err: errorMessage(err) });
        }
        return startFailed();
      }
    }
    return built.server.fetch(request, transport);
  }

  /** Starts the graceful shutdown sequence (readyz fails, hooks, drain) and waits for it. */
  async stop(): Promise<void> {
    if (!this.starting) return;
    await this.starting.catch(() => undefined);
    await this.stopFn?.();
  }
}

function startFailed(): Response {
  return httpError('edge-apiserver failed to start; see the logs for details', 500);
}

/** Settings of a runtime that owns its listener (Deno, Bun): where to listen, and when to stop. */
export interface ProcessServeSettings extends EdgeSettings {
  /** Default `--secure-port` (6443); 0 picks a free port. */
  port?: number;
  /** Default `--bind-address` (0.0.0.0). */
  hostname?: string;
  /** PEM chain and key; default: the `--tls-cert-file`/`--tls-private-key-file` files. */
  cert?: string;
  key?: string;
  /** Aborting starts the server's shutdown sequence (as SIGTERM does for the Node CLI). */
  signal?: AbortSignal;
}

/**
 * Builds the server for a runtime with its own listener and resolves where it listens (explicit
 * settings win over the serving flags). With certificates this process terminates TLS, as the
 * Node CLI does, so it gets the same secure defaults.
 */
export async function buildProcessServer(
  settings: ProcessServeSettings,
  platform: Platform,
): Promise<{ built: BuiltServer; listen: ListenSettings }> {
  const servesTLS =
    settings.servesTLS ?? (Boolean(settings.cert && settings.key) || namesServingCert(splitArgs(settings.flags)));
  // The settings win over the platform's services, one by one (an embedder's own file system, storage …).
  const withPlatform: EdgeSettings = {
    ...settings,
    servesTLS,
    fileSystem: settings.fileSystem ?? platform.fileSystem,
    hostIP: settings.hostIP ?? platform.hostIP,
    chooseHostInterface: settings.chooseHostInterface ?? platform.chooseHostInterface,
    openAuditLog: settings.openAuditLog ?? platform.openAuditLog,
    webhookFetch: settings.webhookFetch ?? platform.webhookFetch,
    storage: settings.storage ?? platform.storage,
  };
  const built = await buildEdgeServer(withPlatform);
  const listen = await listenSettings(built, edgeFileSystem(withPlatform));
  return {
    built,
    listen: {
      port: settings.port ?? listen.port,
      hostname: settings.hostname ?? listen.hostname,
      cert: settings.cert ?? listen.cert,
      key: settings.key ?? listen.key,
    },
  };
}

/**
 * Runs the server on `listener` until `signal` aborts. Resolves once the listener serves;
 * rejects if the run ended first (the address was in use …).
 */
export async function runUntilListening(
  built: BuiltServer,
  listener: ServingListener,
  signal?: AbortSignal,
): Promise<{ finished: Promise<void>; shutdown: () => Promise<void> }> {
  const stop = new AbortController();
  signal?.addEventListener('abort', () => stop.abort(), { once: true });
  let listening!: () => void;
  const started = new Promise<void>((r) => (listening = r));
  const finished = built.server.run({
    signal: stop.signal,
    listener: {
      serve: (handler) => listener.serve(handler).then(listening),
      shutdown: (ms) => listener.shutdown(ms),
      stoppedListening: listener.stoppedListening,
    },
  });
  await Promise.race([started, finished.then(() => Promise.reject(new Error('the server stopped before listening')))]);
  return {
    finished,
    shutdown: async () => {
      stop.abort();
      await finished;
    },
  };
}
