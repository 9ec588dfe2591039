/**
 * A value, or a promise of it: what a read returns when the engine under it may answer at once
 * (memory, SQLite) or later (etcd). A caller that gets the value itself answers without a promise
 * hop, and every filter above passes a synchronous Response on at once. Functions of this type
 * never throw: a failure is a rejected promise, as it would be from an async function.
 */
export type MaybePromise<T> = T | Promise<T>;

/** `f` of the value: at once for a value, after it for a promise; a throw of `f` is a rejection. */
export function thenMaybe<T, U>(v: MaybePromise<T>, f: (value: T) => MaybePromise<U>): MaybePromise<U> {
  if (v instanceof Promise) return v.then(f);
  try {
    return f(v);
  } catch (err) {
    return Promise.reject(err as Error);
  }
}
