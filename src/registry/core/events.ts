// core/v1 events (pkg/registry/core/event): every write carries a TTL of --event-ttl (the store's
// TTLFunc; etcd leases, the SQL engines' expiry), field selectors on the involved object, source,
// reason and type (event.ToSelectableFields), and the columns of kube's printers (printEvent).

import { objectMetaFields } from '../../endpoints/handlers/decode.ts';
import { objectMetaSchema } from '../../util/protobuf.ts';
import { invalid, Path, type ErrorList } from '../../util/validation/field.ts';
import type { KubeObject } from '../generic/store.ts';
import { humanDuration, nameColumn } from '../generic/table.ts';
import type { ResourceDefinition } from '../rest/registry.ts';

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
}

/** ValidateEventCreate (legacy v1 events): the involved object's namespace is the event's. */
function validateEvent(obj: KubeObject): ErrorList {
  const e = obj as CoreEvent;
  const errs: ErrorList = [];
  const ns = e.involvedObject?.namespace;
  if (ns && ns !== e.metadata.namespace)
    errs.push(invalid(Path.of('involvedObject', 'namespace'), ns, 'does not match event.namespace'));
  return errs;
}

/** event.ToSelectableFields. */
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
