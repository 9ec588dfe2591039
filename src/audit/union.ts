// audit.Union (pkg/audit/union.go) and the `blocking` mode wrapper (ignoreErrorsBackend in
// pkg/server/options/audit.go): blocking waits for the delegate but never fails the request.

import type { AuditBackend, AuditEvent } from './types.ts';

export class UnionBackend implements AuditBackend {
  readonly backends: AuditBackend[];
  readonly neverFails: boolean;
  constructor(backends: AuditBackend[]) {
    this.backends = backends;
    this.neverFails = backends.every((b) => b.neverFails);
  }
  processEvents(events: AuditEvent[]): boolean | Promise<boolean> {
    let success = true;
    let pending: Promise<boolean>[] | undefined;
    for (const b of this.backends) {
      const r = b.processEvents(events);
      if (typeof r === 'boolean') success = r && success;
      else (pending ??= []).push(r);
    }
    if (!pending) return success;
    return Promise.all(pending).then((rs) => rs.every(Boolean) && success);
  }
  async run(stop: Promise<void>): Promise<void> {
    const results = await Promise.allSettled(this.backends.map(async (b) => b.run(stop)));
    const errors = results.flatMap((r) =>
      r.status === 'rejected' ? [r.reason instanceof Error ? r.reason.message : String(r.reason)] : [],
    );
    if (errors.length) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  }
  async shutdown(): Promise<void> {
    for (const b of this.backends) await b.shutdown();
  }
  async flush(): Promise<void> {
    await Promise.all(this.backends.map((b) => b.flush?.()));
  }
  toString(): string {
    return `union[${this.backends.map(String).join(',')}]`;
  }
}

/** audit.Union: one backend as is, several combined. */
export function unionBackends(...backends: (AuditBackend | undefined)[]): AuditBackend | undefined {
  const list = backends.filter((b): b is AuditBackend => !!b);
  if (list.length <= 1) return list[0];
  return new UnionBackend(list);
}

/** A backend wrapping another: run, shutdown and flush go to the delegate. */
export abstract class DelegatingBackend implements AuditBackend {
  protected readonly delegate: AuditBackend;
  constructor(delegate: AuditBackend) {
    this.delegate = delegate;
  }
  abstract processEvents(events: AuditEvent[]): boolean | Promise<boolean>;
  run(stop: Promise<void>): void | Promise<void> {
    return this.delegate.run(stop);
  }
  shutdown(): Promise<void> {
    return this.delegate.shutdown();
  }
  async flush(): Promise<void> {
    await this.delegate.flush?.();
  }
}

/** Blocking mode: waits for the delegate, reports success whatever happened (errors are logged and counted by the delegate). */
export class IgnoreErrorsBackend extends DelegatingBackend {
  readonly neverFails = true;
  processEvents(events: AuditEvent[]): boolean | Promise<boolean> {
    const r = this.delegate.processEvents(events);
    return typeof r === 'boolean'
      ? true
      : r.then(
          () => true,
          () => true,
        );
  }
  override toString(): string {
    return `ignoreErrors<${this.delegate}>`;
  }
}
