// Bootstrap policy reconciliation (kubernetes pkg/registry/rbac/reconciliation and the
// rbac/bootstrap-roles hook of pkg/registry/rbac/rest/storage_rbac.go): a missing object is
// created; an existing one gains the expected labels, annotations, rules, aggregation selectors
// and subjects it lacks (the union, nothing removed), unless annotated
// `rbac.authorization.kubernetes.io/autoupdate: "false"`; a binding whose roleRef differs is
// recreated. Manifest objects (--authorization-rbac-manifests) are applied as written.

import { StatusError } from '../../endpoints/responsewriters/status.ts';
import type { RBACObject, RoleBinding } from '../../authorization/rbac-policy.ts';
import type { KubeObject, Store } from '../generic/store.ts';
import { covers, type PolicyRule } from './escalation.ts';
import { rbacGroup } from './resources.ts';
import { deepCopyJSON } from '../../util/deepcopy.ts';

export const autoUpdateAnnotation = 'rbac.authorization.kubernetes.io/autoupdate';

/** The four stores, by kind. */
export interface RBACStores {
  Role: Store;
  ClusterRole: Store;
  RoleBinding: Store;
  ClusterRoleBinding: Store;
}

const reason = (err: unknown) => (err instanceof StatusError ? err.status.reason : undefined);

function merge(expected: Record<string, string> | undefined, existing: Record<string, string> | undefined) {
  return { ...expected, ...existing };
}

const sameJSON = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** computeReconciledRole / computeReconciledRoleBinding (union mode); undefined: nothing to do. */
export function reconciled(
  existing: KubeObject,
  expected: RBACObject,
): { op: 'update' | 'recreate'; object: KubeObject } | undefined {
  if (existing.metadata.annotations?.[autoUpdateAnnotation] === 'false') return undefined;
  if (expected.kind === 'RoleBinding' || expected.kind === 'ClusterRoleBinding') {
    if (!sameJSON(existing.roleRef, expected.roleRef)) return { op: 'recreate', object: toObject(expected) };
  }
  const out = deepCopyJSON(existing);
  let changed = false;
  const annotations = merge(expected.metadata.annotations, existing.metadata.annotations);
  const labels = merge(expected.metadata.labels, existing.metadata.labels);
  if (!sameJSON(annotations, existing.metadata.annotations ?? {})) changed = true;
  if (!sameJSON(labels, existing.metadata.labels ?? {})) changed = true;
  out.metadata.annotations = annotations;
  out.metadata.labels = labels;
  if (expected.kind === 'Role' || expected.kind === 'ClusterRole') {
    const have = (Array.isArray(existing.rules) ? existing.rules : []) as PolicyRule[];
    const [, missing] = covers(have, expected.rules as PolicyRule[]);
    if (missing.length) {
      out.rules = [...have, ...missing];
      changed = true;
    }
    const want = expected.aggregationRule?.clusterRoleSelectors;
    const agg = existing.aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined;
    if (!expected.aggregationRule && agg) {
      delete out.aggregationRule;
      changed = true;
    } else if (want) {
      const haveSel = agg?.clusterRoleSelectors ?? [];
      const missingSel = want.filter((s) => !haveSel.some((h) => sameJSON(h, s)));
      if (missingSel.length) {
        out.aggregationRule = { clusterRoleSelectors: [...haveSel, ...missingSel] };
        changed = true;
      }
    }
  } else {
    const have = (Array.isArray(existing.subjects) ? existing.subjects : []) as unknown[];
    const missing = (expected as RoleBinding).subjects.filter(
      (s) => !have.some((h) => sameJSON(normSubject(h), normSubject(s))),
    );
    if (missing.length) {
      out.subjects = [...have, ...missing];
      changed = true;
    }
  }
  return changed ? { op: 'update', object: out } : undefined;
}

function normSubject(s: unknown): unknown {
  const o = (s ?? {}) as Record<string, unknown>;
  return [o.kind, o.apiGroup ?? '', o.name, o.namespace ?? ''];
}

/** The object as it is stored (apiVersion and kind set, a fresh copy). */
export function toObject(o: RBACObject): KubeObject {
  const out = { apiVersion: `${rbacGroup}/v1`, ...deepCopyJSON(o) } as unknown as KubeObject;
  // `subjects` is omitempty upstream (the bootstrap system:node binding has none).
  if (Array.isArray(out.subjects) && out.subjects.length === 0) delete out.subjects;
  return out;
}

/** Creates or reconciles one expected object; retries on conflicts as upstream's run(attempts). */
export async function reconcileObject(
  stores: RBACStores,
  expected: RBACObject,
  /** The stored object from a list just made (null: known to be missing), saving the first read. */
  known?: KubeObject | null,
): Promise<'created' | 'updated' | 'none'> {
  const store = stores[expected.kind];
  const ns = expected.metadata.namespace ?? '';
  const name = expected.metadata.name;
  for (let attempt = 0; attempt < 3; attempt++) {
    let existing: KubeObject | undefined;
    if (attempt === 0 && known !== undefined) existing = known ?? undefined;
    else
      try {
        existing = await store.get(ns, name);
      } catch (err) {
        if (reason(err) !== 'NotFound') throw err;
      }
    try {
      if (!existing) {
        await store.create(toObject(expected), { namespace: ns });
        return 'created';
      }
      const r = reconciled(existing, expected);
      if (!r) return 'none';
      if (r.op === 'recreate') {
        await store.delete(name, { namespace: ns, preconditions: { uid: existing.metadata.uid } });
        await store.create(r.object, { namespace: ns });
      } else await store.update(name, r.object, { namespace: ns });
      return 'updated';
    } catch (err) {
      const why = reason(err);
      if (why === 'AlreadyExists' || why === 'Conflict' || why === 'NotFound') continue;
      throw err;
    }
  }
  throw new Error(`unable to reconcile ${expected.kind} ${JSON.stringify(name)}: too many conflicts`);
}

/** Writes a manifest object as given (create, or replace the content of the existing one). */
export async function applyObject(stores: RBACStores, o: RBACObject): Promise<void> {
  const store = stores[o.kind];
  const ns = o.metadata.namespace ?? '';
  for (let attempt = 0; attempt < 3; attempt++) {
    let existing: KubeObject | undefined;
    try {
      existing = await store.get(ns, o.metadata.name);
    } catch (err) {
      if (reason(err) !== 'NotFound') throw err;
    }
    try {
      const obj = toObject(o);
      if (!existing) await store.create(obj, { namespace: ns });
      else if (
        (o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding') &&
        !sameJSON(existing.roleRef, o.roleRef)
      ) {
        await store.delete(o.metadata.name, { namespace: ns, preconditions: { uid: existing.metadata.uid } });
        await store.create(obj, { namespace: ns });
      } else {
        obj.metadata = { ...existing.metadata, labels: o.metadata.labels, annotations: o.metadata.annotations };
        if (!o.metadata.labels) delete obj.metadata.labels;
        if (!o.metadata.annotations) delete obj.metadata.annotations;
        await store.update(o.metadata.name, obj, { namespace: ns });
      }
      return;
    } catch (err) {
      const why = reason(err);
      if (why === 'AlreadyExists' || why === 'Conflict' || why === 'NotFound') continue;
      throw err;
    }
  }
  throw new Error(`unable to apply ${o.kind} ${JSON.stringify(o.metadata.name)}: too many conflicts`);
}

/** Deletes an object a manifest no longer lists (ignores one already gone). */
export async function deleteObject(
  stores: RBACStores,
  kind: RBACObject['kind'],
  namespace: string,
  name: string,
): Promise<void> {
  try {
    await stores[kind].delete(name, { namespace });
  } catch (err) {
    if (reason(err) !== 'NotFound') throw err;
  }
}
