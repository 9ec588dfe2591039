// The RBAC objects in storage as the authorizer's policy, and the work upstream does around them:
// the rbac/bootstrap-roles reconciliation (pkg/registry/rbac/rest/storage_rbac.go PostStartHook),
// the manifests of --authorization-rbac-manifests applied as objects, and the ClusterRole
// aggregation controller (pkg/controller/clusterroleaggregation). Started when the resources are
// installed, not by a post-start hook: servers used through fetch() alone never run hooks, and
// their /readyz shows `poststarthook/rbac/bootstrap-roles` as upstream's once reconciliation is
// done (BootstrapReadiness).

import { Policy, labelSelectorMatches, type LabelSelector, type RBACObject } from '../../authorization/rbac-policy.ts';
import type { RBACAuthorizer } from '../../authorization/rbac.ts';
import type { ManifestLoader } from '../../authorization/rbac-loader.ts';
import { bootstrapPolicy } from '../../authorization/rbac-bootstrap.ts';
import type { Logger } from '../../util/logger.ts';
import type { KubeObject } from '../generic/store.ts';
import { Informer } from './informer.ts';
import { applyObject, deleteObject, reconcileObject, type RBACStores } from './reconcile.ts';
import { deepCopyJSON } from '../../util/deepcopy.ts';

const kinds = ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'] as const;
type Kind = (typeof kinds)[number];

/** The readiness of the bootstrap reconciliation, shown as `poststarthook/rbac/bootstrap-roles`. */
export class BootstrapReadiness {
  private done = false;
  private resolveDone!: () => void;
  private readonly whenDone = new Promise<void>((r) => (this.resolveDone = r));
  /** How long a readiness check waits for a reconciliation under way (ms). */
  waitMs = 2000;
  /** Set when reconciled, or when there is nothing to reconcile (the policy is the built-in one). */
  markDone(): void {
    this.done = true;
    this.resolveDone();
  }
  get isDone(): boolean {
    return this.done;
  }
  /**
   * A health check function: fails until done. A check during start-up waits briefly for the
   * reconciliation (in process it takes milliseconds), so an embedder's first /readyz is not red
   * for a race it cannot see; storage trouble still turns it red after `waitMs`.
   */
  check = async (): Promise<void> => {
    if (this.done) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((r) => (timer = setTimeout(r, this.waitMs)));
    await Promise.race([this.whenDone, timeout]);
    clearTimeout(timer);
    if (!this.done) throw new Error('not finished');
  };
}

export interface RBACPolicyControllerOptions {
  stores: RBACStores;
  authorizer: RBACAuthorizer;
  readiness: BootstrapReadiness;
  loader?: ManifestLoader;
  logger: Logger;
  /** Reconcile the built-in bootstrap policy (default true). */
  bootstrap?: boolean;
  /** Retry delay of the reconciliation when storage fails, ms. */
  retryMs?: number;
}

/** Runs the informers, the reconciliation and the aggregation controller until `signal` aborts. */
export class RBACPolicyController {
  readonly informers: Record<Kind, Informer>;
  private readonly o: RBACPolicyControllerOptions;
  private dirty = true;
  private policy = new Policy();
  private aggregateScheduled = false;
  private signal?: AbortSignal;
  /** Keys written from the manifests (so that a reload can delete what they no longer list). */
  private manifestKeys = new Set<string>();

  constructor(o: RBACPolicyControllerOptions) {
    this.o = o;
    const onChange = (kind: Kind) => () => {
      this.dirty = true;
      if (kind === 'ClusterRole') this.scheduleAggregation();
    };
    this.informers = {
      ClusterRole: new Informer(o.stores.ClusterRole, { onChange: onChange('ClusterRole'), logger: o.logger }),
      ClusterRoleBinding: new Informer(o.stores.ClusterRoleBinding, {
        onChange: onChange('ClusterRoleBinding'),
        logger: o.logger,
      }),
      Role: new Informer(o.stores.Role, { onChange: onChange('Role'), logger: o.logger }),
      RoleBinding: new Informer(o.stores.RoleBinding, { onChange: onChange('RoleBinding'), logger: o.logger }),
    };
  }

  /** The policy of the objects the informers hold, rebuilt after a change. */
  currentPolicy = (): Policy => {
    if (this.dirty) {
      this.dirty = false;
      const objects: RBACObject[] = [];
      for (const kind of kinds) for (const o of this.informers[kind].list()) objects.push(asRBACObject(kind, o));
      this.policy = Policy.from(objects, { aggregate: false });
    }
    return this.policy;
  };

  async run(signal: AbortSignal): Promise<void> {
    this.signal = signal;
    const running = kinds.map((k) => this.informers[k].run(signal));
    await this.reconcileUntilDone(signal);
    if (signal.aborted) return;
    await Promise.all(kinds.map((k) => this.informers[k].synced));
    this.o.authorizer.useSource(this.currentPolicy);
    this.o.readiness.markDone();
    this.scheduleAggregation();
    await Promise.all(running);
  }

  private async reconcileUntilDone(signal: AbortSignal): Promise<void> {
    for (;;) {
      try {
        await this.reconcile();
        return;
      } catch (err) {
        this.o.logger.error('Unable to reconcile the RBAC bootstrap policy; retrying', {
          err: err instanceof Error ? err.message : String(err),
        });
      }
      if (signal.aborted) return;
      await new Promise((r) => setTimeout(r, this.o.retryMs ?? 1000));
      if (signal.aborted) return;
    }
  }

  private async reconcile(): Promise<void> {
    if (this.o.bootstrap !== false) {
      const start = Date.now();
      const counts = { created: 0, updated: 0, none: 0 };
      // Upstream's hook writes the kinds in this order (roles before the bindings that name
      // them); within a kind the objects are independent, so a few are written at once: over
      // etcd each write is a round trip, and the policy has 131 objects.
      const policy = bootstrapPolicy();
      for (const kind of ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'] as const) {
        // A read per object, not one list per kind: that list hung the workerd conformance
        // run's readiness (1471f78).
        await eachLimit(
          policy.filter((o) => o.kind === kind),
          reconcileConcurrency,
          async (expected) => {
            const r = await reconcileObject(this.o.stores, expected);
            counts[r]++;
            if (r !== 'none')
              this.o.logger.info(
                `${r} ${expected.kind.toLowerCase()}.rbac.authorization.k8s.io/${expected.metadata.name}`,
                undefined,
                2,
              );
          },
        );
      }
      this.o.logger.info(
        'Reconciled the RBAC bootstrap policy',
        { created: counts.created, updated: counts.updated, unchanged: counts.none, ms: Date.now() - start },
        1,
      );
    }
    const loader = this.o.loader;
    if (loader) {
      await this.applyManifests(loader.objects);
      loader.setSink((objects) => this.applyManifests(objects));
    }
  }

  /** Applies the manifests' objects; deletes those an earlier load wrote and this one no longer lists. */
  private async applyManifests(objects: readonly RBACObject[]): Promise<void> {
    const keys = new Set<string>();
    for (const o of objects) {
      await applyObject(this.o.stores, o);
      keys.add(`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    }
    for (const k of this.manifestKeys) {
      if (keys.has(k)) continue;
      const [kind, ns, name] = k.split('/') as [Kind, string, string];
      await deleteObject(this.o.stores, kind, ns, name);
    }
    this.manifestKeys = keys;
  }

  // --- aggregation (pkg/controller/clusterroleaggregation) ---

  private scheduleAggregation(): void {
    if (this.aggregateScheduled || !this.o.readiness.isDone) return;
    this.aggregateScheduled = true;
    setTimeout(() => {
      this.aggregateScheduled = false;
      if (this.signal?.aborted) return;
      void this.aggregate().catch((err: unknown) =>
        this.o.logger.error('ClusterRole aggregation failed', {
          err: err instanceof Error ? err.message : String(err),
        }),
      );
    }, 0);
  }

  /** syncClusterRole for every aggregated ClusterRole: rules = the union of the selected roles' rules. */
  async aggregate(): Promise<void> {
    const roles = this.informers.ClusterRole.list().sort((a, b) => cmp(a.metadata.name ?? '', b.metadata.name ?? ''));
    for (const role of roles) {
      const rule = role.aggregationRule as { clusterRoleSelectors?: LabelSelector[] } | undefined;
      if (!rule) continue;
      const rules: unknown[] = [];
      const seen = new Set<string>();
      for (const sel of rule.clusterRoleSelectors ?? []) {
        for (const other of roles) {
          if (other.metadata.name === role.metadata.name) continue;
          if (!labelSelectorMatches(sel, other.metadata.labels)) continue;
          for (const r of (other.rules as unknown[] | undefined) ?? []) {
            const k = JSON.stringify(r);
            if (seen.has(k)) continue;
            seen.add(k);
            rules.push(r);
          }
        }
      }
      if (JSON.stringify(rules) === JSON.stringify(role.rules ?? [])) continue;
      const next = deepCopyJSON(role);
      next.rules = rules;
      try {
        await this.o.stores.ClusterRole.update(role.metadata.name!, next, { namespace: '' });
      } catch (err) {
        // A conflict or a deleted role: its watch event schedules another pass (no retry loop here).
        this.o.logger.info('ClusterRole aggregation write failed', { name: role.metadata.name, err: String(err) }, 2);
      }
    }
  }
}

/** How many bootstrap objects are reconciled at once. */
const reconcileConcurrency = 16;

/** Runs `fn` over `items`, at most `limit` at a time; rejects with the first failure. */
async function eachLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function asRBACObject(kind: Kind, o: KubeObject): RBACObject {
  if (kind === 'Role' || kind === 'ClusterRole')
    return { ...(o as object), kind, rules: (o.rules as never) ?? [] } as unknown as RBACObject;
  return { ...(o as object), kind, subjects: (o.subjects as never) ?? [] } as unknown as RBACObject;
}
