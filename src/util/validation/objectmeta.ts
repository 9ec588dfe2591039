// ObjectMeta validation on create and update (k8s.io/apimachinery/pkg/api/validation/objectmeta.go,
// k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go ValidateLabels).

import { forbidden, invalid, Path, required, tooLong, type ErrorList } from './field.ts';
import {
  validateLabelValue,
  validateNamespaceName,
  validateQualifiedName,
  type ValidateNameFunc,
} from './validation.ts';
import { appendAll } from '../append.ts';

/** The fields of metav1.ObjectMeta that validation reads. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number | null;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  [field: string]: unknown;
}

export interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export const FieldImmutableErrorMsg = 'field is immutable';
export const TotalAnnotationSizeLimitB = 256 * (1 << 10);
const FinalizerOrphanDependents = 'orphan';
const FinalizerDeleteDependents = 'foregroundDeletion';

// Go iterates maps in random order; sorted keys make our messages deterministic.
const sortedEntries = (m: Record<string, string> | undefined): [string, string][] =>
  Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

const utf8Length = (s: string): number => new TextEncoder().encode(s).length;

export function validateLabels(labels: Record<string, string> | undefined, fldPath: Path): ErrorList {
  const errs: ErrorList = [];
  for (const [k, v] of sortedEntries(labels)) {
    for (const msg of validateQualifiedName(k)) errs.push(invalid(fldPath, k, msg));
    for (const msg of validateLabelValue(v)) errs.push(invalid(fldPath, v, msg));
  }
  return errs;
}

export function validateAnnotations(annotations: Record<string, string> | undefined, fldPath: Path): ErrorList {
  const errs: ErrorList = [];
  let size = 0;
  for (const [k, v] of sortedEntries(annotations)) {
    // QualifiedName, except that case does not matter.
    for (const msg of validateQualifiedName(k.toLowerCase())) errs.push(invalid(fldPath, k, msg));
    size += utf8Length(k) + utf8Length(v);
  }
  if (size > TotalAnnotationSizeLimitB) errs.push(tooLong(fldPath, TotalAnnotationSizeLimitB));
  return errs;
}

function splitAPIVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  if (i < 0) return { group: '', version: apiVersion };
  return { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

export function validateOwnerReferences(refs: OwnerReference[] | undefined, fldPath: Path): ErrorList {
  const errs: ErrorList = [];
  let firstController = '';
  for (const ref of refs ?? []) {
    const { group, version } = splitAPIVersion(ref.apiVersion ?? '');
    if (!version) errs.push(invalid(fldPath.child('apiVersion'), ref.apiVersion ?? '', 'version must not be empty'));
    if (!ref.kind) errs.push(invalid(fldPath.child('kind'), ref.kind ?? '', 'must not be empty'));
    if (!ref.name) errs.push(invalid(fldPath.child('name'), ref.name ?? '', 'must not be empty'));
    if (!ref.uid) errs.push(invalid(fldPath.child('uid'), ref.uid ?? '', 'must not be empty'));
    // BannedOwners: events may not own anything.
    if (group === '' && version === 'v1' && ref.kind === 'Event')
      errs.push(invalid(fldPath, ref, '/v1, Kind=Event is disallowed from being an owner'));
    if (ref.controller) {
      const name = `${ref.kind}/${ref.name}`;
      if (firstController)
        errs.push(
          invalid(
            fldPath,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${name}`,
          ),
        );
      else firstController = name;
    }
  }
  return errs;
}

export function validateFinalizers(finalizers: string[] | undefined, fldPath: Path): ErrorList {
  const errs: ErrorList = [];
  for (const f of finalizers ?? []) for (const msg of validateQualifiedName(f)) errs.push(invalid(fldPath, f, msg));
  const list = finalizers ?? [];
  if (list.includes(FinalizerOrphanDependents) && list.includes(FinalizerDeleteDependents))
    errs.push(
      invalid(
        fldPath,
        list,
        `finalizer ${FinalizerOrphanDependents} and ${FinalizerDeleteDependents} cannot be both set`,
      ),
    );
  return errs;
}

function validateCommon(meta: ObjectMeta, namespaced: boolean, fldPath: Path): ErrorList {
  const errs: ErrorList = [];
  if (namespaced) {
    if (!meta.namespace) errs.push(required(fldPath.child('namespace')));
    else
      for (const msg of validateNamespaceName(meta.namespace, false))
        errs.push(invalid(fldPath.child('namespace'), meta.namespace, msg));
  } else if (meta.namespace) {
    errs.push(forbidden(fldPath.child('namespace'), 'not allowed on this type'));
  }
  if ((meta.generation ?? 0) < 0)
    errs.push(invalid(fldPath.child('generation'), meta.generation, 'must be greater than or equal to 0'));
  appendAll(errs, validateLabels(meta.labels, fldPath.child('labels')));
  appendAll(errs, validateAnnotations(meta.annotations, fldPath.child('annotations')));
  appendAll(errs, validateOwnerReferences(meta.ownerReferences, fldPath.child('ownerReferences')));
  appendAll(errs, validateFinalizers(meta.finalizers, fldPath.child('finalizers')));
  return errs;
}

/** ValidateObjectMeta: on create, after name generation. */
export function validateObjectMeta(
  meta: ObjectMeta,
  namespaced: boolean,
  nameFn: ValidateNameFunc,
  fldPath: Path = Path.of('metadata'),
): ErrorList {
  const errs: ErrorList = [];
  if (meta.generateName)
    for (const msg of nameFn(meta.generateName, true))
      errs.push(invalid(fldPath.child('generateName'), meta.generateName, msg));
  if (!meta.name) errs.push(required(fldPath.child('name'), 'name or generateName is required'));
  else for (const msg of nameFn(meta.name, false)) errs.push(invalid(fldPath.child('name'), meta.name, msg));
  appendAll(errs, validateCommon(meta, namespaced, fldPath));
  return errs;
}

/** Semantic equality of JSON values (apiequality.Semantic.DeepEqual for decoded JSON). */
export const sameJSON = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

function immutable(newVal: unknown, oldVal: unknown, fldPath: Path): ErrorList {
  return sameJSON(newVal, oldVal) ? [] : [invalid(fldPath, newVal ?? null, FieldImmutableErrorMsg)];
}

/** ValidateObjectMetaUpdate. */
export function validateObjectMetaUpdate(
  meta: ObjectMeta,
  old: ObjectMeta,
  fldPath: Path = Path.of('metadata'),
): ErrorList {
  const errs: ErrorList = [];
  if (old.deletionTimestamp) {
    const known = new Set(old.finalizers ?? []);
    const extra = [...new Set((meta.finalizers ?? []).filter((f) => !known.has(f)))].sort();
    if (extra.length)
      errs.push(
        forbidden(
          fldPath.child('finalizers'),
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map((f) => JSON.stringify(f)).join(', ')}}`,
        ),
      );
  }
  if (!meta.resourceVersion)
    errs.push(invalid(fldPath.child('resourceVersion'), meta.resourceVersion ?? '', 'must be specified for an update'));
  if ((meta.generation ?? 0) < (old.generation ?? 0))
    errs.push(invalid(fldPath.child('generation'), meta.generation ?? 0, 'must not be decremented'));
  appendAll(errs, immutable(meta.name ?? '', old.name ?? '', fldPath.child('name')));
  appendAll(errs, immutable(meta.namespace ?? '', old.namespace ?? '', fldPath.child('namespace')));
  appendAll(errs, immutable(meta.uid ?? '', old.uid ?? '', fldPath.child('uid')));
  appendAll(errs, immutable(meta.creationTimestamp, old.creationTimestamp, fldPath.child('creationTimestamp')));
  appendAll(errs, immutable(meta.deletionTimestamp, old.deletionTimestamp, fldPath.child('deletionTimestamp')));
  errs.push(
    ...immutable(
      meta.deletionGracePeriodSeconds,
      old.deletionGracePeriodSeconds,
      fldPath.child('deletionGracePeriodSeconds'),
    ),
  );
  appendAll(errs, validateLabels(meta.labels, fldPath.child('labels')));
  appendAll(errs, validateAnnotations(meta.annotations, fldPath.child('annotations')));
  appendAll(errs, validateOwnerReferences(meta.ownerReferences, fldPath.child('ownerReferences')));
  appendAll(errs, validateFinalizers(meta.finalizers, fldPath.child('finalizers')));
  return errs;
}
