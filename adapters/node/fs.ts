// The FileSystem the Node adapter hands to the portable options: real files, fs.watch on the
// parent directory (survives atomic rename and the symlink swap of Secret/ConfigMap volumes),
// atomic writes for generated certificates.

import { mkdir, readFile, readdir, rename, rm, writeFile, chmod } from 'node:fs/promises';
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { FileSystem } from '../../src/util/filesystem.ts';
import { goPathError } from '../../src/util/go.ts';

export class NodeFileSystem implements FileSystem {
  async readFile(path: string): Promise<Uint8Array> {
    try {
      return new Uint8Array(await readFile(path));
    } catch (err) {
      throw goPathError((err as NodeJS.ErrnoException).code === 'EISDIR' ? 'read' : 'open', path, err);
    }
  }

  async readDir(path: string): Promise<string[] | undefined> {
    try {
      return (await readdir(path, { withFileTypes: true }))
        .filter((d) => d.isFile() || d.isSymbolicLink())
        .map((d) => d.name)
        .sort();
    } catch {
      return undefined;
    }
  }

  watch(path: string, onChange: () => void): () => void {
    const dir = dirname(path);
    const name = basename(path);
    let w: FSWatcher | undefined;
    try {
      w = watch(dir, { persistent: false }, (_event, file) => {
        // Kubernetes volumes swap a `..data` symlink; any change in the directory may matter.
        if (!file || file === name || file.startsWith('..')) onChange();
      });
      w.on('error', () => w?.close());
    } catch {
      // The directory may not exist yet: polling covers it.
    }
    return () => w?.close();
  }

  async writeFile(path: string, data: Uint8Array, mode: number): Promise<void> {
    const tmp = `${dirname(path)}/.${basename(path)}.${process.pid}.${Date.now()}.tmp`;
    try {
      await writeFile(tmp, data, { mode, flag: 'wx' });
      await chmod(tmp, mode);
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => {});
      throw goPathError('open', path, err);
    }
  }

  async mkdirAll(path: string, mode: number): Promise<void> {
    try {
      await mkdir(path, { recursive: true, mode });
    } catch (err) {
      throw goPathError('mkdir', path, err);
    }
  }

  async remove(path: string): Promise<void> {
    await rm(path, { force: true });
  }
}
