// core/v1 events (pkg/registry/core/event): every write carries a TTL of --event-ttl (the store's
// TTLFunc; etcd leases, the SQL engines' expiry), field selectors on the involved object, source,
// reason and type (event.ToSelectableFields), and the columns of kube's printers (printEvent).

import { objectMetaFields } from '../../endpoints/handlers/decode.ts';
import { objectMetaSchema } from '../../util/protobuf.ts';
import type { StorageObject } from '../../storage/interfaces.ts';
import { invalid, Path, required, type ErrorList } from '../../util/validation/field.ts';
import { validateDNS1123Subdomain, validateQualifiedName } from '../../util/validation/validation.ts';
import { convertingStorage } from './convertingstorage.ts';
import type { KubeObject } from '../generic/store.ts';
import { humanDuration, nameColumn } from '../generic/table.ts';
import type { ResourceDefinition } from '../rest/registry.ts';
import { fieldLabelConversion } from '../generic/fieldlabels.ts';

interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

interface CoreEvent extends KubeObject {
  involvedObject?: ObjectReference;
  reason?: string;
  message?: string;
  source?: { component?: string; host?: string };
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  count?: number;
  type?: string;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string };
  reportingComponent?: string;
  reportingInstance?: string;
  action?: string;
}

const ReportingInstanceLengthLimit = 128;
const ActionLengthLimit = 128;
const ReasonLengthLimit = 128;
const NoteLengthLimit = 1024;

/**
 * legacyValidateEvent (pkg/apis/core/validation/events.go) on the core form; `reportingField` names
 * reportingComponent as the request's version does (v1: reportingComponent, events/v1: reportingController).
 */
function legacyValidateEvent(e: CoreEvent, reportingField: string): ErrorList {
  const errs: ErrorList = [];
  const ns = e.metadata.namespace ?? '';
  const ioNS = e.involvedObject?.namespace ?? '';
  if (!e.eventTime) {
    if (!ioNS) {
      if (ns !== '' && ns !== 'default')
        errs.push(invalid(Path.of('involvedObject', 'namespace'), ioNS, 'does not match event.namespace'));
    } else if (ns !== ioNS)
      errs.push(invalid(Path.of('involvedObject', 'namespace'), ioNS, 'does not match event.namespace'));
  } else {
    if (!ioNS && ns !== 'default' && ns !== 'kube-system')
      errs.push(invalid(Path.of('involvedObject', 'namespace'), ioNS, 'does not match event.namespace'));
    const rc = e.reportingComponent ?? '';
    if (!rc) errs.push(required(Path.of(reportingField)));
    for (const m of validateQualifiedName(rc)) errs.push(invalid(Path.of(reportingField), rc, m));
    const ri = e.reportingInstance ?? '';
    if (!ri) errs.push(required(Path.of('reportingInstance')));
    if (ri.length > ReportingInstanceLengthLimit)
      errs.push(
        invalid(Path.of('reportingInstance'), '', `can have at most ${ReportingInstanceLengthLimit} characters`),
      );
    const action = (e.action as string | undefined) ?? '';
    if (!action) errs.push(required(Path.of('action')));
    if (action.length > ActionLengthLimit)
      errs.push(invalid(Path.of('action'), '', `can have at most ${ActionLengthLimit} characters`));
    if (!e.reason) errs.push(required(Path.of('reason')));
    if ((e.reason ?? '').length > ReasonLengthLimit)
      errs.push(invalid(Path.of('reason'), '', `can have at most ${ReasonLengthLimit} characters`));
    if ((e.message ?? '').length > NoteLengthLimit)
      errs.push(invalid(Path.of('message'), '', `can have at most ${NoteLengthLimit} characters`));
  }
  for (const m of validateDNS1123Subdomain(ns)) errs.push(invalid(Path.of('namespace'), ns, m));
  return errs;
}

/** ValidateEventCreate for core/v1 requests: the legacy rules only. */
function validateEvent(obj: KubeObject): ErrorList {
  return legacyValidateEvent(obj as CoreEvent, 'reportingComponent');
}

/** ValidateEventCreate for events.k8s.io/v1 requests: the legacy rules, then the strict ones. */
function validateEventsV1(obj: KubeObject): ErrorList {
  const e = toCore(obj) as CoreEvent;
  const errs = legacyValidateEvent(e, 'reportingController');
  if (e.series) {
    if ((e.series.count ?? 0) < 2) errs.push(invalid(Path.of('series', 'count'), '', 'should be at least 2'));
    if (!e.series.lastObservedTime) errs.push(required(Path.of('series', 'lastObservedTime')));
  }
  if (!e.eventTime) errs.push(required(Path.of('eventTime')));
  if (e.type !== 'Normal' && e.type !== 'Warning')
    errs.push(invalid(Path.of('type'), '', `has invalid value: ${e.type ?? ''}`));
  if (e.firstTimestamp) errs.push(invalid(Path.of('firstTimestamp'), '', 'needs to be unset'));
  if (e.lastTimestamp) errs.push(invalid(Path.of('lastTimestamp'), '', 'needs to be unset'));
  if (e.count) errs.push(invalid(Path.of('count'), '', 'needs to be unset'));
  if (e.source?.component || e.source?.host) errs.push(invalid(Path.of('source'), '', 'needs to be unset'));
  return errs;
}

// Conversion between events.k8s.io/v1 and the stored core/v1 form (k8s.io/kubernetes/pkg/apis/events/v1/conversion.go).
const renames: [events: string, core: string][] = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

function rename(obj: StorageObject, apiVersion: string, toCoreForm: boolean): StorageObject {
  const out: Record<string, unknown> = { ...obj, apiVersion, kind: 'Event' };
  for (const [ev, core] of renames) {
    const [src, dst] = toCoreForm ? [ev, core] : [core, ev];
    delete out[src];
    const v = (obj as Record<string, unknown>)[src];
    if (v !== undefined && v !== null && v !== '' && !(typeof v === 'object' && Object.keys(v).length === 0))
      out[dst] = v;
  }
  return out as StorageObject;
}

const toCore = (obj: StorageObject) => rename(obj, 'v1', true);
const fromCore = (obj: StorageObject) => rename(obj, 'events.k8s.io/v1', false);

/** event.ToSelectableFields. */ /** event.ToSelectableFields. */
function eventAttrs(obj: { metadata?: { name?: string; namespace?: string; labels?: Record<string, string> } }) {
  const e = obj as CoreEvent;
  const io = e.involvedObject ?? {};
  return {
    labels: e.metadata?.labels ?? {},
    fields: {
      'metadata.name': e.metadata?.name ?? '',
      'metadata.namespace': e.metadata?.namespace ?? '',
      'involvedObject.kind': io.kind ?? '',
      'involvedObject.namespace': io.namespace ?? '',
      'involvedObject.name': io.name ?? '',
      'involvedObject.uid': io.uid ?? '',
      'involvedObject.apiVersion': io.apiVersion ?? '',
      'involvedObject.resourceVersion': io.resourceVersion ?? '',
      'involvedObject.fieldPath': io.fieldPath ?? '',
      reason: e.reason ?? '',
      reportingComponent: e.reportingComponent ?? '',
      source: e.source?.component ?? '',
      type: e.type ?? '',
    },
  };
}

const since = (ts: string | null | undefined, now: Date): string =>
  ts ? humanDuration(now.getTime() - Date.parse(ts)) : '<unknown>';

const col = (name: string, priority = 0, format = '') => ({ name, type: 'string', format, description: '', priority });

export const event: ResourceDefinition = {
  group: '',
  version: 'v1',
  resource: {
    name: 'events',
    singularName: 'event',
    namespaced: true,
    kind: 'Event',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['ev'],
  },
  listKind: 'EventList',
  strategy: {
    namespaceScoped: true,
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    validate: validateEvent,
    validateUpdate: (obj) => validateEvent(obj),
    getAttrs: eventAttrs,
    convertFieldLabel: fieldLabelConversion([
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'source',
      'type',
      'metadata.namespace',
      'metadata.name',
    ]),
  },
  kindInfo: {
    group: '',
    version: 'v1',
    kind: 'Event',
    schema: {
      1: { name: 'metadata', type: 'message', schema: objectMetaSchema },
      2: {
        name: 'involvedObject',
        type: 'message',
        schema: {
          1: { name: 'kind', type: 'string' },
          2: { name: 'namespace', type: 'string' },
          3: { name: 'name', type: 'string' },
          4: { name: 'uid', type: 'string' },
          5: { name: 'apiVersion', type: 'string' },
          6: { name: 'resourceVersion', type: 'string' },
          7: { name: 'fieldPath', type: 'string' },
        },
      },
      3: { name: 'reason', type: 'string' },
      4: { name: 'message', type: 'string' },
      5: {
        name: 'source',
        type: 'message',
        schema: { 1: { name: 'component', type: 'string' }, 2: { name: 'host', type: 'string' } },
      },
      6: { name: 'firstTimestamp', type: 'time' },
      7: { name: 'lastTimestamp', type: 'time' },
      8: { name: 'count', type: 'int32' },
      9: { name: 'type', type: 'string' },
      12: { name: 'action', type: 'string' },
      13: { name: 'related', type: 'skip' },
      14: { name: 'reportingComponent', type: 'string' },
      15: { name: 'reportingInstance', type: 'string' },
    },
    fields: {
      metadata: objectMetaFields,
      involvedObject: true,
      reason: true,
      message: true,
      source: true,
      firstTimestamp: true,
      lastTimestamp: true,
      count: true,
      type: true,
      eventTime: true,
      series: true,
      action: true,
      related: true,
      reportingComponent: true,
      reportingInstance: true,
    },
  },
  table: {
    columns: [
      col('Last Seen'),
      col('Type'),
      col('Reason'),
      col('Object'),
      col('Subobject', 1),
      col('Source', 1),
      col('Message'),
      col('First Seen', 1),
      col('Count', 1),
      { ...nameColumn, priority: 1 },
    ],
    cells(obj, now) {
      const e = obj as CoreEvent;
      const last = e.series?.lastObservedTime ?? e.lastTimestamp ?? e.eventTime;
      const first = e.firstTimestamp ?? e.eventTime;
      const source = [e.source?.component || e.reportingComponent, e.source?.host || e.reportingInstance]
        .filter(Boolean)
        .join(', ');
      const io = e.involvedObject ?? {};
      return [
        since(last, now),
        e.type ?? '',
        e.reason ?? '',
        `${(io.kind ?? '').toLowerCase()}/${io.name ?? ''}`,
        io.fieldPath ?? '',
        source,
        e.message ?? '',
        since(first, now),
        e.series?.count ?? e.count ?? 0,
        e.metadata.name,
      ];
    },
  },
  // registry/core/event/storage: TTLFunc returns --event-ttl for creates and updates alike.
  hooks: (deps) => ({ ttl: () => deps.eventTTLSeconds }),
};

/**
 * events.k8s.io/v1 events: the same objects as core/v1 events (one storage under /registry/events,
 * stored in the core form), served in the events.k8s.io form, validated strictly on create.
 */
export const eventsV1: ResourceDefinition = {
  group: 'events.k8s.io',
  version: 'v1',
  resource: { ...event.resource, categories: undefined },
  listKind: 'EventList',
  resourcePrefix: '/events',
  strategy: {
    ...event.strategy,
    // events/v1 AddFieldLabelConversionsForEvent: its names, mapped to the stored core form's.
    convertFieldLabel: fieldLabelConversion({
      reason: 'reason',
      'regarding.kind': 'involvedObject.kind',
      'regarding.namespace': 'involvedObject.namespace',
      'regarding.name': 'involvedObject.name',
      'regarding.uid': 'involvedObject.uid',
      'regarding.apiVersion': 'involvedObject.apiVersion',
      'regarding.resourceVersion': 'involvedObject.resourceVersion',
      'regarding.fieldPath': 'involvedObject.fieldPath',
      reportingController: 'reportingComponent',
      source: 'source',
      type: 'type',
      'metadata.namespace': 'metadata.namespace',
      'metadata.name': 'metadata.name',
    }),
    validate: validateEventsV1,
    validateUpdate: (obj) => legacyValidateEvent(toCore(obj) as CoreEvent, 'reportingController'),
  },
  kindInfo: {
    group: 'events.k8s.io',
    version: 'v1',
    kind: 'Event',
    schema: { 1: { name: 'metadata', type: 'message', schema: objectMetaSchema } },
    fields: {
      metadata: objectMetaFields,
      eventTime: true,
      series: true,
      reportingController: true,
      reportingInstance: true,
      action: true,
      reason: true,
      regarding: true,
      related: true,
      note: true,
      type: true,
      deprecatedSource: true,
      deprecatedFirstTimestamp: true,
      deprecatedLastTimestamp: true,
      deprecatedCount: true,
    },
  },
  table: {
    columns: event.table.columns,
    cells: (obj, now) => event.table.cells(toCore(obj) as KubeObject, now),
  },
  decorateStorage: (storage) => convertingStorage(storage, { fromStorage: fromCore, toStorage: toCore }),
  hooks: event.hooks,
};
