// The revision log over SQL (one engine for node:sqlite, bun:sqlite, Deno and Durable Objects).
export type { SQLDriver, SQLRow, SQLValue } from './driver.ts';
export { bytesOf, numberOf } from './driver.ts';
export {
  DEFAULT_COMPACT_MIN_RETAIN,
  RevisionLog,
  ValueTooLargeError,
  newRevisionLog,
  type RevisionLogOptions,
} from './revision-log.ts';
