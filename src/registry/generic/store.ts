// The generic registry Store (k8s.io/apiserver/pkg/registry/generic/registry/store.go) with the
// create/update/delete hooks of k8s.io/apiserver/pkg/registry/rest/{create,update,delete}.go:
// system fields, generateName, strategy validation (422 Invalid), optimistic concurrency (409),
// finalizers and deletionTimestamp, preconditions and dry run, over one resource's storage.Interface.

import {
  newBadRequest,
  newConflict,
  newInvalid,
  newNotFound,
  OptimisticLockErrorMsg,
  type GroupResource,
} from '../../endpoints/apierrors.ts';
import { StatusError } from '../../endpoints/responsewriters/status.ts';
import {
  interpretCreateError,
  interpretDeleteError,
  interpretGetError,
  interpretListError,
  interpretUpdateError,
  interpretWatchError,
  isExist,
  newKeyExistsError,
} from '../../storage/errors.ts';
import type { FieldLabelConversionFunc } from './fieldlabels.ts';
import type {
  AttrFunc,
  Interface,
  ListOptions,
  ListResult,
  Preconditions,
  StorageObject,
  WatchInterface,
} from '../../storage/interfaces.ts';
import { namespaceKeyFunc, namespaceKeyRootFunc, noNamespaceKeyFunc } from '../../storage/keys.ts';
import { invalid, Path, type ErrorList } from '../../util/validation/field.ts';
import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMeta } from '../../util/validation/objectmeta.ts';
import { nameIsDNSSubdomain, type ValidateNameFunc } from '../../util/validation/validation.ts';
import type { TableConvertor } from './table.ts';
import { deepCopyJSON } from '../../util/deepcopy.ts';
import { formatTime } from '../../util/metatime.ts';
import { appendAll } from '../../util/append.ts';
import type { MaybePromise } from '../../util/maybe-promise.ts';

/** A Kubernetes object as the registry handles it: JSON with ObjectMeta. */
export interface KubeObject extends StorageObject {
  metadata: ObjectMeta & StorageObject['metadata'];
}

/** RESTCreateStrategy + RESTUpdateStrategy + RESTDeleteStrategy of one resource. */
export interface Strategy {
  namespaceScoped: boolean;
  /** The name rule ValidateObjectMeta applies (default: DNS-1123 subdomain). */
  validateName?: ValidateNameFunc;
  /** PrepareForCreate: clear status, set defaults. */
  prepareForCreate?(obj: KubeObject): void;
  /** Validate, beyond ObjectMeta (which the store checks). */
  validate?(obj: KubeObject): ErrorList;
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  validateUpdate?(obj: KubeObject, old: KubeObject): ErrorList;
  /** Canonicalize: normalise after validation. */
  canonicalize?(obj: KubeObject): void;
  allowCreateOnUpdate?: boolean;
  /** ShouldDeleteDuringUpdate (default: being deleted and no finalizers left). */
  shouldDeleteDuringUpdate?(obj: KubeObject): boolean;
  /**
   * The update strategies of subresources (`status`, `finalize`): what an update through them may
   * change (upstream's statusStrategy and finalizeStrategy). Never create on update.
   */
  subresources?: Record<string, Pick<Strategy, 'prepareForUpdate' | 'validateUpdate'>>;
  allowUnconditionalUpdate?: boolean;
  /** Field selector attributes beyond metadata.name/namespace. */
  getAttrs?: AttrFunc;
  /** The field selectors the kind accepts (default: metadata.name and metadata.namespace; fieldlabels.ts). */
  convertFieldLabel?: FieldLabelConversionFunc;
}

export interface StoreConfig {
  /** The resource (`configmaps`) and its group (`""` for core). */
  qualifiedResource: GroupResource;
  /** `v1`, `coordination.k8s.io/v1`. */
  apiVersion: string;
  kind: string;
  listKind: string;
  strategy: Strategy;
  /** The resource's storage and the key prefix its keys start with (`/configmaps`). */
  storage: Interface;
  resourcePrefix: string;
  tableConvertor?: TableConvertor;
  /** Clock and randomness (tests). */
  now?: () => Date;
  hooks?: StoreHooks;
}

/** Store's BeginCreate / AfterDelete / TTLFunc: what a resource does around its writes (allocators, TTLs). */
export interface StoreHooks {
  /**
   * After validation, before the write (upstream runs it first; here the object is defaulted and valid):
   * allocate what the object needs; the returned finish runs with the write's outcome.
   */
  beginCreate?(obj: KubeObject, opts: { dryRun: boolean }): Promise<((success: boolean) => Promise<void>) | void>;
  /** After an object left storage (not on dry run). */
  afterDelete?(obj: KubeObject): Promise<void>;
  /** TTLFunc: the TTL in seconds of a create or update (0: none). */
  ttl?(obj: KubeObject, update: boolean): number;
}

/** rest.ValidateObjectFunc: validating admission on the object about to be stored. */
export type ValidateObjectFunc = (obj: KubeObject) => Promise<void> | void;

/** Admission inside an update: `old` is undefined when the update creates the object. */
export type UpdateAdmissionFunc = (obj: KubeObject, old: KubeObject | undefined) => Promise<void> | void;

export interface CreateOptions {
  namespace: string;
  dryRun?: boolean;
  /** createValidation: runs after the strategy, before the write. */
  validation?: ValidateObjectFunc;
  /** The caller never changes the returned object (it may be the one the watch cache keeps). */
  readOnly?: boolean;
}

export interface UpdateOptions {
  namespace: string;
  dryRun?: boolean;
  /** Create the object when it does not exist even if the strategy does not allow it (server-side apply). */
  forceAllowCreate?: boolean;
  /** Update through a subresource's strategy (`status`, `finalize`). */
  subresource?: string;
  /** Mutating admission on the new object with the stored one (upstream: objInfo's transformers). */
  admit?: UpdateAdmissionFunc;
  /** updateValidation (or createValidation, on create-on-update): after the strategy, before the write. */
  validation?: UpdateAdmissionFunc;
  /** The caller never changes the returned object (it may be the one the watch cache keeps). */
  readOnly?: boolean;
}

/**
 * rest.UpdatedObjectInfo: the new object, or a function computing it from the stored one
 * (undefined when there is none) that runs inside the optimistic update loop, so a patch is
 * re-applied after a conflicting write. The function gets a copy it may change.
 */
export type UpdatedObject = KubeObject | ((existing: KubeObject | undefined) => KubeObject);

export interface DeleteOptions {
  namespace: string;
  dryRun?: boolean;
  /** deleteValidation: on the stored object, after the preconditions, before anything is written. */
  validation?: ValidateObjectFunc;
  preconditions?: Preconditions;
  /** metav1.DeletionPropagation: Orphan | Background | Foreground. */
  propagationPolicy?: string;
}

export type DeleteResult = { deleted: true; object: KubeObject } | { deleted: false; object: KubeObject };

// names.SimpleNameGenerator (k8s.io/apiserver/pkg/storage/names/generate.go).
const randomAlphabet = 'bcdfghjklmnpqrstvwxz2456789';
const maxNameLength = 63;
const randomLength = 5;
const maxGeneratedNameLength = maxNameLength - randomLength;
/** Tries of a generateName create before giving up (upstream RetryGenerateName: 8). */
const generateNameRetries = 8;

/**
 * Upstream draws the suffix from math/rand (utilrand.String), not crypto/rand: a generated name
 * is unique by the create's conflict retry, not by being unguessable. Math.random is that
 * generator here (crypto.getRandomValues cost a create ~10 µs of OpenSSL under load).
 */
export function generateName(base: string): string {
  if (base.length > maxGeneratedNameLength) base = base.slice(0, maxGeneratedNameLength);
  let s = '';
  for (let i = 0; i < randomLength; i++) s += randomAlphabet[Math.floor(Math.random() * randomAlphabet.length)];
  return base + s;
}

const FinalizerOrphanDependents = 'orphan';
const FinalizerDeleteDependents = 'foregroundDeletion';

export class Store {
  readonly qualifiedResource: GroupResource;
  readonly apiVersion: string;
  readonly kind: string;
  readonly listKind: string;
  readonly strategy: Strategy;
  readonly storage: Interface;
  readonly tableConvertor?: TableConvertor;
  private readonly resourcePrefix: string;
  private readonly now: () => Date;
  readonly hooks: StoreHooks;

  constructor(c: StoreConfig) {
    this.hooks = c.hooks ?? {};
    this.qualifiedResource = c.qualifiedResource;
    this.apiVersion = c.apiVersion;
    this.kind = c.kind;
    this.listKind = c.listKind;
    this.strategy = c.strategy;
    this.storage = c.storage;
    this.resourcePrefix = c.resourcePrefix;
    this.tableConvertor = c.tableConvertor;
    this.now = c.now ?? (() => new Date());
  }

  get namespaceScoped(): boolean {
    return this.strategy.namespaceScoped;
  }

  private get groupKind() {
    return { group: this.qualifiedResource.group, kind: this.kind };
  }

  /** KeyRootFunc: the collection, narrowed to a namespace for namespaced resources. */
  keyRoot(namespace: string): string {
    return this.namespaceScoped ? namespaceKeyRootFunc(namespace, this.resourcePrefix) : this.resourcePrefix;
  }

  /** KeyFunc. */
  key(namespace: string, name: string): string {
    return this.namespaceScoped
      ? namespaceKeyFunc(namespace, this.resourcePrefix, name)
      : noNamespaceKeyFunc(this.resourcePrefix, name);
  }

  /**
   * `readOnly`: the caller never changes the object (it may be the watch cache's, shared).
   * Synchronous when storage's read is (MaybePromise).
   */
  get(namespace: string, name: string, resourceVersion?: string, readOnly = false): MaybePromise<KubeObject> {
    try {
      const got = this.storage.get(
        this.key(namespace, name),
        readOnly ? { resourceVersion, readOnly } : { resourceVersion },
      ) as MaybePromise<KubeObject>;
      return got instanceof Promise ? got.catch((err) => this.getError(err, name)) : got;
    } catch (err) {
      return this.getError(err, name);
    }
  }

  private getError(err: unknown, name: string): Promise<never> {
    return Promise.reject(interpretGetError(err, this.qualifiedResource, name));
  }

  async list(namespace: string, opts: ListOptions): Promise<ListResult<KubeObject>> {
    try {
      return (await this.storage.getList(this.keyRoot(namespace), {
        ...opts,
        recursive: true,
      })) as ListResult<KubeObject>;
    } catch (err) {
      throw interpretListError(err, this.qualifiedResource);
    }
  }

  async watch(namespace: string, opts: ListOptions): Promise<WatchInterface> {
    const name = opts.predicate?.matchesSingle();
    try {
      if (name !== undefined) return await this.storage.watch(this.key(namespace, name), { ...opts, recursive: false });
      return await this.storage.watch(this.keyRoot(namespace), { ...opts, recursive: true });
    } catch (err) {
      throw interpretWatchError(err, this.qualifiedResource, name ?? '');
    }
  }

  /** rest.BeforeCreate + Store.Create. */
  async create(obj: KubeObject, opts: CreateOptions): Promise<KubeObject> {
    this.beforeCreate(obj, opts.namespace);
    const generated = !obj.metadata.name && !!obj.metadata.generateName;
    for (let attempt = 0; ; attempt++) {
      if (generated) obj.metadata.name = generateName(obj.metadata.generateName!);
      this.validateCreate(obj);
      await opts.validation?.(obj);
      const name = obj.metadata.name!;
      const key = this.key(obj.metadata.namespace ?? '', name);
      const finish = (await this.hooks.beginCreate?.(obj, { dryRun: !!opts.dryRun })) ?? undefined;
      if (opts.dryRun) {
        // DryRunnableStorage.Create: the key must not exist.
        const existing = await this.storage.get(key, { ignoreNotFound: true });
        await finish?.(false);
        if (existing) throw interpretCreateError(newKeyExistsError(key, 0), this.qualifiedResource, name);
        return obj;
      }
      try {
        const ttl = this.hooks.ttl?.(obj, false) ?? 0;
        const out = (await this.storage.create(
          key,
          obj,
          ttl,
          opts.readOnly ? { readOnly: true } : undefined,
        )) as KubeObject;
        await finish?.(true);
        return out;
      } catch (err) {
        await finish?.(false);
        if (generated && isExist(err) && attempt + 1 < generateNameRetries) continue;
        throw await this.createError(err, key, name);
      }
    }
  }

  private async createError(err: unknown, key: string, name: string): Promise<unknown> {
    const out = interpretCreateError(err, this.qualifiedResource, name);
    if (out instanceof StatusError && out.status.reason === 'AlreadyExists') {
      // store.go: a name held by an object being deleted says so.
      const existing = (await Promise.resolve(this.storage.get(key, { ignoreNotFound: true })).catch(
        () => undefined,
      )) as KubeObject | undefined;
      if (existing?.metadata?.deletionTimestamp) out.status.message = `object is being deleted: ${out.status.message}`;
    }
    return out;
  }

  // rest.ValidNamespace: the request's namespace fills in or must match the object's; cluster-scoped objects have none.
  private setNamespace(meta: ObjectMeta, namespace: string): void {
    if (!this.namespaceScoped) delete meta.namespace;
    else if (!meta.namespace) meta.namespace = namespace;
    else if (namespace && meta.namespace !== namespace)
      throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
  }

  private beforeCreate(obj: KubeObject, namespace: string): void {
    obj.metadata ??= {};
    const meta = obj.metadata;
    this.setNamespace(meta, namespace);
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.resourceVersion;
    this.strategy.prepareForCreate?.(obj);
    // FillObjectMetaSystemFields.
    meta.creationTimestamp = formatTime(this.now());
    meta.uid = crypto.randomUUID();
    delete meta.selfLink;
  }

  private validateCreate(obj: KubeObject): void {
    const errs = validateObjectMeta(
      obj.metadata,
      this.namespaceScoped,
      this.strategy.validateName ?? nameIsDNSSubdomain,
    );
    appendAll(errs, this.strategy.validate?.(obj) ?? []);
    if (errs.length) throw newInvalid(this.groupKind, obj.metadata.name ?? '', errs);
    this.strategy.canonicalize?.(obj);
  }

  /** Store.Update: optimistic concurrency on metadata.resourceVersion, create-on-update where allowed. */
  async update(
    name: string,
    updated: UpdatedObject,
    opts: UpdateOptions,
  ): Promise<{ object: KubeObject; created: boolean }> {
    const key = this.key(opts.namespace, name);
    let created = false;
    const tryUpdate = async (existing: KubeObject | undefined): Promise<KubeObject> => {
      created = false;
      const obj = typeof updated === 'function' ? updated(existing && deepCopyJSON(existing)) : updated;
      obj.metadata ??= {};
      const newRV = obj.metadata.resourceVersion ?? '';
      if (!existing) {
        if ((!this.strategy.allowCreateOnUpdate && !opts.forceAllowCreate) || opts.subresource)
          throw newNotFound(this.qualifiedResource, name);
        if (newRV) throw newNotFound(this.qualifiedResource, name);
        const fresh = deepCopyJSON(obj);
        await opts.admit?.(fresh, undefined);
        this.beforeCreate(fresh, opts.namespace);
        this.validateCreate(fresh);
        await opts.validation?.(fresh, undefined);
        created = true;
        return fresh;
      }
      const next = deepCopyJSON(obj);
      await opts.admit?.(next, existing);
      const existingRV = existing.metadata.resourceVersion ?? '';
      if (!newRV) {
        if (!this.strategy.allowUnconditionalUpdate)
          throw newInvalid(this.groupKind, name, [
            invalid(Path.of('metadata', 'resourceVersion'), 0, 'must be specified for an update'),
          ]);
        next.metadata.resourceVersion = existingRV;
      } else if (newRV !== existingRV) {
        throw newConflict(this.qualifiedResource, name, new Error(OptimisticLockErrorMsg));
      }
      this.beforeUpdate(next, existing, opts.namespace, opts.subresource);
      await opts.validation?.(next, existing);
      return next;
    };

    if (opts.dryRun) {
      const existing = (await this.storage.get(key, { ignoreNotFound: true })) as KubeObject | undefined;
      const out = await tryUpdate(existing);
      return { object: out, created };
    }
    try {
      const out = (await this.storage.guaranteedUpdate(
        key,
        true,
        undefined,
        async (input, res) => {
          const next = await tryUpdate(res.resourceVersion > 0 ? (input as KubeObject) : undefined);
          // The stored bytes never carry resourceVersion: the store's encode leaves it out and stamps the
          // written object (upstream's PrepareObjectForStorage), so no copy without it is needed here.
          return { object: next, ttl: this.hooks.ttl?.(next, true) };
        },
        undefined,
        opts.readOnly ? { readOnly: true } : undefined,
      )) as KubeObject;
      // ShouldDeleteDuringUpdate: the last finalizer removed from an object being deleted.
      const shouldDelete =
        this.strategy.shouldDeleteDuringUpdate ??
        ((o: KubeObject) => !!o.metadata.deletionTimestamp && !o.metadata.finalizers?.length);
      if (shouldDelete(out)) {
        const deleted = await this.storage
          .delete(key, { uid: out.metadata.uid, resourceVersion: out.metadata.resourceVersion })
          .then(async (d) => {
            await this.hooks.afterDelete?.(d as KubeObject);
            return d;
          })
          .catch(() => out);
        return { object: deleted as KubeObject, created };
      }
      return { object: out, created };
    } catch (err) {
      throw created
        ? interpretCreateError(err, this.qualifiedResource, name)
        : interpretUpdateError(err, this.qualifiedResource, name);
    }
  }

  /** rest.BeforeUpdate. */
  private beforeUpdate(obj: KubeObject, old: KubeObject, namespace: string, subresource?: string): void {
    const strategy = subresource ? (this.strategy.subresources?.[subresource] ?? {}) : this.strategy;
    const meta = obj.metadata;
    this.setNamespace(meta, namespace);
    // Requests cannot change generation, creationTimestamp, deletionTimestamp or the grace period.
    if (old.metadata.generation !== undefined) meta.generation = old.metadata.generation;
    else delete meta.generation;
    strategy.prepareForUpdate?.(obj, old);
    if (!meta.uid) meta.uid = old.metadata.uid;
    if (old.metadata.creationTimestamp) meta.creationTimestamp = old.metadata.creationTimestamp;
    if (old.metadata.deletionTimestamp) meta.deletionTimestamp = old.metadata.deletionTimestamp;
    if (old.metadata.deletionGracePeriodSeconds !== undefined)
      meta.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
    const errs = validateObjectMetaUpdate(meta, old.metadata);
    appendAll(errs, strategy.validateUpdate?.(obj, old) ?? []);
    if (errs.length) throw newInvalid(this.groupKind, meta.name ?? '', errs);
    this.strategy.canonicalize?.(obj);
  }

  /**
   * Store.Delete: with finalizers (or a propagation policy that adds one) the object gets a
   * deletionTimestamp and stays until they are removed; otherwise it is deleted.
   */
  async delete(name: string, opts: DeleteOptions): Promise<DeleteResult> {
    const key = this.key(opts.namespace, name);
    let existing: KubeObject;
    try {
      existing = (await this.storage.get(key)) as KubeObject;
    } catch (err) {
      throw interpretDeleteError(err, this.qualifiedResource, name);
    }
    this.checkPreconditions(name, opts.preconditions, existing);
    await opts.validation?.(existing);
    const finalizers = new Set(existing.metadata.finalizers ?? []);
    if (opts.propagationPolicy === 'Orphan') finalizers.add(FinalizerOrphanDependents);
    if (opts.propagationPolicy === 'Foreground') finalizers.add(FinalizerDeleteDependents);
    if (finalizers.size > 0) {
      if (existing.metadata.deletionTimestamp && finalizers.size === (existing.metadata.finalizers?.length ?? 0))
        return { deleted: false, object: existing };
      const marked = deepCopyJSON(existing);
      marked.metadata.finalizers = [...finalizers];
      marked.metadata.deletionTimestamp ??= formatTime(this.now());
      marked.metadata.deletionGracePeriodSeconds ??= 0;
      if (opts.dryRun) return { deleted: false, object: marked };
      try {
        const out = await this.storage.guaranteedUpdate(key, false, opts.preconditions, (input) => {
          const next = deepCopyJSON(input) as KubeObject;
          next.metadata.finalizers = [...new Set([...(next.metadata.finalizers ?? []), ...finalizers])];
          next.metadata.deletionTimestamp ??= marked.metadata.deletionTimestamp;
          next.metadata.deletionGracePeriodSeconds ??= 0;
          delete next.metadata.resourceVersion;
          return { object: next };
        });
        return { deleted: false, object: out as KubeObject };
      } catch (err) {
        throw interpretDeleteError(err, this.qualifiedResource, name);
      }
    }
    if (opts.dryRun) return { deleted: true, object: existing };
    try {
      const out = await this.storage.delete(key, opts.preconditions, undefined, existing);
      await this.hooks.afterDelete?.(out as KubeObject);
      return { deleted: true, object: out as KubeObject };
    } catch (err) {
      throw interpretDeleteError(err, this.qualifiedResource, name);
    }
  }

  // Preconditions.Check as a 409, before anything is written.
  private checkPreconditions(name: string, pre: Preconditions | undefined, obj: KubeObject): void {
    if (!pre) return;
    const uid = obj.metadata.uid ?? '';
    const rv = obj.metadata.resourceVersion ?? '';
    if (pre.uid !== undefined && pre.uid !== uid)
      throw newConflict(
        this.qualifiedResource,
        name,
        new Error(`Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${uid}`),
      );
    if (pre.resourceVersion !== undefined && pre.resourceVersion !== rv)
      throw newConflict(
        this.qualifiedResource,
        name,
        new Error(
          `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${rv}`,
        ),
      );
  }

  /** Store.DeleteCollection: lists, then deletes each item (errors other than NotFound stop it). */
  async deleteCollection(opts: DeleteOptions, listOpts: ListOptions): Promise<ListResult<KubeObject>> {
    const list = await this.list(opts.namespace, listOpts);
    const items: KubeObject[] = [];
    for (const item of list.items) {
      try {
        const r = await this.delete(item.metadata.name!, {
          ...opts,
          namespace: item.metadata.namespace ?? opts.namespace,
        });
        items.push(r.object);
      } catch (err) {
        if (err instanceof StatusError && err.status.reason === 'NotFound') continue;
        throw err;
      }
    }
    return { ...list, items };
  }
}
