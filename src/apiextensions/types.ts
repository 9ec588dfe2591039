// apiextensions.k8s.io/v1 CustomResourceDefinition as JSON (k8s.io/apiextensions-apiserver/pkg/
// apis/apiextensions/v1/types.go), and the helpers upstream keeps in pkg/apihelpers.

import type { KubeObject } from '../registry/generic/store.ts';
import type { JSONSchemaProps } from './schema/structural.ts';

export const group = 'apiextensions.k8s.io';
export const version = 'v1';

export interface CRDNames {
  plural?: string;
  singular?: string;
  shortNames?: string[];
  kind?: string;
  listKind?: string;
  categories?: string[];
}

export interface PrinterColumn {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
}

export interface ScaleSubresource {
  specReplicasPath?: string;
  statusReplicasPath?: string;
  labelSelectorPath?: string;
}

export interface Subresources {
  status?: Record<string, never>;
  scale?: ScaleSubresource;
}

export interface CRDVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: Subresources;
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: { jsonPath?: string }[];
}

export interface CRDConversion {
  strategy?: string;
  webhook?: { clientConfig?: unknown; conversionReviewVersions?: string[] };
}

export interface CRDSpec {
  group?: string;
  names?: CRDNames;
  scope?: string;
  versions?: CRDVersion[];
  conversion?: CRDConversion;
  preserveUnknownFields?: boolean;
}

export interface CRDCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CRDStatus {
  conditions?: CRDCondition[];
  acceptedNames?: CRDNames;
  storedVersions?: string[];
}

export interface CustomResourceDefinition extends KubeObject {
  spec: CRDSpec;
  status?: CRDStatus;
}

/** The finalizer that deletes every custom resource of a CRD before the CRD goes. */
export const CustomResourceCleanupFinalizer = 'customresourcecleanup.apiextensions.k8s.io';

export function findCondition(crd: CustomResourceDefinition, type: string): CRDCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

export function isCRDConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return findCondition(crd, type)?.status === 'True';
}

/** SetCRDCondition: lastTransitionTime changes only when the status does. */
export function setCondition(status: CRDStatus, c: CRDCondition, now: string): void {
  const list = (status.conditions ??= []);
  const i = list.findIndex((x) => x.type === c.type);
  if (i < 0) {
    list.push({ ...c, lastTransitionTime: now });
    return;
  }
  const old = list[i]!;
  list[i] = { ...c, lastTransitionTime: old.status === c.status ? old.lastTransitionTime : now };
}

export function storageVersion(crd: CustomResourceDefinition): string | undefined {
  return crd.spec.versions?.find((v) => v.storage)?.name;
}

/** IsProtectedCommunityGroup: *.k8s.io and *.kubernetes.io need the api-approved annotation. */
export function isProtectedCommunityGroup(g: string): boolean {
  return g === 'k8s.io' || g.endsWith('.k8s.io') || g === 'kubernetes.io' || g.endsWith('.kubernetes.io');
}
