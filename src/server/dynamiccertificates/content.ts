// Certificate content providers (k8s.io/apiserver/pkg/server/dynamiccertificates): static ones
// (generated, loopback) and file-backed ones that reload on change. A reload that fails (a
// half-written pair, a key that does not match yet) keeps the previous content. Portable:
// files come through FileSystem; change detection is FileSystem.watch plus polling.

import type { FileSystem } from '../../util/filesystem.ts';
import type { Logger } from '../../util/logger.ts';
import { errorMessage } from '../../endpoints/responsewriters/status.ts';
import { parseCertKeyPair, parseCertsPEM, type CertKeyPair } from './keypair.ts';

export interface CertKeyContent {
  /** PEM chain, leaf first. */
  cert: string;
  /** PEM private key. */
  key: string;
  /** The parsed pair (leaf, DER chain). */
  parsed: CertKeyPair;
}

/** CertKeyContentProvider: the current serving pair and change notifications. */
export interface CertKeyContentProvider {
  name(): string;
  currentCertKeyContent(): CertKeyContent;
  addListener(listener: () => void): void;
  /** Starts watching for changes until `signal` aborts (file-backed providers). */
  run?(signal: AbortSignal): void;
}

/** SNICertKeyContentProvider: a pair plus the names it serves (empty: extract from the cert). */
export interface SNICertKeyContentProvider extends CertKeyContentProvider {
  sniNames(): string[];
}

/** CAContentProvider: a PEM CA bundle (client CA) and change notifications. */
export interface CAContentProvider {
  name(): string;
  currentCABundleContent(): string;
  addListener(listener: () => void): void;
  run?(signal: AbortSignal): void;
}

/** Options for reloading file-backed content. */
export interface ReloadOptions {
  logger?: Logger;
  /** Re-read period besides watch events (fs.watch can miss events); 0 disables. Default 10 s. */
  pollInterval?: number;
}

const decoder = new TextDecoder();

/** A pair that never changes (generated in memory, loopback). */
export class StaticCertKeyContent implements SNICertKeyContentProvider {
  private readonly n: string;
  private readonly content: CertKeyContent;
  private readonly names: string[];
  private constructor(name: string, content: CertKeyContent, names: string[]) {
    this.n = name;
    this.content = content;
    this.names = names;
  }
  static async create(name: string, cert: string, key: string, names: string[] = []): Promise<StaticCertKeyContent> {
    return new StaticCertKeyContent(name, { cert, key, parsed: await parseCertKeyPair(cert, key) }, names);
  }
  name(): string {
    return this.n;
  }
  currentCertKeyContent(): CertKeyContent {
    return this.content;
  }
  sniNames(): string[] {
    return this.names;
  }
  addListener(): void {}
}

/** Shared reload loop: watch both files, poll, reload on change, notify listeners. */
abstract class FileBacked<T> {
  protected readonly fs: FileSystem;
  protected readonly logger?: Logger;
  protected readonly files: string[];
  protected current!: T;
  private readonly listeners: (() => void)[] = [];
  private readonly pollInterval: number;
  private running = false;
  private pending: ReturnType<typeof setTimeout> | undefined;

  constructor(fs: FileSystem, files: string[], opts: ReloadOptions) {
    this.fs = fs;
    this.files = files;
    this.logger = opts.logger;
    this.pollInterval = opts.pollInterval ?? 10_000;
  }

  abstract name(): string;
  /** Upstream's log line after a successful load. */
  protected abstract readonly loadedMessage: string;
  /** Reads and validates; throws on any problem. Returns undefined when unchanged. */
  protected abstract load(): Promise<T | undefined>;

  addListener(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** One load attempt; keeps the old content on failure. Resolves true when content changed. */
  async reload(): Promise<boolean> {
    let next: T | undefined;
    try {
      next = await this.load();
    } catch (err) {
      // Upstream's controllers log the error and retry; the previous content stays in use.
      this.logger?.error('Failed to load, keeping the previous content', { name: this.name(), err: errorMessage(err) });
      return false;
    }
    if (next === undefined) return false;
    this.current = next;
    this.logger?.info(this.loadedMessage, { name: this.name() });
    for (const l of this.listeners) l();
    return true;
  }

  run(signal: AbortSignal): void {
    if (this.running || signal.aborted) return;
    this.running = true;
    const stops: (() => void)[] = [];
    const schedule = () => {
      // Coalesce bursts of events (one write can fire several).
      if (this.pending || signal.aborted) return;
      this.pending = setTimeout(() => {
        this.pending = undefined;
        void this.reload();
      }, 50);
    };
    for (const f of this.files) {
      try {
        if (this.fs.watch) stops.push(this.fs.watch(f, schedule));
      } catch (err) {
        this.logger?.warning('Failed to watch file, relying on polling', { file: f, err: errorMessage(err) });
      }
    }
    if (this.pollInterval > 0) {
      const t = setInterval(schedule, this.pollInterval);
      (t as { unref?: () => void }).unref?.();
      stops.push(() => clearInterval(t));
    }
    signal.addEventListener(
      'abort',
      () => {
        for (const s of stops) s();
        if (this.pending) clearTimeout(this.pending);
        this.running = false;
      },
      { once: true },
    );
  }
}

/**
 * DynamicCertKeyPairContent (NewDynamicServingContentFromFiles / NewDynamicSNIContentFromFiles):
 * `create()` loads once and fails like upstream's ApplyTo; `run()` reloads on change.
 */
export class DynamicCertKeyPairContent extends FileBacked<CertKeyContent> implements SNICertKeyContentProvider {
  protected readonly loadedMessage = 'Loaded a new cert/key pair';
  private readonly purpose: string;
  readonly certFile: string;
  readonly keyFile: string;
  private readonly names: string[];

  constructor(
    purpose: string,
    certFile: string,
    keyFile: string,
    fs: FileSystem,
    opts: ReloadOptions & { sniNames?: string[] } = {},
  ) {
    super(fs, [certFile, keyFile], opts);
    this.purpose = purpose;
    this.certFile = certFile;
    this.keyFile = keyFile;
    this.names = opts.sniNames ?? [];
  }

  static async create(
    purpose: string,
    certFile: string,
    keyFile: string,
    fs: FileSystem,
    opts: ReloadOptions & { sniNames?: string[] } = {},
  ): Promise<DynamicCertKeyPairContent> {
    if (!certFile || !keyFile)
      throw new Error(
        purpose === 'serving-cert' ? 'missing filename for serving cert' : `missing filename for ${purpose}`,
      );
    const c = new DynamicCertKeyPairContent(purpose, certFile, keyFile, fs, opts);
    const first = await c.load();
    c.current = first!;
    return c;
  }

  name(): string {
    return `${this.purpose}::${this.certFile}::${this.keyFile}`;
  }

  sniNames(): string[] {
    return this.names;
  }

  currentCertKeyContent(): CertKeyContent {
    return this.current;
  }

  protected async load(): Promise<CertKeyContent | undefined> {
    // Read at once, but the certificate's error reported first whichever fails sooner, as upstream reads
    // the certificate, then the key (dynamic_serving_content.go loadCertKeyPair).
    const [certRead, keyRead] = await Promise.allSettled([
      this.fs.readFile(this.certFile),
      this.fs.readFile(this.keyFile),
    ]);
    if (certRead.status === 'rejected') throw certRead.reason;
    if (keyRead.status === 'rejected') throw keyRead.reason;
    const [certBytes, keyBytes] = [certRead.value, keyRead.value];
    if (!certBytes.length || !keyBytes.length)
      throw new Error(`missing content for serving cert ${JSON.stringify(this.name())}`);
    const cert = decoder.decode(certBytes);
    const key = decoder.decode(keyBytes);
    if (this.current && this.current.cert === cert && this.current.key === key) return undefined;
    return { cert, key, parsed: await parseCertKeyPair(cert, key) };
  }
}

/** DynamicFileCAContent (NewDynamicCAContentFromFile): a CA bundle file, reloaded on change. */
export class DynamicFileCAContent extends FileBacked<string> implements CAContentProvider {
  protected readonly loadedMessage = 'Loaded a new CA Bundle and Verifier';
  private readonly purpose: string;
  readonly file: string;

  constructor(purpose: string, file: string, fs: FileSystem, opts: ReloadOptions = {}) {
    super(fs, [file], opts);
    this.purpose = purpose;
    this.file = file;
  }

  static async create(
    purpose: string,
    file: string,
    fs: FileSystem,
    opts: ReloadOptions = {},
  ): Promise<DynamicFileCAContent> {
    if (!file) throw new Error('missing filename for ca bundle');
    const c = new DynamicFileCAContent(purpose, file, fs, opts);
    c.current = (await c.load())!;
    return c;
  }

  name(): string {
    return `${this.purpose}::${this.file}`;
  }

  currentCABundleContent(): string {
    return this.current;
  }

  protected async load(): Promise<string | undefined> {
    const bytes = await this.fs.readFile(this.file);
    if (!bytes.length) throw new Error(`missing content for CA bundle ${JSON.stringify(this.name())}`);
    const pem = decoder.decode(bytes);
    if (this.current === pem) return undefined;
    parseCertsPEM(pem);
    return pem;
  }
}

/** NewUnionCAContentProvider: several CA bundles as one (client CA + front-proxy CA). */
export class UnionCAContent implements CAContentProvider {
  private readonly providers: CAContentProvider[];
  constructor(providers: CAContentProvider[]) {
    this.providers = providers;
  }
  name(): string {
    return this.providers.map((p) => p.name()).join(',');
  }
  currentCABundleContent(): string {
    return this.providers.map((p) => p.currentCABundleContent().trim()).join('\n') + '\n';
  }
  addListener(listener: () => void): void {
    for (const p of this.providers) p.addListener(listener);
  }
  run(signal: AbortSignal): void {
    for (const p of this.providers) p.run?.(signal);
  }
}

/** A fixed CA bundle (tests, embedders). */
export class StaticCAContent implements CAContentProvider {
  private readonly n: string;
  private readonly pem: string;
  constructor(name: string, pem: string) {
    parseCertsPEM(pem);
    this.n = name;
    this.pem = pem;
  }
  name(): string {
    return this.n;
  }
  currentCABundleContent(): string {
    return this.pem;
  }
  addListener(): void {}
}
