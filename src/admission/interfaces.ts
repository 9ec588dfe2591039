// The admission seam (k8s.io/apiserver/pkg/admission/interfaces.go): plugins see every write to
// storage before it happens. Mutating plugins (`admit`) run in the REST handler before the
// registry's strategy; validating plugins (`validate`) run inside the registry after it, on the
// object about to be stored (upstream's createValidation / updateValidation).

import type { UserInfo } from '../endpoints/request/context.ts';
import type { KubeObject } from '../registry/generic/store.ts';

/** admission.Operation. */
export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** admission.Attributes: what a plugin knows of the request. */
export interface Attributes {
  readonly operation: Operation;
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  /** `status`, `scale` …; `''` for the main resource. */
  readonly subresource: string;
  readonly namespace: string;
  /** The object's name; `''` on a create with generateName until the registry picks one. */
  readonly name: string;
  /** The incoming object (CREATE, UPDATE); plugins of `admit` may change it. Undefined on DELETE. */
  readonly object?: KubeObject;
  /** The stored object (UPDATE, DELETE). */
  readonly oldObject?: KubeObject;
  readonly dryRun: boolean;
  readonly userInfo?: UserInfo;
}

/** admission.Interface with MutationInterface and ValidationInterface folded in. */
export interface AdmissionPlugin {
  /** The plugin's registered name (`NamespaceLifecycle`). */
  readonly name: string;
  /** Whether the plugin looks at this operation. */
  handles(operation: Operation): boolean;
  /** MutationInterface.Admit: may change `attrs.object`; throw a StatusError to refuse. */
  admit?(attrs: Attributes): Promise<void> | void;
  /** ValidationInterface.Validate: must not change anything; throw a StatusError to refuse. */
  validate?(attrs: Attributes): Promise<void> | void;
}
