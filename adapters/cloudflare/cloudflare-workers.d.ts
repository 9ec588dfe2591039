// The slice of workerd's `cloudflare:workers` module used by adapters/cloudflare/store.ts (the repo
// type-checks with Node's types, not @cloudflare/workers-types).
declare module 'cloudflare:workers' {
  export type SqlStorageValue = ArrayBuffer | string | number | null;
  export interface SqlStorageCursor<T = Record<string, SqlStorageValue>> extends Iterable<T> {
    toArray(): T[];
    one(): T;
    readonly rowsRead: number;
    readonly rowsWritten: number;
  }
  export interface SqlStorage {
    exec<T = Record<string, SqlStorageValue>>(query: string, ...bindings: unknown[]): SqlStorageCursor<T>;
    readonly databaseSize: number;
  }
  export interface DurableObjectStorage {
    readonly sql: SqlStorage;
    transactionSync<T>(fn: () => T): T;
  }
  export interface DurableObjectState {
    readonly storage: DurableObjectStorage;
    blockConcurrencyWhile<T>(fn: () => Promise<T>): Promise<T>;
    waitUntil(p: Promise<unknown>): void;
  }
  export abstract class DurableObject<Env = unknown> {
    protected ctx: DurableObjectState;
    protected env: Env;
    constructor(ctx: DurableObjectState, env: Env);
  }
  export abstract class RpcTarget {
    constructor();
  }
}
