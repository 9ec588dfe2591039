// An inner storage.Interface for decorators' tests: every write and read returns a deep-frozen
// copy of one stored object (a decorator that changes what the inner store shares with its
// watchers throws), and the options each write got are recorded.
// expectReadOnlyForwarded: the decorator passes readOnly on to it, and only when given.

import type { GetOptions, Interface, StorageObject } from '../interfaces.ts';
import { deepEq, equal } from './assert.ts';

export type ReadOnlyOpts = Pick<GetOptions, 'readOnly'> | undefined;

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

export function frozenInner(stored: () => StorageObject): {
  inner: Interface;
  seen: { create?: ReadOnlyOpts; update?: ReadOnlyOpts };
} {
  const seen: { create?: ReadOnlyOpts; update?: ReadOnlyOpts } = {};
  const inner = {
    async create(_k: string, _o: StorageObject, _ttl?: number, opts?: ReadOnlyOpts) {
      seen.create = opts;
      return deepFreeze(stored());
    },
    async guaranteedUpdate(_k: string, _i: boolean, _p: unknown, _u: unknown, _c?: StorageObject, opts?: ReadOnlyOpts) {
      seen.update = opts;
      return deepFreeze(stored());
    },
    async get() {
      return deepFreeze(stored());
    },
  } as unknown as Interface;
  return { inner, seen };
}

/** `decorated` (over frozenInner's `inner`) hands readOnly to the inner create and guaranteedUpdate, and only when given. */
export async function expectReadOnlyForwarded(
  decorated: Interface,
  seen: { create?: ReadOnlyOpts; update?: ReadOnlyOpts },
  key: string,
): Promise<void> {
  await decorated.create(key, { metadata: {} });
  await decorated.guaranteedUpdate(key, false, undefined, async (o) => ({ object: o }));
  equal(seen.create, undefined);
  equal(seen.update, undefined);
  await decorated.create(key, { metadata: {} }, 0, { readOnly: true });
  await decorated.guaranteedUpdate(key, false, undefined, async (o) => ({ object: o }), undefined, {
    readOnly: true,
  });
  deepEq(seen.create, { readOnly: true });
  deepEq(seen.update, { readOnly: true });
}
