// The built-in resources served from storage: core/v1 namespaces, configmaps, secrets and
// serviceaccounts, coordination.k8s.io/v1 leases. Strategies follow kube's pkg/registry/core/*/strategy.go
// and validation pkg/apis/core/validation/validation.go; columns follow pkg/printers/internalversion.

import { objectMetaFields, type KnownFields } from '../../endpoints/handlers/decode.ts';
import { objectMetaSchema, type Schema } from '../../util/protobuf.ts';
import {
  forbidden,
  invalid,
  notSupported,
  Path,
  required,
  tooLong,
  type ErrorList,
} from '../../util/validation/field.ts';
import { sameJSON } from '../../util/validation/objectmeta.ts';
import { nameIsDNSLabel, validateConfigMapKey } from '../../util/validation/validation.ts';
import type { KubeObject } from '../generic/store.ts';
import { formatTime } from '../../util/metatime.ts';
import type { ResourceDefinition, ResourceRegistry } from '../rest/registry.ts';
import { age, nameColumn, type TableColumnDefinition } from '../generic/table.ts';
import { encodeBase64Text } from '../../util/base64.ts';
import { endpoints } from './endpoints.ts';
import { event, eventsV1 } from './events.ts';
import { service, serviceAllocator } from './services.ts';
import { fieldLabelConversion, selectableFields } from '../generic/fieldlabels.ts';

export type { ResourceDefinition, ResourceHookDeps, ResourceInfo } from '../rest/registry.ts';

const col = (name: string, type: string, description: string, priority = 0): TableColumnDefinition => ({
  name,
  type,
  format: '',
  description,
  priority,
});
const ageCol = col(
  'Age',
  'string',
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
);

const meta = { metadata: objectMetaFields } satisfies KnownFields;
const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const MaxSecretSize = 1 * 1024 * 1024;
const immutableMsg = 'field is immutable when `immutable` is set';

const mapSize = (m: unknown): number => (m && typeof m === 'object' ? Object.keys(m).length : 0);
const sortedKeys = (m: unknown): string[] => (m && typeof m === 'object' ? Object.keys(m).sort() : []);

function validateDataKeys(obj: KubeObject, fields: string[]): ErrorList {
  // Sorted keys only order the errors: an object with none (the usual one) is checked unsorted.
  let clean = true;
  let size = 0;
  for (const f of fields) {
    const data = (obj[f] ?? {}) as Record<string, string>;
    if (!data || typeof data !== 'object') continue;
    for (const key of Object.keys(data)) {
      if (validateConfigMapKey(key).length) clean = false;
      else if (f === 'data' && fields.includes('binaryData') && Object.hasOwn((obj.binaryData ?? {}) as object, key))
        clean = false;
      size += String(data[key] ?? '').length;
    }
  }
  if (clean) return size > MaxSecretSize ? [tooLong(Path.of(''), MaxSecretSize)] : [];
  const errs: ErrorList = [];
  let total = 0;
  for (const f of fields) {
    const data = (obj[f] ?? {}) as Record<string, string>;
    for (const key of sortedKeys(data)) {
      for (const msg of validateConfigMapKey(key)) errs.push(invalid(Path.of(f).key(key), key, msg));
      if (f === 'data' && fields.includes('binaryData') && Object.hasOwn((obj.binaryData ?? {}) as object, key))
        errs.push(invalid(Path.of('data').key(key), key, 'duplicate of key present in binaryData'));
      total += String(data[key] ?? '').length;
    }
  }
  if (total > MaxSecretSize) errs.push(tooLong(Path.of(''), MaxSecretSize));
  return errs;
}

function validateImmutable(obj: KubeObject, old: KubeObject, fields: string[]): ErrorList {
  if (old.immutable !== true) return [];
  const errs: ErrorList = [];
  if (obj.immutable !== true) errs.push(forbidden(Path.of('immutable'), immutableMsg));
  for (const f of fields) if (!sameJSON(obj[f], old[f])) errs.push(forbidden(Path.of(f), immutableMsg));
  return errs;
}

// --- namespaces (pkg/registry/core/namespace/strategy.go) ---

export const FinalizerKubernetes = 'kubernetes';

/** validateFinalizerName over spec.finalizers (indexed in ValidateNamespaceFinalizeUpdate). */
function validateNamespaceFinalizers(obj: KubeObject, indexed: boolean): ErrorList {
  const errs: ErrorList = [];
  ((obj.spec as { finalizers?: string[] })?.finalizers ?? []).forEach((f, i) => {
    if (f !== FinalizerKubernetes && !f.includes('/'))
      errs.push(
        invalid(
          indexed ? Path.of('spec', 'finalizers').index(i) : Path.of('spec', 'finalizers'),
          f,
          'name is neither a standard finalizer name nor is it fully qualified',
        ),
      );
  });
  return errs;
}

const namespace: ResourceDefinition = {
  group: '',
  version: 'v1',
  resource: {
    name: 'namespaces',
    singularName: 'namespace',
    namespaced: false,
    kind: 'Namespace',
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['ns'],
    subresources: [
      { name: 'finalize', kind: 'Namespace', verbs: ['update'] },
      { name: 'status', kind: 'Namespace', verbs: ['get', 'patch', 'update'] },
    ],
  },
  listKind: 'NamespaceList',
  strategy: {
    namespaceScoped: false,
    validateName: nameIsDNSLabel,
    // NamespaceToSelectableFields: also the legacy `name`, which no selector can reach.
    getAttrs: selectableFields(false, (obj) => ({
      'status.phase': String((obj.status as { phase?: unknown } | undefined)?.phase ?? ''),
      name: obj.metadata.name ?? '',
    })),
    convertFieldLabel: fieldLabelConversion(['status.phase', 'metadata.name']),
    prepareForCreate(obj) {
      obj.status = { phase: 'Active' };
      const spec = (obj.spec ??= {}) as { finalizers?: string[] };
      if (!spec.finalizers?.includes(FinalizerKubernetes))
        spec.finalizers = [...(spec.finalizers ?? []), FinalizerKubernetes];
      // SetDefaults_Namespace: the immutable name label.
      obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name ?? '' };
    },
    prepareForUpdate(obj, old) {
      obj.spec = old.spec;
      obj.status = old.status;
      obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name ?? '' };
    },
    validate: (obj) => validateNamespaceFinalizers(obj, false),
    // ShouldDeleteNamespaceDuringUpdate: gone once being deleted with no finalizer of either kind left.
    shouldDeleteDuringUpdate: (obj) =>
      !!obj.metadata.deletionTimestamp &&
      !obj.metadata.finalizers?.length &&
      !(obj.spec as { finalizers?: string[] } | undefined)?.finalizers?.length,
    subresources: {
      // namespaceStatusStrategy: only status changes; its phase follows deletionTimestamp.
      status: {
        prepareForUpdate(obj, old) {
          obj.spec = old.spec;
        },
        validateUpdate(obj) {
          const phase = (obj.status as { phase?: string } | undefined)?.phase ?? '';
          if (!obj.metadata.deletionTimestamp) {
            if (phase !== 'Active')
              return [
                invalid(Path.of('status', 'Phase'), phase, "may only be 'Active' if `deletionTimestamp` is empty"),
              ];
          } else if (phase !== 'Terminating')
            return [
              invalid(
                Path.of('status', 'Phase'),
                phase,
                "may only be 'Terminating' if `deletionTimestamp` is not empty",
              ),
            ];
          return [];
        },
      },
      // namespaceFinalizeStrategy: spec.finalizers change, status stays.
      finalize: {
        prepareForUpdate(obj, old) {
          obj.status = old.status;
          obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name ?? '' };
        },
        validateUpdate: (obj) => validateNamespaceFinalizers(obj, true),
      },
    },
  },
  kindInfo: {
    group: '',
    version: 'v1',
    kind: 'Namespace',
    schema: {
      1: { name: 'metadata', type: 'message', schema: objectMetaSchema },
      2: { name: 'spec', type: 'message', schema: { 1: { name: 'finalizers', type: 'strings' } } },
      3: { name: 'status', type: 'skip' },
    },
    fields: { ...meta, spec: { finalizers: true }, status: true },
  },
  table: {
    columns: [nameColumn, col('Status', 'string', 'The status of the namespace'), ageCol],
    cells: (obj, now) => [
      obj.metadata.name,
      (obj.status as { phase?: string } | undefined)?.phase ?? '',
      age(obj, now),
    ],
  },
  deleteOverride: markNamespaceTerminating,
};

/**
 * Namespace deletion (pkg/registry/core/namespace/storage/storage.go Delete): the namespace turns
 * Terminating with a deletionTimestamp and is answered as is; the namespace controller deletes
 * its contents, then the namespace.
 */
async function markNamespaceTerminating(registry: ResourceRegistry, name: string): Promise<KubeObject> {
  const namespaces = registry.store('', 'namespaces')!;
  const existing = await namespaces.get('', name);
  if (existing.metadata.deletionTimestamp) return existing;
  return (await namespaces.storage.guaranteedUpdate(namespaces.key('', name), false, undefined, (input) => {
    const next = structuredClone(input) as KubeObject;
    next.metadata.deletionTimestamp ??= formatTime(new Date());
    next.metadata.deletionGracePeriodSeconds ??= 0;
    next.status = { ...(next.status as object), phase: 'Terminating' };
    delete next.metadata.resourceVersion;
    return { object: next };
  })) as KubeObject;
}

// --- configmaps ---

const configMapSchema: Schema = {
  1: { name: 'metadata', type: 'message', schema: objectMetaSchema },
  2: { name: 'data', type: 'map', value: 'string' },
  3: { name: 'binaryData', type: 'map', value: 'bytes' },
  4: { name: 'immutable', type: 'bool' },
};

const configmap: ResourceDefinition = {
  group: '',
  version: 'v1',
  resource: {
    name: 'configmaps',
    singularName: 'configmap',
    namespaced: true,
    kind: 'ConfigMap',
    verbs,
    shortNames: ['cm'],
  },
  listKind: 'ConfigMapList',
  strategy: {
    namespaceScoped: true,
    allowUnconditionalUpdate: true,
    validate: (obj) => validateDataKeys(obj, ['data', 'binaryData']),
    validateUpdate: (obj, old) => [
      ...validateImmutable(obj, old, ['data', 'binaryData']),
      ...validateDataKeys(obj, ['data', 'binaryData']),
    ],
  },
  kindInfo: {
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    schema: configMapSchema,
    fields: { ...meta, data: true, binaryData: true, immutable: true },
  },
  table: {
    columns: [nameColumn, col('Data', 'integer', ''), ageCol],
    cells: (obj, now) => [obj.metadata.name, mapSize(obj.data) + mapSize(obj.binaryData), age(obj, now)],
  },
};

// --- secrets (pkg/registry/core/secret/strategy.go, ValidateSecret) ---

const secretTypeKeys: Record<string, string[]> = {
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/ssh-auth': ['ssh-privatekey'],
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
};

const base64Re = /^[A-Za-z0-9+/]*={0,2}$/;

/** Secret conversion: stringData is write-only and merges over data (base64-encoded). */
function foldStringData(obj: KubeObject): void {
  const sd = obj.stringData as Record<string, string> | undefined;
  if (sd && typeof sd === 'object') {
    const data = (obj.data ??= {}) as Record<string, string>;
    for (const [k, v] of Object.entries(sd)) data[k] = encodeBase64Text(String(v));
  }
  delete obj.stringData;
  obj.type ??= 'Opaque';
}

function validateSecret(obj: KubeObject): ErrorList {
  const errs = validateDataKeys(obj, ['data']);
  const data = (obj.data ?? {}) as Record<string, unknown>;
  for (const k of sortedKeys(data)) {
    const v = data[k];
    if (typeof v !== 'string' || v.length % 4 !== 0 || !base64Re.test(v))
      errs.push(invalid(Path.of('data').key(k), '<secret contents redacted>', 'must be valid base64'));
  }
  const type = String(obj.type ?? 'Opaque');
  for (const key of secretTypeKeys[type] ?? [])
    if (!Object.hasOwn(data, key)) errs.push(required(Path.of('data').key(key)));
  if (
    type === 'kubernetes.io/service-account-token' &&
    !obj.metadata.annotations?.['kubernetes.io/service-account.name']
  )
    errs.push(required(Path.of('metadata', 'annotations').key('kubernetes.io/service-account.name')));
  if (type === 'kubernetes.io/basic-auth' && !Object.hasOwn(data, 'username') && !Object.hasOwn(data, 'password'))
    errs.push(required(Path.of('data').key('username')), required(Path.of('data').key('password')));
  return errs;
}

const secret: ResourceDefinition = {
  group: '',
  version: 'v1',
  resource: { name: 'secrets', singularName: 'secret', namespaced: true, kind: 'Secret', verbs },
  listKind: 'SecretList',
  strategy: {
    namespaceScoped: true,
    allowUnconditionalUpdate: true,
    getAttrs: selectableFields(true, (obj) => ({ type: String(obj.type ?? '') })),
    convertFieldLabel: fieldLabelConversion(['type', 'metadata.namespace', 'metadata.name']),
    prepareForCreate: foldStringData,
    prepareForUpdate: foldStringData,
    validate: validateSecret,
    validateUpdate(obj, old) {
      const errs = validateImmutable(obj, old, ['data']);
      if ((obj.type ?? 'Opaque') !== (old.type ?? 'Opaque'))
        errs.push(invalid(Path.of('type'), obj.type, 'field is immutable'));
      return [...errs, ...validateSecret(obj)];
    },
  },
  kindInfo: {
    group: '',
    version: 'v1',
    kind: 'Secret',
    schema: {
      1: { name: 'metadata', type: 'message', schema: objectMetaSchema },
      2: { name: 'data', type: 'map', value: 'bytes' },
      3: { name: 'type', type: 'string' },
      4: { name: 'stringData', type: 'map', value: 'string' },
      5: { name: 'immutable', type: 'bool' },
    },
    fields: { ...meta, data: true, stringData: true, type: true, immutable: true },
  },
  table: {
    columns: [nameColumn, col('Type', 'string', ''), col('Data', 'string', ''), ageCol],
    cells: (obj, now) => [obj.metadata.name, obj.type ?? 'Opaque', mapSize(obj.data), age(obj, now)],
  },
};

// --- serviceaccounts ---

const serviceaccount: ResourceDefinition = {
  group: '',
  version: 'v1',
  resource: {
    name: 'serviceaccounts',
    singularName: 'serviceaccount',
    namespaced: true,
    kind: 'ServiceAccount',
    verbs,
    shortNames: ['sa'],
  },
  listKind: 'ServiceAccountList',
  strategy: { namespaceScoped: true, allowUnconditionalUpdate: true },
  kindInfo: {
    group: '',
    version: 'v1',
    kind: 'ServiceAccount',
    schema: {
      1: { name: 'metadata', type: 'message', schema: objectMetaSchema },
      4: { name: 'automountServiceAccountToken', type: 'bool' },
    },
    fields: { ...meta, secrets: true, imagePullSecrets: true, automountServiceAccountToken: true },
  },
  table: {
    columns: [nameColumn, col('Secrets', 'string', ''), ageCol],
    cells: (obj, now) => [obj.metadata.name, Array.isArray(obj.secrets) ? obj.secrets.length : 0, age(obj, now)],
  },
};

// --- coordination.k8s.io/v1 leases (pkg/registry/coordination/lease) ---

const leaseStrategies = ['OldestEmulationVersion'];

const lease: ResourceDefinition = {
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: { name: 'leases', singularName: 'lease', namespaced: true, kind: 'Lease', verbs },
  listKind: 'LeaseList',
  strategy: {
    namespaceScoped: true,
    allowUnconditionalUpdate: true,
    validate(obj) {
      const errs: ErrorList = [];
      const spec = (obj.spec ?? {}) as Record<string, unknown>;
      for (const f of ['leaseDurationSeconds', 'leaseTransitions'])
        if (typeof spec[f] === 'number' && (spec[f] as number) < (f === 'leaseDurationSeconds' ? 1 : 0))
          errs.push(
            invalid(
              Path.of('spec', f),
              spec[f],
              f === 'leaseDurationSeconds' ? 'must be greater than 0' : 'must be greater than or equal to 0',
            ),
          );
      if (spec.strategy !== undefined && !leaseStrategies.includes(String(spec.strategy)))
        errs.push(notSupported(Path.of('spec', 'strategy'), spec.strategy, leaseStrategies));
      return errs;
    },
  },
  kindInfo: {
    group: 'coordination.k8s.io',
    version: 'v1',
    kind: 'Lease',
    schema: {
      1: { name: 'metadata', type: 'message', schema: objectMetaSchema },
      2: {
        name: 'spec',
        type: 'message',
        schema: {
          1: { name: 'holderIdentity', type: 'string' },
          2: { name: 'leaseDurationSeconds', type: 'int32' },
          5: { name: 'leaseTransitions', type: 'int32' },
        },
      },
    },
    fields: {
      ...meta,
      spec: {
        holderIdentity: true,
        leaseDurationSeconds: true,
        acquireTime: true,
        renewTime: true,
        leaseTransitions: true,
        strategy: true,
        preferredHolder: true,
      },
    },
  },
  table: {
    columns: [nameColumn, col('Holder', 'string', ''), ageCol],
    cells: (obj, now) => [
      obj.metadata.name,
      (obj.spec as { holderIdentity?: string } | undefined)?.holderIdentity ?? '',
      age(obj, now),
    ],
  },
};

const services: ResourceDefinition = {
  ...service,
  hooks: (deps) =>
    serviceAllocator({
      ranges: deps.serviceClusterIPRanges,
      ipAddresses: deps.storage({ group: 'networking.k8s.io', resource: 'ipaddresses' }),
      listServices: async () => (await deps.registry.store('', 'services')!.list('', {})).items,
    }),
};

/** Every resource this server serves from storage, core first. */
export const builtinResources: readonly ResourceDefinition[] = [
  namespace,
  configmap,
  secret,
  serviceaccount,
  services,
  endpoints,
  event,
  lease,
  eventsV1,
];
