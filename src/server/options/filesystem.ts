// Moved to src/util/filesystem.ts (audit, RBAC and flow control read files too). This re-export
// keeps branches written against the old path building; import from util/ in new code.

/** @deprecated Import from src/util/filesystem.ts. */
export { MemoryFileSystem, readTextFile, type FileSystem } from '../../util/filesystem.ts';
