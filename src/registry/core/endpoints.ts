// core/v1 endpoints (pkg/registry/core/endpoint): stored under /registry/services/endpoints, validated
// for what clients write (addresses are IPs, ports in range), shown as kube's printers show them
// (printEndpoints: NAME, ENDPOINTS, AGE).

import { objectMetaFields } from '../../endpoints/handlers/decode.ts';
import { objectMetaSchema } from '../../util/protobuf.ts';
import { invalid, notSupported, Path, required, type ErrorList } from '../../util/validation/field.ts';
import type { KubeObject } from '../generic/store.ts';
import { age, ageColumn, nameColumn } from '../generic/table.ts';
import { parseIP } from './ipallocator.ts';
import type { ResourceDefinition } from './resources.ts';

export interface EndpointSubset {
  addresses?: { ip?: string; hostname?: string; nodeName?: string }[];
  notReadyAddresses?: { ip?: string }[];
  ports?: { name?: string; port?: number; protocol?: string; appProtocol?: string }[];
}

const protocols = ['SCTP', 'TCP', 'UDP'];

function validateEndpoints(obj: KubeObject): ErrorList {
  const errs: ErrorList = [];
  ((obj.subsets ?? []) as EndpointSubset[]).forEach((ss, i) => {
    const path = Path.of('subsets').index(i);
    for (const f of ['addresses', 'notReadyAddresses'] as const)
      (ss[f] ?? []).forEach((a, j) => {
        const p = path.child(f).index(j).child('ip');
        if (!a.ip) errs.push(required(p));
        else if (!parseIP(a.ip))
          errs.push(invalid(p, a.ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
      });
    (ss.ports ?? []).forEach((pt, j) => {
      const p = path.child('ports').index(j);
      if (typeof pt.port !== 'number' || pt.port < 1 || pt.port > 65535)
        errs.push(invalid(p.child('port'), pt.port ?? 0, 'must be between 1 and 65535, inclusive'));
      if (!protocols.includes(pt.protocol ?? 'TCP'))
        errs.push(notSupported(p.child('protocol'), pt.protocol, protocols));
    });
  });
  return errs;
}

/** formatEndpoints: `ip:port` pairs, at most 3, then ` + N more...`; `<none>` when empty. */
function formatEndpoints(obj: KubeObject): string {
  const out: string[] = [];
  let count = 0;
  for (const ss of (obj.subsets ?? []) as EndpointSubset[]) {
    const ports = ss.ports?.length ? ss.ports : [undefined];
    for (const a of ss.addresses ?? [])
      for (const p of ports) {
        count++;
        if (out.length < 3) out.push(p ? `${a.ip}:${p.port}` : (a.ip ?? ''));
      }
  }
  if (count === 0) return '<none>';
  return count > 3 ? `${out.join(',')} + ${count - 3} more...` : out.join(',');
}

export const endpoints: ResourceDefinition = {
  group: '',
  version: 'v1',
  resource: {
    name: 'endpoints',
    singularName: 'endpoints',
    namespaced: true,
    kind: 'Endpoints',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['ep'],
  },
  listKind: 'EndpointsList',
  strategy: {
    namespaceScoped: true,
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    validate: validateEndpoints,
    validateUpdate: (obj) => validateEndpoints(obj),
  },
  kindInfo: {
    group: '',
    version: 'v1',
    kind: 'Endpoints',
    schema: {
      1: { name: 'metadata', type: 'message', schema: objectMetaSchema },
      2: {
        name: 'subsets',
        type: 'message',
        repeated: true,
        schema: {
          1: {
            name: 'addresses',
            type: 'message',
            repeated: true,
            schema: { 1: { name: 'ip', type: 'string' }, 3: { name: 'hostname', type: 'string' } },
          },
          2: {
            name: 'notReadyAddresses',
            type: 'message',
            repeated: true,
            schema: { 1: { name: 'ip', type: 'string' }, 3: { name: 'hostname', type: 'string' } },
          },
          3: {
            name: 'ports',
            type: 'message',
            repeated: true,
            schema: {
              1: { name: 'name', type: 'string' },
              2: { name: 'port', type: 'int32' },
              3: { name: 'protocol', type: 'string' },
              4: { name: 'appProtocol', type: 'string' },
            },
          },
        },
      },
    },
    fields: { metadata: objectMetaFields, subsets: true },
  },
  table: {
    columns: [
      nameColumn,
      { name: 'Endpoints', type: 'string', format: '', description: 'Endpoints of the service', priority: 0 },
      ageColumn,
    ],
    cells: (obj, now) => [obj.metadata.name, formatEndpoints(obj), age(obj, now)],
  },
};
