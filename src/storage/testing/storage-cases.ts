// The storage conformance suite (k8s.io/apiserver/pkg/storage/testing in spirit): what every
// storage.Interface must do, run over every engine, with and without the watch cache. Runtime-
// agnostic ({ name, run(subject) } over ./assert.ts) so it runs on Node, Bun, Deno and in workerd.
// Each case uses its own resource prefix, so the cases may share one engine; the compaction cases
// compact the whole engine, so run the cases one after another.

import { StatusError } from '../../endpoints/responsewriters/status.ts';
import type { GroupResource } from '../../endpoints/apierrors.ts';
import {
  interpretCreateError,
  interpretDeleteError,
  interpretGetError,
  interpretListError,
  interpretUpdateError,
  isConflict,
  isInvalidObj,
  isNotFound,
  isExist,
  newKeyNotFoundError,
  StorageError,
} from '../errors.ts';
import {
  InitialEventsAnnotationKey,
  SelectionPredicate,
  type Interface,
  type ListOptions,
  type StorageObject,
  type WatchEvent,
  type WatchInterface,
} from '../interfaces.ts';
import type { KV } from '../kv.ts';
import { parseLabelSelector } from '../selection/labels.ts';
import { deepEq, equal, fail, ok, rejects, sleep, within, type Case } from './assert.ts';

/** What a run of the suite needs: the engine, and a storage.Interface per resource prefix over it. */
export interface StorageSubject {
  kv: KV;
  /** The etcd prefix the storage was built with (e.g. `/registry`). */
  pathPrefix: string;
  /** storage.Interface for keys under `resourcePrefix` (e.g. `/widgets-x1`), over `kv`. */
  newStorage(resourcePrefix: string, gr: GroupResource): Promise<Interface> | Interface;
  /** Called when a case is done with a storage (the watch cache stops its reflector). */
  release?(s: Interface): Promise<void> | void;
}

export type StorageCase = Case<StorageSubject>;

interface Ctx {
  s: Interface;
  kv: KV;
  /** The resource prefix, e.g. `/widgets-ab12`; keys are `${prefix}/ns/name`. */
  prefix: string;
  gr: GroupResource;
  subject: StorageSubject;
}

let seq = 0;
function storageCase(name: string, fn: (c: Ctx) => Promise<void>): StorageCase {
  return {
    name,
    async run(subject) {
      const resource = `widgets-${Date.now().toString(36)}${(seq++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;
      const gr = { group: 'example.com', resource };
      const prefix = '/' + resource;
      const s = await subject.newStorage(prefix, gr);
      try {
        await fn({ s, kv: subject.kv, prefix, gr, subject });
      } finally {
        await subject.release?.(s);
      }
    },
  };
}

function obj(name: string, extra: Record<string, unknown> = {}, labels?: Record<string, string>): StorageObject {
  const metadata: Record<string, unknown> = { name, namespace: 'ns', uid: `uid-${name}` };
  if (labels) metadata.labels = labels;
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata, ...extra };
}

const rvOf = (o: StorageObject | undefined) => Number(o?.metadata?.resourceVersion);
const names = (items: StorageObject[]) => items.map((i) => i.metadata?.name);

function statusOf(err: unknown): StatusError {
  if (!(err instanceof StatusError))
    fail(`expected a StatusError, got ${err instanceof Error ? err.name + ': ' + err.message : String(err)}`);
  return err;
}

async function apiError(fn: () => unknown, interpret?: (e: unknown) => unknown): Promise<StatusError> {
  const err = await rejects(fn);
  return statusOf(interpret ? interpret(err) : err);
}

/** Collects a storage watch's events in the background. */
class Events {
  readonly events: WatchEvent[] = [];
  ended = false;
  private waiters: (() => void)[] = [];
  readonly w: WatchInterface;
  private readonly loop: Promise<void>;
  constructor(w: WatchInterface) {
    this.w = w;
    this.loop = (async () => {
      try {
        for await (const e of w) {
          this.events.push(e);
          this.wakeAll();
        }
      } finally {
        this.ended = true;
        this.wakeAll();
      }
    })();
  }
  private wakeAll(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
  async until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
    await within(
      (async () => {
        while (!cond()) {
          if (this.ended) fail(`watch ended before ${what}; got ${JSON.stringify(this.summary())}`);
          await new Promise<void>((r) => this.waiters.push(r));
        }
      })(),
      ms,
      what,
    );
  }
  /** Events other than bookmarks. */
  get changes(): WatchEvent[] {
    return this.events.filter((e) => e.type !== 'BOOKMARK');
  }
  async waitChanges(n: number, ms = 5000): Promise<WatchEvent[]> {
    await this.until(() => this.changes.length >= n, `${n} events (got ${JSON.stringify(this.summary())})`, ms);
    return this.changes;
  }
  async waitEnd(ms = 5000): Promise<void> {
    await this.until(() => this.ended, 'the watch to end', ms);
  }
  summary(): string[] {
    return this.events.map(
      (e) => `${e.type}:${e.object.metadata?.name ?? ''}@${e.object.metadata?.resourceVersion ?? ''}`,
    );
  }
  async stop(): Promise<void> {
    this.w.stop();
    await this.loop;
  }
}

async function watch(s: Interface, key: string, opts: ListOptions): Promise<Events> {
  return new Events(await s.watch(key, opts));
}

const counter = (o: StorageObject) => Number((o.spec as { n?: number } | undefined)?.n ?? 0);

export const storageCases: StorageCase[] = [
  storageCase(
    'create stamps the revision and stores the object without resourceVersion',
    async ({ s, kv, prefix, subject }) => {
      const out = await s.create(`${prefix}/ns/a`, obj('a', { spec: { x: 1 } }));
      const rv = rvOf(out);
      ok(rv > 0, 'resourceVersion stamped on create');
      equal(out.metadata?.name, 'a');
      const raw = await kv.get(`${subject.pathPrefix.replace(/\/$/, '')}${prefix}/ns/a`);
      ok(raw.kv, 'stored under <prefix><resourcePrefix>/ns/a');
      const stored = JSON.parse(new TextDecoder().decode(raw.kv.value));
      equal(stored.metadata.resourceVersion, undefined, 'resourceVersion not stored');
      equal(raw.kv.modRevision, rv, 'RV is the modRevision');
      const got = await s.get(`${prefix}/ns/a`);
      equal(rvOf(got), rv);
      deepEq(got?.spec, { x: 1 });
      const withSelfLink = obj('b');
      withSelfLink.metadata!.selfLink = '/apis/x';
      await s.create(`${prefix}/ns/b`, withSelfLink);
      const rawB = await kv.get(`${subject.pathPrefix.replace(/\/$/, '')}${prefix}/ns/b`);
      equal(JSON.parse(new TextDecoder().decode(rawB.kv!.value)).metadata.selfLink, undefined, 'selfLink not stored');
    },
  ),
  storageCase('create of an existing key is KeyExists → 409 AlreadyExists', async ({ s, prefix, gr }) => {
    await s.create(`${prefix}/ns/a`, obj('a'));
    const raw = await rejects(() => s.create(`${prefix}/ns/a`, obj('a')));
    ok(isExist(raw), 'storage error KeyExists');
    const e = statusOf(interpretCreateError(raw, gr, 'a'));
    equal(e.status.code, 409);
    equal(e.status.reason, 'AlreadyExists');
    equal(e.status.message, `${gr.resource}.example.com "a" already exists`);
    deepEq(e.status.details, { name: 'a', group: 'example.com', kind: gr.resource });
  }),
  storageCase('create refuses an object that already has a resourceVersion', async ({ s, prefix }) => {
    const o = obj('a');
    o.metadata!.resourceVersion = '5';
    const err = await rejects(() => s.create(`${prefix}/ns/a`, o));
    equal((err as Error).message, 'resourceVersion should not be set on objects to be created');
  }),
  storageCase('get of a missing key is KeyNotFound → 404; ignoreNotFound gives nothing', async ({ s, prefix, gr }) => {
    const raw = await rejects(() => s.get(`${prefix}/ns/missing`));
    ok(isNotFound(raw), 'storage error KeyNotFound');
    const e = statusOf(interpretGetError(raw, gr, 'missing'));
    equal(e.status.code, 404);
    equal(e.status.reason, 'NotFound');
    equal(e.status.message, `${gr.resource}.example.com "missing" not found`);
    equal(await s.get(`${prefix}/ns/missing`, { ignoreNotFound: true }), undefined);
  }),
  storageCase(
    'get: resourceVersion newer than storage → 504 Too large resource version; bad RV → 400',
    async ({ s, prefix }) => {
      const out = await s.create(`${prefix}/ns/a`, obj('a'));
      const cur = await s.getCurrentResourceVersion();
      const e = await apiError(() => s.get(`${prefix}/ns/a`, { resourceVersion: String(cur + 1000) }));
      equal(e.status.code, 504);
      equal(e.status.reason, 'Timeout');
      ok(
        e.status.message!.startsWith(`Timeout: Too large resource version: ${cur + 1000}, current: `),
        e.status.message,
      );
      deepEq(e.status.details?.causes, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }]);
      const got = await s.get(`${prefix}/ns/a`, { resourceVersion: String(rvOf(out)) });
      equal(rvOf(got), rvOf(out), 'not older than: served');
      const bad = await apiError(() => s.get(`${prefix}/ns/a`, { resourceVersion: 'abc' }));
      equal(bad.status.code, 400);
      equal(
        bad.status.message,
        'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
      );
    },
  ),
  storageCase('keys with "." or ".." segments and empty keys are refused', async ({ s, prefix }) => {
    for (const key of [`${prefix}/ns/..`, `${prefix}/../other/x`, `${prefix}/./x`, `${prefix}/ns/.`, '', '/']) {
      const err = await rejects(() => s.get(key), undefined, `get ${JSON.stringify(key)}`);
      ok(/^(invalid|empty) key/.test((err as Error).message), (err as Error).message);
      await rejects(() => s.create(key, obj('x')), undefined, `create ${JSON.stringify(key)}`);
    }
    await rejects(
      () => s.getList(`${prefix}/../`, { recursive: true }),
      (e) => /invalid key/.test((e as Error).message),
    );
    await rejects(
      () => s.get('/elsewhere/ns/a'),
      (e) => /lacks resource prefix/.test((e as Error).message),
    );
  }),
  storageCase('getList: recursive prefix only, sorted, list resourceVersion is current', async ({ s, prefix }) => {
    for (const n of ['c', 'a', 'b']) await s.create(`${prefix}/ns/${n}`, obj(n));
    await s.create(`${prefix}/ns2/z`, { ...obj('z'), metadata: { name: 'z', namespace: 'ns2' } });
    await s.create(`${prefix}x/ns/sibling`, obj('sibling')).catch(() => undefined);
    const all = await s.getList(`${prefix}`, { recursive: true });
    deepEq(names(all.items), ['a', 'b', 'c', 'z']);
    equal(Number(all.resourceVersion), await s.getCurrentResourceVersion());
    const ns = await s.getList(`${prefix}/ns`, { recursive: true });
    deepEq(names(ns.items), ['a', 'b', 'c'], 'namespace prefix gets a trailing slash');
    equal(ns.continue, undefined);
    equal(ns.remainingItemCount, undefined);
    const one = await s.getList(`${prefix}/ns/b`, { recursive: false });
    deepEq(names(one.items), ['b'], 'non-recursive list is the one key');
    const none = await s.getList(`${prefix}/ns/none`, { recursive: false });
    deepEq(none.items, []);
  }),
  storageCase(
    'getList: pages with limit/continue, remainingItemCount, consistent across concurrent writes',
    async ({ s, prefix }) => {
      for (let i = 0; i < 7; i++) await s.create(`${prefix}/ns/o${i}`, obj(`o${i}`));
      const p1 = await s.getList(prefix, { recursive: true, predicate: new SelectionPredicate({ limit: 3 }) });
      deepEq(names(p1.items), ['o0', 'o1', 'o2']);
      ok(p1.continue, 'a continue token');
      equal(p1.remainingItemCount, 4);
      const token = JSON.parse(atob(p1.continue!.replace(/-/g, '+').replace(/_/g, '/')));
      deepEq(token, { v: 'meta.k8s.io/v1', rv: Number(p1.resourceVersion), start: 'ns/o2\u0000' }, 'token format');
      // Writes between pages: the next pages still show the list at the first page's revision.
      await s.create(`${prefix}/ns/o3a`, obj('o3a'));
      await s.delete(`${prefix}/ns/o4`);
      await s.guaranteedUpdate(`${prefix}/ns/o5`, false, undefined, (o) => ({
        object: { ...o, spec: { changed: true } },
      }));
      const p2 = await s.getList(prefix, {
        recursive: true,
        predicate: new SelectionPredicate({ limit: 3, continue: p1.continue }),
      });
      deepEq(names(p2.items), ['o3', 'o4', 'o5'], 'second page at the first revision');
      equal(p2.resourceVersion, p1.resourceVersion, 'same list revision');
      equal(p2.items[2]!.spec, undefined, 'o5 as it was');
      equal(p2.remainingItemCount, 1);
      const p3 = await s.getList(prefix, {
        recursive: true,
        predicate: new SelectionPredicate({ limit: 3, continue: p2.continue }),
      });
      deepEq(names(p3.items), ['o6']);
      equal(p3.continue, undefined, 'last page has no continue');
      equal(p3.remainingItemCount, undefined);
      // Continue with RV "0" is tolerated; any other RV is a 400.
      const p2b = await s.getList(prefix, {
        recursive: true,
        resourceVersion: '0',
        predicate: new SelectionPredicate({ limit: 3, continue: p1.continue }),
      });
      deepEq(names(p2b.items), ['o3', 'o4', 'o5']);
      const e = await apiError(() =>
        s.getList(prefix, {
          recursive: true,
          resourceVersion: '5',
          predicate: new SelectionPredicate({ limit: 3, continue: p1.continue }),
        }),
      );
      equal(e.status.code, 400);
      equal(e.status.reason, 'BadRequest');
      equal(e.status.message, 'specifying resource version is not allowed when using continue');
    },
  ),
  storageCase('getList: invalid continue tokens are 400s with upstream messages', async ({ s, prefix }) => {
    const enc = (o: unknown) => btoa(JSON.stringify(o)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const cases: [string, string][] = [
      ['!!!', 'invalid continue token: continue key is not valid: '],
      [
        enc({ v: 'meta.k8s.io/v1', rv: 0, start: 'ns/a' }),
        'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
      ],
      [
        enc({ v: 'meta.k8s.io/v1', rv: 3, start: '' }),
        'invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)',
      ],
      [
        enc({ v: 'meta.k8s.io/v1', rv: 3, start: '../../secrets/' }),
        'invalid continue token: continue key is not valid: ../../secrets/',
      ],
      [
        enc({ v: 'v9', rv: 3, start: 'ns/a' }),
        'invalid continue token: continue key is not valid: server does not recognize this encoded version v9',
      ],
    ];
    for (const [token, message] of cases) {
      const e = await apiError(() =>
        s.getList(prefix, { recursive: true, predicate: new SelectionPredicate({ limit: 1, continue: token }) }),
      );
      equal(e.status.code, 400, token);
      ok(e.status.message!.startsWith(message), `${e.status.message} starts with ${message}`);
    }
  }),
  storageCase(
    'getList: Exact and legacy limit+RV read at that revision; NotOlderThan reads the latest',
    async ({ s, prefix }) => {
      await s.create(`${prefix}/ns/a`, obj('a'));
      const b = await s.create(`${prefix}/ns/b`, obj('b'));
      await s.create(`${prefix}/ns/c`, obj('c'));
      const rv = String(rvOf(b));
      const exact = await s.getList(prefix, { recursive: true, resourceVersion: rv, resourceVersionMatch: 'Exact' });
      deepEq(names(exact.items), ['a', 'b']);
      equal(exact.resourceVersion, rv);
      const legacy = await s.getList(prefix, {
        recursive: true,
        resourceVersion: rv,
        predicate: new SelectionPredicate({ limit: 10 }),
      });
      deepEq(names(legacy.items), ['a', 'b'], 'legacy: limit + RV is exact');
      const not = await s.getList(prefix, {
        recursive: true,
        resourceVersion: rv,
        resourceVersionMatch: 'NotOlderThan',
      });
      deepEq(names(not.items), ['a', 'b', 'c']);
      ok(Number(not.resourceVersion) >= Number(rv));
      const cur = await s.getCurrentResourceVersion();
      const e = await apiError(() =>
        s.getList(prefix, {
          recursive: true,
          resourceVersion: String(cur + 1000),
          resourceVersionMatch: 'NotOlderThan',
        }),
      );
      equal(e.status.code, 504, 'NotOlderThan a future RV');
      const e2 = await apiError(() =>
        s.getList(prefix, { recursive: true, resourceVersion: String(cur + 1000), resourceVersionMatch: 'Exact' }),
      );
      equal(e2.status.code, 504, 'Exact at a future RV');
      const e3 = await rejects(() =>
        s.getList(prefix, { recursive: true, resourceVersion: rv, resourceVersionMatch: 'Bogus' as 'Exact' }),
      );
      equal((e3 as Error).message, 'unknown ResourceVersionMatch value: Bogus');
    },
  ),
  storageCase(
    'getList: label selector with paging doubles the page and omits remainingItemCount',
    async ({ s, prefix }) => {
      for (let i = 0; i < 20; i++) {
        await s.create(
          `${prefix}/ns/o${String(i).padStart(2, '0')}`,
          obj(`o${String(i).padStart(2, '0')}`, {}, { keep: i % 5 === 0 ? 'yes' : 'no' }),
        );
      }
      const label = parseLabelSelector('keep=yes');
      const p1 = await s.getList(prefix, { recursive: true, predicate: new SelectionPredicate({ label, limit: 2 }) });
      deepEq(names(p1.items), ['o00', 'o05']);
      ok(p1.continue, 'more remain');
      equal(p1.remainingItemCount, undefined, 'no remainingItemCount with a selector');
      const p2 = await s.getList(prefix, {
        recursive: true,
        predicate: new SelectionPredicate({ label, limit: 2, continue: p1.continue }),
      });
      deepEq(names(p2.items), ['o10', 'o15']);
      const all = await s.getList(prefix, { recursive: true, predicate: new SelectionPredicate({ label }) });
      deepEq(names(all.items), ['o00', 'o05', 'o10', 'o15']);
      const f = await s.getList(prefix, {
        recursive: true,
        predicate: new SelectionPredicate({ label: parseLabelSelector('keep in (no),!missing') }),
      });
      equal(f.items.length, 16);
    },
  ),
  storageCase(
    'compaction: Exact list and paged continue at a compacted revision → 410 Expired',
    async ({ s, kv, prefix }) => {
      for (let i = 0; i < 4; i++) await s.create(`${prefix}/ns/o${i}`, obj(`o${i}`));
      const p1 = await s.getList(prefix, { recursive: true, predicate: new SelectionPredicate({ limit: 2 }) });
      const old = Number(p1.resourceVersion);
      await s.create(`${prefix}/ns/o9`, obj('o9'));
      await s.guaranteedUpdate(`${prefix}/ns/o0`, false, undefined, (o) => ({ object: { ...o, spec: { n: 1 } } }));
      const cur = await kv.currentRevision();
      await kv.compact(cur);
      const e = await apiError(
        () => s.getList(prefix, { recursive: true, resourceVersion: String(old), resourceVersionMatch: 'Exact' }),
        (x) => x,
      );
      equal(e.status.code, 410);
      equal(e.status.reason, 'Expired');
      equal(e.status.message, 'The resourceVersion for the provided list is too old.');
      const e2 = await apiError(() =>
        s.getList(prefix, { recursive: true, predicate: new SelectionPredicate({ limit: 2, continue: p1.continue }) }),
      );
      equal(e2.status.code, 410);
      ok(
        e2.status.message!.startsWith(
          'The provided continue parameter is too old to display a consistent list result.',
        ),
      );
      const next = e2.status.metadata?.continue;
      ok(next, 'the 410 carries a continue token for the inconsistent remainder');
      const rest = await s.getList(prefix, {
        recursive: true,
        predicate: new SelectionPredicate({ limit: 10, continue: next }),
      });
      deepEq(names(rest.items), ['o2', 'o3', 'o9'], 'the inconsistent continue reads the latest');
      ok(Number(rest.resourceVersion) >= cur);
    },
  ),
  storageCase(
    'guaranteedUpdate: applies tryUpdate, stamps the new revision, retries on conflict',
    async ({ s, prefix }) => {
      const c = await s.create(`${prefix}/ns/a`, obj('a', { spec: { n: 0 } }));
      let calls = 0;
      const u = await s.guaranteedUpdate(`${prefix}/ns/a`, false, undefined, async (cur, meta) => {
        calls++;
        equal(meta.resourceVersion, rvOf(cur), 'ResponseMeta.resourceVersion');
        if (calls === 1) {
          // Someone else writes first: the store must retry with the new state.
          await s.guaranteedUpdate(`${prefix}/ns/a`, false, undefined, (o) => ({
            object: { ...o, spec: { n: counter(o) + 10 } },
          }));
        }
        return { object: { ...cur, spec: { n: counter(cur) + 1 } } };
      });
      equal(calls, 2, 'tryUpdate ran again after the conflict');
      equal(counter(u), 11);
      ok(rvOf(u) > rvOf(c));
      equal(rvOf(await s.get(`${prefix}/ns/a`)), rvOf(u));
    },
  ),
  storageCase(
    'guaranteedUpdate: identical bytes write nothing and keep the resourceVersion',
    async ({ s, kv, prefix }) => {
      const c = await s.create(`${prefix}/ns/a`, obj('a', { spec: { n: 1 } }));
      const before = await kv.currentRevision();
      const u = await s.guaranteedUpdate(`${prefix}/ns/a`, false, undefined, (o) => ({ object: o }));
      equal(rvOf(u), rvOf(c), 'same resourceVersion');
      equal(await kv.currentRevision(), before, 'no write');
    },
  ),
  storageCase(
    'guaranteedUpdate: preconditions on UID and resourceVersion → 409 Conflict',
    async ({ s, prefix, gr }) => {
      const c = await s.create(`${prefix}/ns/a`, obj('a'));
      const raw = await rejects(() =>
        s.guaranteedUpdate(`${prefix}/ns/a`, false, { uid: 'other' }, (o) => ({ object: o })),
      );
      ok(isInvalidObj(raw), 'InvalidObj storage error');
      const e = statusOf(interpretUpdateError(raw, gr, 'a'));
      equal(e.status.code, 409);
      equal(e.status.reason, 'Conflict');
      ok(
        e.status.message!.startsWith(`Operation cannot be fulfilled on ${gr.resource}.example.com "a": `) &&
          e.status.message!.includes('Precondition failed: UID in precondition: other, UID in object meta: uid-a'),
        e.status.message,
      );
      const raw2 = await rejects(() =>
        s.guaranteedUpdate(`${prefix}/ns/a`, false, { resourceVersion: '1' }, (o) => ({ object: o })),
      );
      ok(
        String((raw2 as Error).message).includes(
          `Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${rvOf(c)}`,
        ),
      );
      const ok1 = await s.guaranteedUpdate(
        `${prefix}/ns/a`,
        false,
        { uid: 'uid-a', resourceVersion: String(rvOf(c)) },
        (o) => ({
          object: { ...o, spec: { n: 1 } },
        }),
      );
      equal(counter(ok1), 1, 'matching preconditions pass');
    },
  ),
  storageCase('guaranteedUpdate: missing key → 404, or created with ignoreNotFound', async ({ s, prefix, gr }) => {
    const raw = await rejects(() => s.guaranteedUpdate(`${prefix}/ns/a`, false, undefined, (o) => ({ object: o })));
    ok(isNotFound(raw));
    equal(statusOf(interpretUpdateError(raw, gr, 'a')).status.code, 404);
    const made = await s.guaranteedUpdate(`${prefix}/ns/a`, true, undefined, (o, meta) => {
      equal(meta.resourceVersion, 0, 'RV 0 for a missing object');
      deepEq(o, {}, 'an empty object for a missing key');
      return { object: obj('a') };
    });
    ok(rvOf(made) > 0);
    equal((await s.get(`${prefix}/ns/a`))?.metadata?.name, 'a');
  }),
  storageCase(
    'guaranteedUpdate: a stale cachedExistingObject is refreshed, not written over',
    async ({ s, prefix }) => {
      const c = await s.create(`${prefix}/ns/a`, obj('a', { spec: { n: 0 } }));
      await s.guaranteedUpdate(`${prefix}/ns/a`, false, undefined, (o) => ({ object: { ...o, spec: { n: 5 } } }));
      const u = await s.guaranteedUpdate(
        `${prefix}/ns/a`,
        false,
        undefined,
        (o) => ({ object: { ...o, spec: { n: counter(o) + 1 } } }),
        c,
      );
      equal(counter(u), 6, 'the update saw the current state');
      // A no-op against a stale cache must still return the current object.
      const same = await s.guaranteedUpdate(`${prefix}/ns/a`, false, undefined, (o) => ({ object: o }), c);
      equal(counter(same), 6);
      equal(rvOf(same), rvOf(u));
    },
  ),
  storageCase('guaranteedUpdate: 100 concurrent increments of one key end at exactly 100', async ({ s, prefix }) => {
    await s.create(`${prefix}/ns/counter`, obj('counter', { spec: { n: 0 } }));
    await Promise.all(
      Array.from({ length: 100 }, () =>
        s.guaranteedUpdate(`${prefix}/ns/counter`, false, undefined, async (o) => {
          await Promise.resolve();
          return { object: { ...o, spec: { n: counter(o) + 1 } } };
        }),
      ),
    );
    const got = await s.get(`${prefix}/ns/counter`);
    equal(counter(got!), 100);
  }),
  storageCase('delete: returns the object at the delete revision; missing → 404', async ({ s, kv, prefix, gr }) => {
    const c = await s.create(`${prefix}/ns/a`, obj('a'));
    const d = await s.delete(`${prefix}/ns/a`);
    equal(d.metadata?.name, 'a');
    ok(rvOf(d) > rvOf(c), 'deleted object carries the delete revision');
    equal(rvOf(d), await kv.currentRevision());
    equal(await s.get(`${prefix}/ns/a`, { ignoreNotFound: true }), undefined);
    const raw = await rejects(() => s.delete(`${prefix}/ns/a`));
    ok(isNotFound(raw));
    const e = statusOf(interpretDeleteError(raw, gr, 'a'));
    equal(e.status.code, 404);
  }),
  storageCase(
    'delete: preconditions and validateDeletion; a stale cached object is rechecked',
    async ({ s, prefix, gr }) => {
      const c = await s.create(`${prefix}/ns/a`, obj('a'));
      const raw = await rejects(() => s.delete(`${prefix}/ns/a`, { uid: 'nope' }));
      equal(statusOf(interpretDeleteError(raw, gr, 'a')).status.code, 409);
      const refused = await rejects(() =>
        s.delete(`${prefix}/ns/a`, undefined, () => {
          throw new Error('not allowed');
        }),
      );
      equal((refused as Error).message, 'not allowed');
      ok(await s.get(`${prefix}/ns/a`), 'still there');
      const u = await s.guaranteedUpdate(`${prefix}/ns/a`, false, undefined, (o) => ({
        object: { ...o, spec: { n: 1 } },
      }));
      // Preconditions on the current RV pass even though the cached object is older.
      let seen = 0;
      const d = await s.delete(
        `${prefix}/ns/a`,
        { resourceVersion: String(rvOf(u)) },
        (o) => {
          seen = counter(o);
        },
        c,
      );
      equal(seen, 1, 'validateDeletion saw the current object');
      equal(d.metadata?.name, 'a');
    },
  ),
  storageCase('watch from a resourceVersion delivers the events strictly after it', async ({ s, prefix }) => {
    const a = await s.create(`${prefix}/ns/a`, obj('a'));
    const b = await s.create(`${prefix}/ns/b`, obj('b'));
    const w = await watch(s, prefix, { recursive: true, resourceVersion: String(rvOf(a)) });
    await s.guaranteedUpdate(`${prefix}/ns/a`, false, undefined, (o) => ({ object: { ...o, spec: { n: 1 } } }));
    await s.delete(`${prefix}/ns/b`);
    const evs = await w.waitChanges(3);
    deepEq(
      evs.map((e) => `${e.type}:${e.object.metadata?.name}`),
      ['ADDED:b', 'MODIFIED:a', 'DELETED:b'],
    );
    equal(rvOf(evs[0]!.object), rvOf(b));
    ok(rvOf(evs[2]!.object) > rvOf(evs[1]!.object), 'DELETED carries the delete revision');
    await w.stop();
  }),
  storageCase('watch with resourceVersion "0" or unset: synthetic ADDEDs, then the stream', async ({ s, prefix }) => {
    await s.create(`${prefix}/ns/a`, obj('a'));
    await s.create(`${prefix}/ns/b`, obj('b'));
    const present = ['ADDED:a', 'ADDED:b'];
    for (const rv of ['0', undefined]) {
      const w = await watch(s, prefix, { recursive: true, resourceVersion: rv });
      const first = await w.waitChanges(present.length);
      deepEq(first.map((e) => `${e.type}:${e.object.metadata?.name}`).sort(), present, `rv=${rv}`);
      const name = `c${rv ?? 'unset'}`;
      await s.create(`${prefix}/ns/${name}`, obj(name));
      const evs = await w.waitChanges(present.length + 1);
      equal(`${evs[present.length]!.type}:${evs[present.length]!.object.metadata?.name}`, `ADDED:${name}`);
      present.push(`ADDED:${name}`);
      await w.stop();
    }
  }),
  storageCase(
    'watch with sendInitialEvents: ADDEDs, the initial-events-end bookmark, then the stream',
    async ({ s, prefix }) => {
      await s.create(`${prefix}/ns/a`, obj('a'));
      const b = await s.create(`${prefix}/ns/b`, obj('b'));
      const w = await watch(s, prefix, {
        recursive: true,
        sendInitialEvents: true,
        resourceVersionMatch: 'NotOlderThan',
        predicate: new SelectionPredicate({ allowWatchBookmarks: true }),
      });
      await w.until(() => w.events.some((e) => e.type === 'BOOKMARK'), 'the initial-events-end bookmark');
      const bm = w.events.find((e) => e.type === 'BOOKMARK')!;
      deepEq(names(w.events.slice(0, 2).map((e) => e.object)).sort(), ['a', 'b']);
      equal(w.events[2], bm, 'bookmark after the initial events');
      equal(bm.object.metadata?.annotations?.[InitialEventsAnnotationKey], 'true');
      ok(rvOf(bm.object) >= rvOf(b), 'bookmark at the list revision');
      await s.create(`${prefix}/ns/c`, obj('c'));
      const evs = await w.waitChanges(3);
      equal(evs[2]!.object.metadata?.name, 'c');
      await w.stop();
      // sendInitialEvents=false without RV: only new events.
      const w2 = await watch(s, prefix, { recursive: true, sendInitialEvents: false });
      await s.create(`${prefix}/ns/d`, obj('d'));
      const evs2 = await w2.waitChanges(1);
      equal(`${evs2[0]!.type}:${evs2[0]!.object.metadata?.name}`, 'ADDED:d');
      await sleep(50);
      equal(w2.changes.length, 1, 'no initial events');
      await w2.stop();
    },
  ),
  storageCase('watch with a selector: transitions turn MODIFIED into ADDED and DELETED', async ({ s, prefix }) => {
    const a = await s.create(`${prefix}/ns/a`, obj('a', {}, { app: 'x' }));
    await s.create(`${prefix}/ns/b`, obj('b', {}, { app: 'y' }));
    const w = await watch(s, prefix, {
      recursive: true,
      resourceVersion: String(rvOf(a)),
      predicate: new SelectionPredicate({ label: parseLabelSelector('app=x') }),
    });
    const relabel = (name: string, app: string) =>
      s.guaranteedUpdate(`${prefix}/ns/${name}`, false, undefined, (o) => ({
        object: { ...o, metadata: { ...o.metadata, labels: { app } } },
      }));
    await relabel('b', 'x'); // enters → ADDED
    await s.guaranteedUpdate(`${prefix}/ns/b`, false, undefined, (o) => ({ object: { ...o, spec: { n: 1 } } })); // MODIFIED
    await relabel('a', 'z'); // leaves → DELETED
    await s.guaranteedUpdate(`${prefix}/ns/a`, false, undefined, (o) => ({ object: { ...o, spec: { n: 2 } } })); // outside: nothing
    await s.delete(`${prefix}/ns/b`); // DELETED
    const evs = await w.waitChanges(4);
    deepEq(
      evs.map((e) => `${e.type}:${e.object.metadata?.name}`),
      ['ADDED:b', 'MODIFIED:b', 'DELETED:a', 'DELETED:b'],
    );
    equal(evs[2]!.object.metadata?.labels?.app, 'x', 'DELETED on a transition carries the old object');
    await sleep(50);
    equal(w.changes.length, 4, 'nothing for an object outside the selector');
    await w.stop();
  }),
  storageCase('watch of one key (non-recursive) sees that key only', async ({ s, prefix }) => {
    const a = await s.create(`${prefix}/ns/a`, obj('a'));
    const w = await watch(s, `${prefix}/ns/a`, { resourceVersion: String(rvOf(a)) });
    await s.create(`${prefix}/ns/ab`, obj('ab'));
    await s.guaranteedUpdate(`${prefix}/ns/a`, false, undefined, (o) => ({ object: { ...o, spec: { n: 1 } } }));
    const evs = await w.waitChanges(1);
    equal(`${evs[0]!.type}:${evs[0]!.object.metadata?.name}`, 'MODIFIED:a');
    await sleep(50);
    equal(w.changes.length, 1);
    await w.stop();
  }),
  storageCase(
    'watch from a compacted resourceVersion: an ERROR event with 410 Expired, then the end',
    async ({ s, kv, prefix, gr, subject }) => {
      const a = await s.create(`${prefix}/ns/a`, obj('a'));
      await s.guaranteedUpdate(`${prefix}/ns/a`, false, undefined, (o) => ({ object: { ...o, spec: { n: 1 } } }));
      await s.guaranteedUpdate(`${prefix}/ns/a`, false, undefined, (o) => ({ object: { ...o, spec: { n: 2 } } }));
      await kv.compact(await kv.currentRevision());
      // A storage built after the compaction (a watch cache then starts from the current revision).
      const fresh = await subject.newStorage(prefix, gr);
      let w: Events;
      try {
        w = await watch(fresh, prefix, { recursive: true, resourceVersion: String(rvOf(a) - 1) });
      } catch (err) {
        fail(`watch must answer with an ERROR event, not throw (${String(err)})`);
      }
      await w.waitEnd();
      const errs = w.events.filter((e) => e.type === 'ERROR');
      equal(errs.length, 1, `one ERROR event (got ${w.summary()})`);
      const st = errs[0]!.object as Record<string, unknown>;
      equal(st.kind, 'Status');
      equal(st.code, 410);
      equal(st.reason, 'Expired');
      ok(
        st.message === 'The resourceVersion for the provided watch is too old.' ||
          /^too old resource version: \d+ \(\d+\)$/.test(String(st.message)),
        String(st.message),
      );
      await subject.release?.(fresh);
    },
  ),
  storageCase(
    'watch: progress notifications become BOOKMARKs with the current revision',
    async ({ s, prefix, subject, gr }) => {
      const a = await s.create(`${prefix}/ns/a`, obj('a'));
      const w = await watch(s, prefix, {
        recursive: true,
        resourceVersion: String(rvOf(a)),
        progressNotify: true,
        predicate: new SelectionPredicate({ allowWatchBookmarks: true }),
      });
      // A write elsewhere moves the revision on.
      const other = await subject.newStorage(prefix + '-other', { ...gr, resource: gr.resource + '-other' });
      const o = await other.create(`${prefix}-other/ns/x`, obj('x'));
      await w.until(
        () => w.events.some((e) => e.type === 'BOOKMARK' && rvOf(e.object) >= rvOf(o)),
        `a BOOKMARK at ≥ ${rvOf(o)} (got ${w.summary()})`,
        70000,
      );
      const bm = w.events.find((e) => e.type === 'BOOKMARK')!;
      deepEq(Object.keys(bm.object.metadata ?? {}), ['resourceVersion'], 'a bookmark carries only its resourceVersion');
      equal(w.changes.length, 0);
      await w.stop();
      await subject.release?.(other);
    },
  ),
  storageCase('watch: stop() ends the iterator', async ({ s, prefix }) => {
    const w = await s.watch(prefix, { recursive: true, sendInitialEvents: false });
    const it = w[Symbol.asyncIterator]();
    const next = it.next();
    w.stop();
    const r = await within(next, 5000, 'the stopped watch to end');
    equal(r.done, true);
  }),
  storageCase('objects near 1.5 MiB round-trip through create, get, list and watch', async ({ s, prefix }) => {
    const big = 'x'.repeat(1_450_000);
    const w = await watch(s, prefix, { recursive: true, sendInitialEvents: false });
    const c = await s.create(`${prefix}/ns/big`, obj('big', { data: { blob: big } }));
    const got = await s.get(`${prefix}/ns/big`);
    equal((got?.data as { blob: string }).blob.length, big.length);
    const l = await s.getList(prefix, { recursive: true });
    equal((l.items[0]!.data as { blob: string }).blob.length, big.length);
    const evs = await w.waitChanges(1);
    equal(rvOf(evs[0]!.object), rvOf(c));
    await w.stop();
  }),
  storageCase('stats, getCurrentResourceVersion, compactRevision and readinessCheck', async ({ s, kv, prefix }) => {
    await s.create(`${prefix}/ns/a`, obj('a'));
    await s.create(`${prefix}/ns/b`, obj('b'));
    equal((await s.stats()).objectCount, 2);
    const cur = await s.getCurrentResourceVersion();
    ok(cur > 0);
    equal(cur, await kv.currentRevision());
    ok(s.compactRevision() >= 0);
    await s.readinessCheck();
  }),
  storageCase('interpretListError: a missing key is 404 with an empty name', async ({ gr }) => {
    const e = statusOf(interpretListError(newKeyNotFoundError('/k', 0), gr));
    equal(e.status.code, 404);
    equal(e.status.message, `${gr.resource}.example.com "" not found`);
    ok(isConflict(new StorageError(3, 'k')), 'isConflict');
  }),
];
