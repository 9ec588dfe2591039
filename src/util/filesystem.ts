// File access for options (token files, certificates, manifests) without node:fs in src/.
// The Node adapter supplies a real file system; edge adapters supply bundled files.

export interface FileSystem {
  /** Reads a whole file; rejects with an Error whose message names the path. */
  readFile(path: string): Promise<Uint8Array>;
  /** Files directly inside a directory (names only), or undefined when `path` is not a directory. */
  readDir?(path: string): Promise<string[] | undefined>;
  /** Calls `onChange` when the file may have changed; returns a function that stops watching. */
  watch?(path: string, onChange: () => void): () => void;
  /** Writes a whole file atomically with this mode (generated certificates); absent when read-only. */
  writeFile?(path: string, data: Uint8Array, mode: number): Promise<void>;
  /** Creates a directory and its parents (mode for new ones). */
  mkdirAll?(path: string, mode: number): Promise<void>;
  /** Removes a file; resolves when it does not exist. */
  remove?(path: string): Promise<void>;
}

/** A read-only in-memory file system (edge runtimes, tests). */
export class MemoryFileSystem implements FileSystem {
  private readonly files: Map<string, Uint8Array>;
  constructor(files: Record<string, string | Uint8Array> = {}) {
    this.files = new Map(
      Object.entries(files).map(([k, v]) => [k, typeof v === 'string' ? new TextEncoder().encode(v) : v]),
    );
  }
  async readFile(path: string): Promise<Uint8Array> {
    const data = this.files.get(path);
    if (!data) throw new Error(`open ${path}: no such file or directory`);
    return data;
  }
  async readDir(path: string): Promise<string[] | undefined> {
    const prefix = path.endsWith('/') ? path : path + '/';
    const names = [...this.files.keys()]
      .filter((k) => k.startsWith(prefix))
      .map((k) => k.slice(prefix.length))
      .filter((k) => !k.includes('/'));
    return names.length ? names.sort() : undefined;
  }
}

export async function readTextFile(fs: FileSystem, path: string): Promise<string> {
  return new TextDecoder().decode(await fs.readFile(path));
}
