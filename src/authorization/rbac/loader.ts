// Loads RBAC manifests (files or folders of *.yaml, *.yml, *.json) into an RBACAuthorizer and
// reloads them on change. A manifest with errors is rejected with file and line, and the last
// good policy stays in force.

import type { FileSystem } from '../../server/options/filesystem.ts';
import type { Logger } from '../../util/logger.ts';
import type { RBACAuthorizer } from './authorizer.ts';
import { ManifestError, parseManifests, type RBACObject } from './policy.ts';

const manifestExt = /\.(ya?ml|json)$/i;

/** Reads every manifest under `paths` (a folder contributes its *.yaml/*.yml/*.json files, sorted). */
export async function readManifests(fs: FileSystem, paths: readonly string[]): Promise<RBACObject[]> {
  const objects: RBACObject[] = [];
  const problems: string[] = [];
  for (const path of paths) {
    const entries = fs.readDir ? await fs.readDir(path).catch(() => undefined) : undefined;
    const files = entries ? entries.filter((n) => manifestExt.test(n)).sort().map((n) => `${path.replace(/\/+$/, '')}/${n}`) : [path];
    for (const file of files) {
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(await fs.readFile(file));
      } catch (err) {
        problems.push(err instanceof TypeError ? `${file}: not valid UTF-8` : err instanceof Error ? err.message : String(err));
        continue;
      }
      try {
        objects.push(...parseManifests(text, file));
      } catch (err) {
        problems.push(err instanceof Error ? err.message : String(err));
      }
    }
  }
  if (problems.length) throw new ManifestError(problems.join('\n'));
  return objects;
}

export interface ManifestLoaderOptions {
  fileSystem: FileSystem;
  paths: readonly string[];
  authorizer: RBACAuthorizer;
  logger: Logger;
  /** Wait this long after a change event before reloading (editors write in bursts). */
  debounceMs?: number;
}

/** Keeps an RBACAuthorizer in sync with its manifests. */
export class ManifestLoader {
  private readonly o: ManifestLoaderOptions;
  private stops: (() => void)[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private loading: Promise<void> | undefined;
  /** The last reload error, or undefined when the policy in force matches the files. */
  lastError: Error | undefined;
  /** Increments on every successful load (tests wait on it). */
  generation = 0;

  constructor(options: ManifestLoaderOptions) {
    this.o = options;
  }

  /** Loads once; throws on errors (start-up must fail on a bad policy). */
  async load(): Promise<void> {
    const objects = await readManifests(this.o.fileSystem, this.o.paths);
    this.o.authorizer.setObjects(objects);
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

  /** Watches the paths (when the file system can); returns a function that stops watching. */
  watch(): () => void {
    const fs = this.o.fileSystem;
    if (!fs.watch) return () => {};
    const onChange = () => {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.loading = (this.loading ?? Promise.resolve()).then(() => this.reload());
      }, this.o.debounceMs ?? 100);
    };
    for (const p of this.o.paths) this.stops.push(fs.watch(p, onChange));
    return () => this.stop();
  }

  stop(): void {
    for (const s of this.stops) s();
    this.stops = [];
    if (this.timer) clearTimeout(this.timer);
  }
}
