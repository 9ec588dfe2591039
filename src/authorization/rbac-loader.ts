// Loads RBAC manifests (files or folders of *.yaml, *.yml, *.json) into an RBACAuthorizer and
// reloads them on change. A manifest with errors is rejected with file and line, and the last
// good policy stays in force.

import type { FileSystem } from '../util/filesystem.ts';
import type { Logger } from '../util/logger.ts';
import type { RBACAuthorizer } from './rbac.ts';
import { ManifestError, parseManifests, type RBACObject } from './rbac-policy.ts';

const manifestExt = /\.(ya?ml|json)$/i;

/** The manifest files under `paths`: a folder contributes its *.yaml/*.yml/*.json files, sorted. */
export async function listManifestFiles(fs: FileSystem, paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const path of paths) {
    const entries = fs.readDir ? await fs.readDir(path).catch(() => undefined) : undefined;
    if (entries)
      out.push(
        ...entries
          .filter((n) => manifestExt.test(n))
          .sort()
          .map((n) => `${path.replace(/\/+$/, '')}/${n}`),
      );
    else out.push(path);
  }
  return out;
}

interface ManifestText {
  file: string;
  text: string;
}

async function readManifestTexts(
  fs: FileSystem,
  paths: readonly string[],
): Promise<{ texts: ManifestText[]; problems: string[] }> {
  const texts: ManifestText[] = [];
  const problems: string[] = [];
  for (const file of await listManifestFiles(fs, paths)) {
    try {
      texts.push({ file, text: new TextDecoder('utf-8', { fatal: true }).decode(await fs.readFile(file)) });
    } catch (err) {
      problems.push(
        err instanceof TypeError ? `${file}: not valid UTF-8` : err instanceof Error ? err.message : String(err),
      );
    }
  }
  return { texts, problems };
}

function parseTexts(texts: readonly ManifestText[], problems: string[]): RBACObject[] {
  const objects: RBACObject[] = [];
  for (const { file, text } of texts) {
    try {
      objects.push(...parseManifests(text, file));
    } catch (err) {
      problems.push(err instanceof Error ? err.message : String(err));
    }
  }
  if (problems.length) throw new ManifestError(problems.join('\n'));
  return objects;
}

const signature = (texts: readonly ManifestText[]) => texts.map((t) => `${t.file}\0${t.text}`).join('\0\0');

/** Reads and parses every manifest under `paths`; throws ManifestError listing every problem. */
export async function readManifests(fs: FileSystem, paths: readonly string[]): Promise<RBACObject[]> {
  const { texts, problems } = await readManifestTexts(fs, paths);
  return parseTexts(texts, problems);
}

export interface ManifestLoaderOptions {
  fileSystem: FileSystem;
  paths: readonly string[];
  authorizer: RBACAuthorizer;
  logger: Logger;
  /** Where loaded objects go instead of the authorizer (the objects in storage); may be set later. */
  sink?: (objects: RBACObject[]) => Promise<void>;
  /** Wait this long after a change event before reloading (editors write in bursts). */
  debounceMs?: number;
  /** Also compare the files' content this often (catches new files in folders and file systems that cannot watch); 0: off. Default 10 s. */
  pollMs?: number;
}

/** Keeps an RBACAuthorizer in sync with its manifests. */
export class ManifestLoader {
  private readonly o: ManifestLoaderOptions;
  private stops: (() => void)[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private poll: ReturnType<typeof setInterval> | undefined;
  private loadedSignature: string | undefined;
  private stopped = false;
  private loading: Promise<void> | undefined;
  /** The last reload error, or undefined when the policy in force matches the files. */
  lastError: Error | undefined;
  /** Increments on every successful load (tests wait on it). */
  generation = 0;
  /** The objects of the last good load. */
  objects: RBACObject[] = [];

  /** Sends loaded objects to `sink` from now on (instead of the authorizer). */
  setSink(sink: (objects: RBACObject[]) => Promise<void>): void {
    this.o.sink = sink;
  }

  constructor(options: ManifestLoaderOptions) {
    this.o = options;
  }

  /** Loads once; throws on errors (start-up must fail on a bad policy). */
  async load(): Promise<void> {
    const { texts, problems } = await readManifestTexts(this.o.fileSystem, this.o.paths);
    const sig = signature(texts);
    this.loadedSignature = sig;
    const objects = parseTexts(texts, problems);
    if (this.o.sink) await this.o.sink(objects);
    else this.o.authorizer.setObjects(objects);
    this.objects = objects;
    this.lastError = undefined;
    this.generation++;
  }

  /** Reloads; on error logs it and keeps the last good policy. */
  async reload(): Promise<void> {
    try {
      await this.load();
      this.o.logger.info('Loaded RBAC manifests', { paths: this.o.paths.join(','), generation: this.generation }, 2);
    } catch (err) {
      this.lastError = err instanceof Error ? err : new Error(String(err));
      this.o.logger.error('Rejected RBAC manifests, keeping the last good policy', { err: this.lastError.message });
    }
  }

  /** Watches the manifest files (when the file system can) and polls their content; returns a stop function. */
  watch(): () => void {
    const fs = this.o.fileSystem;
    this.stopped = false;
    const schedule = () => {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.loading = (this.loading ?? Promise.resolve()).then(() => this.reload());
      }, this.o.debounceMs ?? 100);
    };
    if (fs.watch) {
      // The given paths at once; the files inside folders as soon as they are listed.
      for (const p of this.o.paths) this.stops.push(fs.watch(p, schedule));
      void listManifestFiles(fs, this.o.paths).then(
        (files) => {
          if (this.stopped) return;
          for (const f of files) if (!this.o.paths.includes(f)) this.stops.push(fs.watch!(f, schedule));
        },
        () => {},
      );
    }
    const pollMs = this.o.pollMs ?? 10_000;
    if (pollMs > 0) {
      this.poll = setInterval(() => {
        void readManifestTexts(fs, this.o.paths).then(({ texts }) => {
          if (signature(texts) !== this.loadedSignature) schedule();
        });
      }, pollMs);
      (this.poll as { unref?: () => void }).unref?.();
    }
    return () => this.stop();
  }

  stop(): void {
    this.stopped = true;
    for (const s of this.stops) s();
    this.stops = [];
    if (this.timer) clearTimeout(this.timer);
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
  }
}
