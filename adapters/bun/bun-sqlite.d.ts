// The slice of bun:sqlite used by adapters/bun/sqlite.ts (the repo type-checks with Node's types).
declare module 'bun:sqlite' {
  type Binding = null | number | bigint | string | Uint8Array;
  export interface Statement {
    all(...params: Binding[]): Record<string, unknown>[];
    get(...params: Binding[]): Record<string, unknown> | null;
    run(...params: Binding[]): unknown;
  }
  export class Database {
    constructor(filename?: string, options?: { create?: boolean; readonly?: boolean; strict?: boolean });
    query(sql: string): Statement;
    exec(sql: string): unknown;
    transaction<A extends unknown[], T>(fn: (...args: A) => T): (...args: A) => T;
    close(throwOnError?: boolean): void;
  }
}
