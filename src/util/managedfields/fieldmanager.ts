// The field manager of k8s.io/apimachinery/pkg/util/managedfields (internal/fieldmanager.go and the
// managers it stacks: versioncheck, lastappliedupdater, capmanagers, buildmanagerinfo,
// managedfieldsupdater, stripmeta, structuredmerge) over sigs.k8s.io/structured-merge-diff's
// Updater (merge/update.go): every write records which manager owns which fields in
// metadata.managedFields; apply merges a configuration, prunes what the applier dropped, and
// refuses to take fields another manager owns unless forced.
//
// Pure: JSON objects in, JSON objects out, errors as FieldManagerError (the handler maps them to a
// Status). One API version per kind (no conversion), so every entry's apiVersion is the kind's.

import { FieldSet, pathString } from './fieldpath.ts';
import { rootNode, type SchemaNode, type TypeSchema } from './schema.ts';
import {
  compare,
  deepEqual,
  ensureNamedFieldsAreMembers,
  merge,
  removeItems,
  toFieldSet,
  TypedError,
  type JSONMap,
  type JSONValue,
} from './typed.ts';
import { deepCopyJSON } from '../deepcopy.ts';
import { formatTime } from '../metatime.ts';

/** metav1.ManagedFieldsEntry. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/** An object with ObjectMeta, as the registry stores it. */
export interface ManagedObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { managedFields?: ManagedFieldsEntry[]; annotations?: Record<string, string>; [k: string]: unknown };
  [k: string]: unknown;
}

export interface Conflict {
  manager: string;
  path: string[];
}

/** A failure the handler answers with a Status: 400 BadRequest, 409 Conflict (apply) or 500. */
export class FieldManagerError extends Error {
  readonly code: 400 | 409 | 500;
  /** The conflicts with the managers printed as upstream's Status causes print them. */
  readonly conflicts?: Conflict[];
  /** The conflicts by manager identifier. */
  readonly rawConflicts?: Conflict[];
  constructor(message: string, code: 400 | 409 | 500, conflicts?: Conflict[], rawConflicts?: Conflict[]) {
    super(message);
    this.name = 'FieldManagerError';
    this.code = code;
    this.conflicts = conflicts;
    this.rawConflicts = rawConflicts;
  }
}

export const LastAppliedConfigAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';
/** DefaultMaxUpdateManagers. */
export const DefaultMaxUpdateManagers = 10;

interface VersionedSet {
  set: FieldSet;
  apiVersion: string;
  applied: boolean;
}

/** The managers by identifier (BuildManagerIdentifier) and the time of each one's last change. */
interface Managed {
  fields: Map<string, VersionedSet>;
  times: Map<string, string | undefined>;
}

// stripmeta.go: fields nobody owns.
const stripSet = FieldSet.of(
  ['f:apiVersion'],
  ['f:kind'],
  ['f:metadata'],
  ...[
    'name',
    'namespace',
    'creationTimestamp',
    'selfLink',
    'uid',
    'clusterName',
    'generation',
    'managedFields',
    'resourceVersion',
  ].map((f) => ['f:metadata', `f:${f}`]),
);

/** BuildManagerIdentifier: the entry without fieldsType, fieldsV1, time (and apiVersion for Apply), as Go marshals it. */
export function managerIdentifier(e: ManagedFieldsEntry): string {
  const id: ManagedFieldsEntry = {};
  if (e.manager) id.manager = e.manager;
  if (e.operation) id.operation = e.operation;
  if (e.apiVersion && e.operation !== 'Apply') id.apiVersion = e.apiVersion;
  if (e.subresource) id.subresource = e.subresource;
  return JSON.stringify(id);
}

/** DecodeManagedFields. */
function decodeManagedFields(entries: ManagedFieldsEntry[] | undefined): Managed {
  const m: Managed = { fields: new Map(), times: new Map() };
  (entries ?? []).forEach((e, i) => {
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    if (!e.apiVersion) throw new Error('apiVersion must not be empty');
    if (!e.fieldsType) throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1')
      throw new Error(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    const id = managerIdentifier(e);
    m.fields.set(id, {
      set: FieldSet.fromFieldsV1(e.fieldsV1 ?? {}),
      apiVersion: e.apiVersion,
      applied: e.operation === 'Apply',
    });
    m.times.set(id, e.time);
  });
  return m;
}

/** Parsed manager identifiers (a handful of distinct ones: one per client and operation). */
const identifiers = new Map<string, Readonly<ManagedFieldsEntry>>();
function parseIdentifier(id: string): Readonly<ManagedFieldsEntry> {
  let e = identifiers.get(id);
  if (!e) {
    e = JSON.parse(id) as ManagedFieldsEntry;
    // Bounded: identifiers come from request data (the manager name).
    if (identifiers.size >= 1024) identifiers.clear();
    identifiers.set(id, e);
  }
  return e;
}

/** encodeManagedFields, sorted as sortEncodedManagedFields does. */
function encodeManagedFields(m: Managed): ManagedFieldsEntry[] | undefined {
  if (m.fields.size === 0) return undefined;
  const out: ManagedFieldsEntry[] = [];
  for (const [id, vs] of m.fields) {
    const base = parseIdentifier(id);
    const e: ManagedFieldsEntry = {
      manager: base.manager,
      operation: vs.applied ? 'Apply' : (base.operation ?? 'Update'),
    };
    e.apiVersion = vs.apiVersion;
    const t = m.times.get(id);
    if (t) e.time = t;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = vs.set.toFieldsV1();
    if (base.subresource) e.subresource = base.subresource;
    if (!e.manager) delete e.manager;
    out.push(e);
  }
  const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  const cmp = (a = '', b = '') => (a < b ? -1 : a > b ? 1 : 0);
  if (out.length < 2) return out;
  return out.sort(
    (p, q) =>
      cmp(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager, q.manager) ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource, q.subresource),
  );
}

/** isResetManagedFields: `[]` or `[{}]` clears the managed fields. */
function isReset(mf: unknown): boolean {
  if (!Array.isArray(mf)) return false;
  if (mf.length === 0) return true;
  return mf.length === 1 && typeof mf[0] === 'object' && mf[0] !== null && Object.keys(mf[0]).length === 0;
}

function withoutManagedFields(obj: ManagedObject | undefined): JSONMap {
  const o = deepCopyJSON(obj ?? {}) as ManagedObject;
  if (o.metadata) delete o.metadata.managedFields;
  return o as JSONMap;
}

/** The object without metadata.managedFields for reading only (Compare): copies the two levels it changes. */
function viewWithoutManagedFields(obj: ManagedObject | undefined): JSONMap {
  if (!obj) return {};
  if (!obj.metadata || !Object.hasOwn(obj.metadata, 'managedFields')) return obj as JSONMap;
  const { managedFields: _mf, ...metadata } = obj.metadata;
  return { ...obj, metadata } as JSONMap;
}

export interface FieldManagerOptions {
  /** The kind's schema (OpenAPI v3); undefined: ObjectMeta known, everything else deduced. */
  schema?: TypeSchema;
  /** `v1`, `apps/v1`. */
  apiVersion: string;
  kind: string;
  subresource?: string;
  now?: () => Date;
  maxUpdateManagers?: number;
}

/** managedfields.FieldManager for one kind (one version). */
export class FieldManager {
  private readonly node: SchemaNode;
  private readonly apiVersion: string;
  private readonly kind: string;
  private readonly subresource: string;
  private readonly now: () => Date;
  private readonly maxUpdateManagers: number;

  constructor(o: FieldManagerOptions) {
    this.node = rootNode(o.schema);
    this.apiVersion = o.apiVersion;
    this.kind = o.kind;
    this.subresource = o.subresource ?? '';
    this.now = o.now ?? (() => new Date());
    this.maxUpdateManagers = o.maxUpdateManagers ?? DefaultMaxUpdateManagers;
  }

  /**
   * UpdateNoErrors: records `manager`'s Update of `live` (undefined on create) to `obj`, in place
   * on `obj` and returned. On any failure the managed fields are dropped, as upstream does.
   */
  update<T extends ManagedObject>(live: ManagedObject | undefined, obj: T, manager: string): T {
    try {
      let managed: Managed;
      const liveMF = live?.metadata?.managedFields;
      const newMF = obj.metadata?.managedFields;
      if (this.subresource) managed = this.decodeOrEmpty(liveMF);
      else if (isReset(newMF)) managed = { fields: new Map(), times: new Map() };
      else if (newMF === undefined) managed = this.decodeOrEmpty(liveMF);
      else {
        let fromNew: Managed | undefined;
        try {
          fromNew = decodeManagedFields(newMF);
        } catch {
          fromNew = undefined;
        }
        managed = fromNew && fromNew.fields.size > 0 ? fromNew : this.decodeOrEmpty(liveMF);
      }
      // Compare only reads them, so views do (no deep copies on every create and update).
      const liveV = viewWithoutManagedFields(live);
      const newV = viewWithoutManagedFields(obj);
      const id = this.identifier(manager, 'Update');
      const self = '\u0000current-operation';
      this.structuredUpdate(liveV, newV, managed, self);
      const vs = managed.fields.get(self);
      if (vs) {
        managed.fields.delete(self);
        vs.set = vs.set.difference(stripSet);
        if (!vs.set.empty()) {
          const prev = managed.fields.get(id);
          managed.fields.set(id, { ...vs, set: prev ? vs.set.union(prev.set) : vs.set });
          managed.times.set(id, formatTime(this.now()));
        }
      }
      this.capUpdateManagers(managed);
      this.setManagedFields(obj, managed);
    } catch {
      if (obj.metadata) delete obj.metadata.managedFields;
    }
    return obj;
  }

  /**
   * Apply: merges the applied configuration `patch` into `live` (undefined: the object is
   * created) for `manager`. Returns the new object with its managed fields.
   */
  apply(live: ManagedObject | undefined, patch: ManagedObject, manager: string, force: boolean): ManagedObject {
    // versioncheck.go
    const gvk = (apiVersion: string, kind: string) => {
      const i = apiVersion.indexOf('/');
      const [g, v] = i < 0 ? ['', apiVersion] : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
      return `${g}/${v}, Kind=${kind}`;
    };
    const pv = typeof patch.apiVersion === 'string' ? patch.apiVersion : '';
    const pk = typeof patch.kind === 'string' ? patch.kind : '';
    if (!pv && !pk) throw new FieldManagerError(`invalid object type: ${gvk('', '')}`, 400);
    if (pv !== this.apiVersion || pk !== this.kind)
      throw new FieldManagerError(
        `invalid object type: ${gvk(pv, pk)}, expected ${gvk(this.apiVersion, this.kind)}`,
        400,
      );
    if (patch.metadata?.managedFields !== undefined && patch.metadata.managedFields !== null)
      throw new FieldManagerError('metadata.managedFields must be nil', 400);
    const id = this.identifier(manager, 'Apply');
    const liveV = withoutManagedFields(live);
    const attempt = (force: boolean) => {
      let managed: Managed;
      try {
        managed = decodeManagedFields(live?.metadata?.managedFields);
      } catch (err) {
        throw new FieldManagerError(`failed to decode managed fields: ${(err as Error).message}`, 500);
      }
      try {
        return { managed, out: this.structuredApply(liveV, deepCopyJSON(patch) as JSONMap, managed, id, force) };
      } catch (err) {
        if (err instanceof FieldManagerError) throw err;
        if (err instanceof TypedError)
          throw new FieldManagerError(
            `failed to create typed patch object (${objectName(patch)}; ${gvk(this.apiVersion, this.kind)}): ${err.message}`,
            500,
          );
        throw err;
      }
    };
    let r: ReturnType<typeof attempt>;
    try {
      r = attempt(force);
    } catch (err) {
      // lastappliedmanager.go: kubectl upgrading from client-side apply takes, without a
      // conflict, the fields its last-applied annotation still matches.
      if (!(err instanceof FieldManagerError) || err.code !== 409 || manager !== 'kubectl') throw err;
      const allowed = this.allowedConflictsFromLastApplied(liveV);
      if (!allowed) throw err;
      const rest = err.rawConflicts!.filter((c) => !allowed.has(c.path));
      if (rest.length > 0) throw conflictError(rest);
      r = attempt(true);
    }
    const { managed, out } = r;
    const vs = managed.fields.get(id);
    if (vs) {
      vs.set = vs.set.difference(stripSet);
      if (vs.set.empty()) managed.fields.delete(id);
    }
    let result: ManagedObject;
    if (out !== undefined) {
      managed.times.set(id, formatTime(this.now()));
      result = out as ManagedObject;
    } else {
      result = liveV as ManagedObject;
    }
    // lastappliedupdater.go: kubectl's server-side apply keeps a client-side annotation current.
    if (manager === 'kubectl' && result.metadata?.annotations?.[LastAppliedConfigAnnotation]) {
      const last = deepCopyJSON(patch);
      if (last.metadata?.annotations) {
        delete last.metadata.annotations[LastAppliedConfigAnnotation];
        if (Object.keys(last.metadata.annotations).length === 0) delete last.metadata.annotations;
      }
      result.metadata.annotations[LastAppliedConfigAnnotation] = JSON.stringify(sortKeys(last));
    }
    this.setManagedFields(result, managed);
    return result;
  }

  /** The fields kubectl's last-applied annotation set and the live object still has as set. */
  private allowedConflictsFromLastApplied(live: JSONMap): FieldSet | undefined {
    const meta = live.metadata as ManagedObject['metadata'];
    const text = meta?.annotations?.[LastAppliedConfigAnnotation];
    if (!text) return undefined;
    let last: unknown;
    try {
      last = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (typeof last !== 'object' || last === null || (last as ManagedObject).apiVersion !== this.apiVersion)
      return undefined;
    try {
      const cmp = compare(last as JSONMap, live, this.node);
      return toFieldSet(last as JSONMap, this.node)
        .difference(cmp.modified)
        .difference(cmp.added)
        .difference(cmp.removed);
    } catch {
      return undefined;
    }
  }

  private decodeOrEmpty(entries: ManagedFieldsEntry[] | undefined): Managed {
    try {
      return decodeManagedFields(entries);
    } catch {
      return { fields: new Map(), times: new Map() };
    }
  }

  private identifier(manager: string, operation: 'Apply' | 'Update'): string {
    return managerIdentifier({
      manager,
      operation,
      apiVersion: this.apiVersion,
      subresource: this.subresource || undefined,
    });
  }

  private setManagedFields(obj: ManagedObject, managed: Managed): void {
    const encoded = encodeManagedFields(managed);
    obj.metadata ??= {};
    if (encoded) obj.metadata.managedFields = encoded;
    else delete obj.metadata.managedFields;
  }

  /** Updater.update: takes changed fields from other managers (or reports them as conflicts). */
  private takeOwnership(
    live: JSONMap,
    next: JSONMap,
    managed: Managed,
    workflow: string,
    force: boolean,
  ): ReturnType<typeof compare> {
    const cmp = compare(live, next, this.node);
    // Only other managers' sets are touched below: none (a create) leaves nothing to do.
    let others = false;
    for (const m of managed.fields.keys()) if (m !== workflow) others = true;
    if (!others) {
      if (managed.fields.get(workflow)?.set.empty()) managed.fields.delete(workflow);
      return cmp;
    }
    const changed = cmp.modified.union(cmp.added);
    const conflicts: Conflict[] = [];
    const conflictSets = new Map<string, FieldSet>();
    for (const [m, vs] of managed.fields) {
      if (m === workflow) continue;
      const c = vs.set.intersection(changed);
      if (!c.empty()) {
        conflictSets.set(m, c);
        for (const p of c.paths()) conflicts.push({ manager: m, path: p });
      }
    }
    if (!force && conflicts.length > 0) throw conflictError(conflicts);
    for (const [m, vs] of managed.fields) {
      if (m === workflow) continue;
      let s = vs.set;
      const c = conflictSets.get(m);
      if (c) s = s.difference(c);
      if (!cmp.removed.empty()) s = s.difference(cmp.removed);
      vs.set = s;
    }
    for (const [m, vs] of [...managed.fields]) if (vs.set.empty()) managed.fields.delete(m);
    return cmp;
  }

  /** Updater.Update. */
  private structuredUpdate(live: JSONMap, next: JSONMap, managed: Managed, manager: string): void {
    const cmp = this.takeOwnership(live, next, managed, manager, true);
    const prev = managed.fields.get(manager)?.set;
    // prev − removed ∪ modified ∪ added, without the copies of empty operands when there is no
    // prev (compare's sets are fresh and unshared).
    let set: FieldSet;
    if (prev) set = prev.difference(cmp.removed).union(cmp.modified).union(cmp.added);
    else if (cmp.modified.empty()) set = cmp.added;
    else if (cmp.added.empty()) set = cmp.modified;
    else set = cmp.modified.union(cmp.added);
    if (set.empty()) managed.fields.delete(manager);
    else managed.fields.set(manager, { set, apiVersion: this.apiVersion, applied: false });
  }

  /** Updater.Apply; undefined when the object does not change. */
  private structuredApply(
    live: JSONMap,
    config: JSONMap,
    managed: Managed,
    manager: string,
    force: boolean,
  ): JSONMap | undefined {
    let next = merge(live, config, this.node) as JSONMap;
    const lastSet = managed.fields.get(manager);
    const set = toFieldSet(config, this.node);
    managed.fields.set(manager, { set, apiVersion: this.apiVersion, applied: true });
    if (lastSet && !lastSet.set.empty()) next = this.prune(next, managed, lastSet.set);
    this.takeOwnership(live, next, managed, manager, force);
    if (deepEqual(live, next)) return undefined;
    return next;
  }

  /** Updater.prune: drops what the applier applied last time and nobody manages any more. */
  private prune(merged: JSONMap, managed: Managed, last: FieldSet): JSONMap {
    const n = this.node;
    const named = (s: FieldSet) => ensureNamedFieldsAreMembers(s, n);
    let pruned = removeItems(merged, named(last), n) as JSONMap;
    // addBackOwnedItems
    let all = new FieldSet();
    for (const vs of managed.fields.values()) all = all.union(vs.set);
    const mergedSet = named(toFieldSet(merged, n));
    pruned = removeItems(merged, mergedSet.difference(named(toFieldSet(pruned, n)).union(named(all))), n) as JSONMap;
    // addBackDanglingItems
    const prunedSet = named(toFieldSet(pruned, n));
    return removeItems(merged, mergedSet.difference(prunedSet).intersection(named(last)), n) as JSONMap;
  }

  /** capmanagers.go: the oldest Update entries beyond the cap merge into `ancient-changes`. */
  private capUpdateManagers(managed: Managed): void {
    let count = 0;
    for (const vs of managed.fields.values()) if (!vs.applied) count++;
    if (count <= this.maxUpdateManagers) return;
    const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([m]) => m);
    const seconds = (m: string) => {
      const t = managed.times.get(m);
      return t ? Math.floor(Date.parse(t) / 1000) : 0;
    };
    updaters.sort((a, b) => seconds(a) - seconds(b) || (a < b ? -1 : a > b ? 1 : 0));
    const first = new Map<string, string>();
    let length = updaters.length;
    for (let i = 0; i < updaters.length && length > this.maxUpdateManagers; i++) {
      const m = updaters[i]!;
      const vs = managed.fields.get(m)!;
      const bucket = managerIdentifier({ manager: 'ancient-changes', operation: 'Update', apiVersion: vs.apiVersion });
      const f = first.get(vs.apiVersion);
      if (f === undefined) {
        first.set(vs.apiVersion, m);
        continue;
      }
      if (!managed.fields.has(bucket)) {
        const s = managed.fields.get(f)!;
        managed.fields.delete(f);
        managed.fields.set(bucket, s);
      }
      const b = managed.fields.get(bucket)!;
      managed.fields.set(bucket, { set: vs.set.union(b.set), apiVersion: vs.apiVersion, applied: vs.applied });
      managed.fields.delete(m);
      length--;
      managed.times.set(bucket, managed.times.get(m));
    }
  }
}

/** objectGVKNN's `<namespace>/<name>` (structuredmerge.go). */
function objectName(o: ManagedObject): string {
  const ns = typeof o.metadata?.namespace === 'string' ? o.metadata.namespace : '';
  const name = typeof o.metadata?.name === 'string' ? o.metadata.name : '';
  return `${ns}/${name}`;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}

/** printManager: an entry's manager, with `using <apiVersion>` for an Update (and its time). */
function printManager(id: string): string {
  let e: ManagedFieldsEntry;
  try {
    e = JSON.parse(id) as ManagedFieldsEntry;
  } catch {
    return JSON.stringify(id);
  }
  let s = JSON.stringify(e.manager ?? '');
  if (e.subresource) s = `${s} with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') return `${s} using ${e.apiVersion ?? ''}`;
  return s;
}

/** internal/conflict.go NewConflictError: message and one cause per field. */
function conflictError(conflicts: Conflict[]): FieldManagerError {
  let message: string;
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    message = `Apply failed with 1 conflict: conflict with ${printManager(c.manager)}: ${pathString(c.path)}`;
  } else {
    const by = new Map<string, string[]>();
    for (const c of conflicts) {
      const l = by.get(c.manager) ?? [];
      l.push(pathString(c.path));
      by.set(c.manager, l);
    }
    const lines: string[] = [];
    for (const m of [...by.keys()].sort()) {
      lines.push(`conflicts with ${printManager(m)}:`);
      for (const p of by.get(m)!) lines.push(`- ${p}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new FieldManagerError(
    message,
    409,
    conflicts.map((c) => ({ ...c, manager: printManager(c.manager) })),
    conflicts,
  );
}

export type { JSONValue };
