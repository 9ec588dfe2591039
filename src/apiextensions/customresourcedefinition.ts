// apiextensions.k8s.io/v1 customresourcedefinitions as a registry resource
// (k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition/strategy.go and the v1
// defaults of pkg/apis/apiextensions/v1/defaults.go): status reset on create, kept on update,
// generation bumped on spec changes, storedVersions tracking the storage version.

import { objectMetaFields, type KindInfo } from '../endpoints/handlers/decode.ts';
import type { KubeObject, Strategy } from '../registry/generic/store.ts';
import { defaultTableConvertor } from '../registry/generic/table.ts';
import { objectMetaSchema } from '../util/protobuf.ts';
import { sameJSON } from '../util/validation/objectmeta.ts';
import { group, storageVersion, version, type CustomResourceDefinition } from './types.ts';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate } from './validation.ts';

export const crdResource = {
  name: 'customresourcedefinitions',
  singularName: 'customresourcedefinition',
  namespaced: false,
  kind: 'CustomResourceDefinition',
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
};

/** SetDefaults_CustomResourceDefinition (v1). */
export function setCRDDefaults(crd: CustomResourceDefinition): void {
  const spec = (crd.spec ??= {});
  const names = (spec.names ??= {});
  if (!names.singular && names.kind) names.singular = names.kind.toLowerCase();
  if (!names.listKind && names.kind) names.listKind = names.kind + 'List';
  spec.conversion ??= { strategy: 'None' };
  if (spec.conversion.strategy === 'Webhook' && spec.conversion.webhook?.clientConfig) {
    const svc = (spec.conversion.webhook.clientConfig as { service?: { port?: number } }).service;
    if (svc) svc.port ??= 443;
  }
}

const asCRD = (o: KubeObject) => o as CustomResourceDefinition;

export const crdStrategy: Strategy = {
  namespaceScoped: false,
  prepareForCreate(obj) {
    const crd = asCRD(obj);
    setCRDDefaults(crd);
    const sv = storageVersion(crd);
    crd.status = { storedVersions: sv ? [sv] : [] };
    crd.metadata.generation = 1;
  },
  prepareForUpdate(obj, old) {
    const crd = asCRD(obj);
    setCRDDefaults(crd);
    crd.status = structuredClone(asCRD(old).status ?? {});
    if (!sameJSON(crd.spec, asCRD(old).spec)) crd.metadata.generation = (old.metadata.generation ?? 0) + 1;
    const sv = storageVersion(crd);
    const stored = (crd.status.storedVersions ??= []);
    if (sv && !stored.includes(sv)) stored.push(sv);
  },
  validate: (obj) => validateCustomResourceDefinition(asCRD(obj)),
  validateUpdate: (obj, old) => validateCustomResourceDefinitionUpdate(asCRD(obj), asCRD(old)),
};

/** The /status strategy: only status changes. */
export const crdStatusStrategy: Strategy = {
  namespaceScoped: false,
  prepareForUpdate(obj, old) {
    obj.spec = structuredClone(old.spec);
    obj.metadata.generation = old.metadata.generation;
  },
  validateUpdate: () => [],
};

export const crdKindInfo: KindInfo = {
  group,
  version,
  kind: 'CustomResourceDefinition',
  schema: { 1: { name: 'metadata', type: 'message', schema: objectMetaSchema } },
  fields: { metadata: objectMetaFields, spec: true, status: true },
};

export const crdTable = defaultTableConvertor;
