// flowcontrol.apiserver.k8s.io/v1 flowschemas and prioritylevelconfigurations served from storage
// (pkg/registry/flowcontrol/{flowschema,prioritylevelconfiguration}): the specs validated as the
// flow-control controller validates them, status owned by the server (the /status writes of the
// apf configuration controller), columns as pkg/printers/internalversion.

import { objectMetaFields, type KindInfo } from '../../endpoints/handlers/decode.ts';
import {
  defaultFlowSchema,
  defaultPriorityLevel,
  validateFlowSchema,
  validatePriorityLevel,
  type FlowSchema,
  type PriorityLevelConfiguration,
} from '../../flowcontrol/types.ts';
import { objectMetaSchema } from '../../util/protobuf.ts';
import { FieldError, type ErrorList, type ErrorType } from '../../util/validation/field.ts';
import { validatePathSegmentName } from '../../util/validation/validation.ts';
import type { KubeObject, Strategy } from '../generic/store.ts';
import { age, nameColumn, type TableColumnDefinition } from '../generic/table.ts';
import type { ResourceDefinition } from '../rest/registry.ts';

export const flowcontrolGroup = 'flowcontrol.apiserver.k8s.io';
const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const typeOf: Record<string, ErrorType> = {
  'Invalid value': 'FieldValueInvalid',
  'Required value': 'FieldValueRequired',
  'Unsupported value': 'FieldValueNotSupported',
  Forbidden: 'FieldValueForbidden',
  'Duplicate value': 'FieldValueDuplicate',
};

/** A field error from the flow-control validator's formatted text (`path: Type: detail`). */
class FormattedFieldError extends FieldError {
  private readonly text: string;
  constructor(field: string, type: ErrorType, text: string) {
    super(type, field, undefined);
    this.text = text;
  }
  override body(): string {
    return this.text;
  }
}

function fieldErrors(messages: string[]): ErrorList {
  return messages
    .filter((m) => !m.startsWith('metadata.name:'))
    .map((m) => {
      const i = m.indexOf(': ');
      const field = m.slice(0, i);
      const body = m.slice(i + 2);
      const type = Object.entries(typeOf).find(([t]) => body.startsWith(t))?.[1] ?? 'FieldValueInvalid';
      return new FormattedFieldError(field, type, body);
    });
}

/** The spec is the client's, the status the server's (strategy.go PrepareForCreate/PrepareForUpdate). */
function strategy<T>(defaults: (o: T) => T, validate: (o: T) => string[]): Strategy {
  const check = (obj: KubeObject) => fieldErrors(validate(defaults(structuredClone(obj) as T)));
  return {
    namespaceScoped: false,
    validateName: validatePathSegmentName,
    prepareForCreate(obj) {
      Object.assign(obj, defaults(obj as T));
      obj.status = {};
      obj.metadata.generation = 1;
    },
    prepareForUpdate(obj, old) {
      Object.assign(obj, defaults(obj as T));
      obj.status = old.status;
      if (JSON.stringify(obj.spec) !== JSON.stringify(old.spec))
        obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
    },
    validate: check,
    validateUpdate: check,
  };
}

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
  'CreationTimestamp is a timestamp representing the server time when this object was created.',
);

const kindInfo = (kind: string): KindInfo => ({
  group: flowcontrolGroup,
  version: 'v1',
  kind,
  schema: { 1: { name: 'metadata', type: 'message', schema: objectMetaSchema } },
  fields: { metadata: objectMetaFields, spec: true, status: true },
});

const flowSchema: ResourceDefinition = {
  group: flowcontrolGroup,
  version: 'v1',
  resource: {
    name: 'flowschemas',
    singularName: 'flowschema',
    namespaced: false,
    kind: 'FlowSchema',
    verbs,
    subresources: [{ name: 'status', kind: 'FlowSchema', verbs: ['get', 'patch', 'update'] }],
  },
  listKind: 'FlowSchemaList',
  strategy: strategy<FlowSchema>(defaultFlowSchema, validateFlowSchema),
  kindInfo: kindInfo('FlowSchema'),
  table: {
    columns: [
      nameColumn,
      col('PriorityLevel', 'string', 'The priority level of the flow schema'),
      col('MatchingPrecedence', 'string', 'The matching precedence of the flow schema'),
      col('DistinguisherMethod', 'string', 'The distinguisher method of the flow schema'),
      ageCol,
      col('MissingPL', 'string', 'Whether the referenced priority level is missing'),
    ],
    cells(obj, now) {
      const fs = obj as unknown as FlowSchema & { status?: { conditions?: { type: string; status: string }[] } };
      const dangling = fs.status?.conditions?.find((c) => c.type === 'Dangling');
      return [
        obj.metadata.name,
        fs.spec?.priorityLevelConfiguration?.name ?? '',
        fs.spec?.matchingPrecedence ?? 0,
        fs.spec?.distinguisherMethod?.type ?? '<none>',
        age(obj, now),
        dangling ? (dangling.status === 'True' ? 'True' : 'False') : '?',
      ];
    },
  },
};

const priorityLevel: ResourceDefinition = {
  group: flowcontrolGroup,
  version: 'v1',
  resource: {
    name: 'prioritylevelconfigurations',
    singularName: 'prioritylevelconfiguration',
    namespaced: false,
    kind: 'PriorityLevelConfiguration',
    verbs,
    subresources: [{ name: 'status', kind: 'PriorityLevelConfiguration', verbs: ['get', 'patch', 'update'] }],
  },
  listKind: 'PriorityLevelConfigurationList',
  strategy: strategy<PriorityLevelConfiguration>(defaultPriorityLevel, validatePriorityLevel),
  kindInfo: kindInfo('PriorityLevelConfiguration'),
  table: {
    columns: [
      nameColumn,
      col('Type', 'string', 'The type of the priority level'),
      col('NominalConcurrencyShares', 'string', 'The nominal concurrency shares of the priority level'),
      col('Queues', 'string', 'The number of queues of the priority level'),
      col('HandSize', 'string', 'The hand size of the priority level'),
      col('QueueLengthLimit', 'string', 'The queue length limit of the priority level'),
      ageCol,
    ],
    cells(obj, now) {
      const pl = obj as unknown as PriorityLevelConfiguration;
      const limited = pl.spec?.limited;
      const q = limited?.limitResponse?.queuing;
      const none = '<none>';
      return [
        obj.metadata.name,
        pl.spec?.type ?? '',
        limited ? (limited.nominalConcurrencyShares ?? 0) : none,
        q ? q.queues : none,
        q ? q.handSize : none,
        q ? q.queueLengthLimit : none,
        age(obj, now),
      ];
    },
  },
};

export const flowcontrolResources: readonly ResourceDefinition[] = [flowSchema, priorityLevel];
