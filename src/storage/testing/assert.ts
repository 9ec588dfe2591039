// A tiny assertion helper for the runtime-agnostic conformance cases: no node:assert, so the same
// modules run under Node, Bun, Deno and inside a Durable Object.

export class AssertionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AssertionError';
  }
}

function show(v: unknown): string {
  if (v instanceof Uint8Array) return `Uint8Array(${new TextDecoder().decode(v)})`;
  try {
    return JSON.stringify(v, (_k, x) => (x instanceof Uint8Array ? new TextDecoder().decode(x) : x));
  } catch {
    return String(v);
  }
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    return a.length === b.length && a.every((x, i) => x === b[i]);
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export function ok(cond: unknown, message = 'expected a truthy value'): asserts cond {
  if (!cond) throw new AssertionError(message);
}

export function equal<T>(actual: T, expected: T, message?: string): void {
  if (!Object.is(actual, expected)) {
    throw new AssertionError(`${message ? message + ': ' : ''}expected ${show(expected)}, got ${show(actual)}`);
  }
}

export function deepEq(actual: unknown, expected: unknown, message?: string): void {
  if (!deepEqual(actual, expected)) {
    throw new AssertionError(`${message ? message + ': ' : ''}expected ${show(expected)}, got ${show(actual)}`);
  }
}

export function fail(message: string): never {
  throw new AssertionError(message);
}

/** Awaits `fn` and returns what it threw; fails when it resolves or throws something `check` refuses. */
export async function rejects<E = unknown>(
  fn: () => Promise<unknown> | unknown,
  check?: (err: unknown) => boolean,
  message?: string,
): Promise<E> {
  try {
    await fn();
  } catch (err) {
    if (check && !check(err)) {
      const detail = err instanceof Error ? `${err.name}: ${err.message}` : show(err);
      throw new AssertionError(`${message ? message + ': ' : ''}unexpected error ${detail}`);
    }
    return err as E;
  }
  throw new AssertionError(`${message ? message + ': ' : ''}expected a rejection`);
}

/** A runtime-agnostic test case. */
export interface Case<T> {
  name: string;
  run(subject: T): Promise<void>;
}

/** Resolves after `ms` (no timer left behind on Node once it fires). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Races a promise against a deadline, so a missing event fails a case instead of hanging it. */
export async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AssertionError(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([p, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** A prefix no other case uses, so the cases can share one engine. */
export function uniquePrefix(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);
  return `/conformance/${slug}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}/`;
}
