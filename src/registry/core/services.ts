// core/v1 services: the strategy (kube's pkg/registry/core/service/strategy.go), defaults
// (pkg/apis/core/v1/defaults.go SetDefaults_Service, SetDefaults_ServicePort), the validation kubectl
// users meet (pkg/apis/core/validation ValidateService), cluster IP allocation from
// --service-cluster-ip-range (pkg/registry/core/service/storage/alloc.go over ipallocator.ts) and the
// columns of kube's printers (pkg/printers/internalversion/printers.go printService).

import { objectMetaFields, type KnownFields } from '../../endpoints/handlers/decode.ts';
import { newInvalid } from '../../endpoints/apierrors.ts';
import { StatusError } from '../../endpoints/responsewriters/status.ts';
import type { Interface } from '../../storage/interfaces.ts';
import { objectMetaSchema, type Schema } from '../../util/protobuf.ts';
import { duplicate, invalid, notSupported, Path, required, type ErrorList } from '../../util/validation/field.ts';
import { nameIsDNS1035Label, validateDNS1123Label } from '../../util/validation/validation.ts';
import type { KubeObject, StoreHooks } from '../generic/store.ts';
import { age, ageColumn, nameColumn } from '../generic/table.ts';
import { candidates, contains, ipFamily, parseCIDR, parseIP, type CIDR } from './ipallocator.ts';
import type { ResourceDefinition } from './resources.ts';
import { fieldLabelConversion, selectableFields } from '../generic/fieldlabels.ts';

export interface ServicePort {
  name?: string;
  protocol?: string;
  appProtocol?: string;
  port?: number;
  targetPort?: number | string;
  nodePort?: number;
}

export interface ServiceSpec {
  ports?: ServicePort[];
  selector?: Record<string, string>;
  clusterIP?: string;
  clusterIPs?: string[];
  type?: string;
  externalIPs?: string[];
  sessionAffinity?: string;
  externalName?: string;
  externalTrafficPolicy?: string;
  internalTrafficPolicy?: string;
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  allocateLoadBalancerNodePorts?: boolean;
  [k: string]: unknown;
}

const spec = (obj: KubeObject): ServiceSpec => (obj.spec ??= {}) as ServiceSpec;
const serviceTypes = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const protocols = ['SCTP', 'TCP', 'UDP'];
const affinities = ['ClientIP', 'None'];
const trafficPolicies = ['Cluster', 'Local'];
const ipFamilyPolicies = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
export const ClusterIPNone = 'None';

/** needsClusterIP (service/storage/alloc.go): every type but ExternalName. */
const needsClusterIP = (s: ServiceSpec): boolean => s.type !== 'ExternalName';
const needsNodePort = (s: ServiceSpec): boolean => s.type === 'NodePort' || s.type === 'LoadBalancer';

/** SetDefaults_Service and SetDefaults_ServicePort. */
function setDefaults(obj: KubeObject): void {
  const s = spec(obj);
  s.type ??= 'ClusterIP';
  s.sessionAffinity ??= 'None';
  for (const p of s.ports ?? []) {
    p.protocol ??= 'TCP';
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if (needsNodePort(s)) s.externalTrafficPolicy ??= 'Cluster';
  if (s.type === 'LoadBalancer') s.allocateLoadBalancerNodePorts ??= true;
  if (s.type !== 'ExternalName') s.internalTrafficPolicy ??= 'Cluster';
  // The strategy's normalizeClusterIPs: clusterIP and clusterIPs[0] agree.
  if (s.clusterIP && !s.clusterIPs?.length) s.clusterIPs = [s.clusterIP];
  else if (!s.clusterIP && s.clusterIPs?.length) s.clusterIP = s.clusterIPs[0];
}

function validatePort(p: ServicePort, path: Path, requireName: boolean): ErrorList {
  const errs: ErrorList = [];
  if (requireName && !p.name) errs.push(required(path.child('name')));
  else if (p.name) for (const m of validateDNS1123Label(p.name)) errs.push(invalid(path.child('name'), p.name, m));
  if (typeof p.port !== 'number' || !Number.isInteger(p.port) || p.port < 1 || p.port > 65535)
    errs.push(invalid(path.child('port'), p.port ?? 0, 'must be between 1 and 65535, inclusive'));
  if (!protocols.includes(p.protocol ?? ''))
    errs.push(notSupported(path.child('protocol'), p.protocol ?? '', protocols));
  const tp = p.targetPort;
  if (typeof tp === 'number') {
    if (!Number.isInteger(tp) || tp < 1 || tp > 65535)
      errs.push(invalid(path.child('targetPort'), tp, 'must be between 1 and 65535, inclusive'));
  } else if (typeof tp === 'string') {
    if (tp.length > 15) errs.push(invalid(path.child('targetPort'), tp, 'must be no more than 15 characters'));
    else if (!/^[-a-z0-9]+$/.test(tp) || !/[a-z]/.test(tp))
      errs.push(
        invalid(path.child('targetPort'), tp, 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)'),
      );
  }
  if (p.nodePort !== undefined && p.nodePort !== 0 && (p.nodePort < 1 || p.nodePort > 65535))
    errs.push(invalid(path.child('nodePort'), p.nodePort, 'must be between 1 and 65535, inclusive'));
  return errs;
}

/** ValidateService, the parts clients hit (types, ports, IPs, policies). */
export function validateService(obj: KubeObject): ErrorList {
  const s = spec(obj);
  const errs: ErrorList = [];
  const specPath = Path.of('spec');
  if (!serviceTypes.includes(s.type ?? '')) errs.push(notSupported(specPath.child('type'), s.type ?? '', serviceTypes));
  const headless = s.clusterIP === ClusterIPNone;
  const ports = s.ports ?? [];
  if (s.type === 'ExternalName') {
    if (!s.externalName) errs.push(required(specPath.child('externalName')));
    else
      for (const m of validateDNS1123Label(s.externalName.split('.')[0] ?? ''))
        errs.push(invalid(specPath.child('externalName'), s.externalName, m));
  } else if (ports.length === 0 && !headless) {
    errs.push(required(specPath.child('ports')));
  }
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const path = specPath.child('ports').index(i);
    errs.push(...validatePort(p, path, ports.length > 1));
    if (p.name) {
      if (names.has(p.name)) errs.push(duplicate(path.child('name'), p.name));
      names.add(p.name);
    }
  });
  if (headless && needsNodePort(s))
    errs.push(
      invalid(specPath.child('clusterIPs').index(0), s.clusterIP, "may not be set to 'None' for NodePort services"),
    );
  (s.clusterIPs ?? []).forEach((ip, i) => {
    if (ip === ClusterIPNone && i === 0) return;
    if (!parseIP(ip))
      errs.push(
        invalid(
          specPath.child('clusterIPs').index(i),
          ip,
          'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
        ),
      );
  });
  (s.externalIPs ?? []).forEach((ip, i) => {
    if (!parseIP(ip))
      errs.push(
        invalid(
          specPath.child('externalIPs').index(i),
          ip,
          'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
        ),
      );
  });
  if (!affinities.includes(s.sessionAffinity ?? ''))
    errs.push(notSupported(specPath.child('sessionAffinity'), s.sessionAffinity ?? '', affinities));
  if (s.externalTrafficPolicy !== undefined && !trafficPolicies.includes(s.externalTrafficPolicy))
    errs.push(notSupported(specPath.child('externalTrafficPolicy'), s.externalTrafficPolicy, trafficPolicies));
  if (s.internalTrafficPolicy !== undefined && !trafficPolicies.includes(s.internalTrafficPolicy))
    errs.push(notSupported(specPath.child('internalTrafficPolicy'), s.internalTrafficPolicy, trafficPolicies));
  if (s.ipFamilyPolicy !== undefined && !ipFamilyPolicies.includes(s.ipFamilyPolicy))
    errs.push(notSupported(specPath.child('ipFamilyPolicy'), s.ipFamilyPolicy, ipFamilyPolicies));
  return errs;
}

/** The cluster IP may not change once set (validateUpgradeDowngradeClusterIPs), except to or from ExternalName. */
function validateServiceUpdate(obj: KubeObject, old: KubeObject): ErrorList {
  const s = spec(obj);
  const o = (old.spec ?? {}) as ServiceSpec;
  const errs = validateService(obj);
  if (
    needsClusterIP(s) &&
    needsClusterIP(o) &&
    (o.clusterIPs?.[0] ?? '') !== '' &&
    s.clusterIPs?.[0] !== o.clusterIPs?.[0]
  )
    errs.push(invalid(Path.of('spec', 'clusterIPs').index(0), s.clusterIPs ?? [], 'may not change once set'));
  return errs;
}

/** ValidateServiceStatusUpdate: load balancer ingress IPs are IPs. */
function validateServiceStatus(obj: KubeObject): ErrorList {
  const errs: ErrorList = [];
  const ingress =
    ((obj.status ?? {}) as { loadBalancer?: { ingress?: { ip?: string }[] } }).loadBalancer?.ingress ?? [];
  ingress.forEach((ing, i) => {
    if (ing.ip && !parseIP(ing.ip))
      errs.push(
        invalid(
          Path.of('status', 'loadBalancer', 'ingress').index(i).child('ip'),
          ing.ip,
          'must be a valid IP address',
        ),
      );
  });
  return errs;
}

/** patchAllocatedValues: an update that leaves the allocated cluster IPs and node ports out keeps them. */
function patchAllocatedValues(obj: KubeObject, old: KubeObject): void {
  const s = spec(obj);
  const o = (old.spec ?? {}) as ServiceSpec;
  if (needsClusterIP(s) && needsClusterIP(o)) {
    if (!s.clusterIP) s.clusterIP = o.clusterIP;
    if (!s.clusterIPs?.length && o.clusterIPs?.length) s.clusterIPs = [...o.clusterIPs];
    s.ipFamilies ??= o.ipFamilies;
    s.ipFamilyPolicy ??= o.ipFamilyPolicy;
  }
  if (needsNodePort(s) && needsNodePort(o))
    for (const p of s.ports ?? []) {
      if (p.nodePort) continue;
      const match = o.ports?.find((q) => q.port === p.port && (q.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
      if (match?.nodePort) p.nodePort = match.nodePort;
    }
}

// --- allocation ---

/** The IPAddress object kube's allocator writes for each allocated IP (networking.k8s.io/v1). */
function ipAddressObject(ip: string, family: string, svc: KubeObject): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IPAddress',
    metadata: {
      name: ip,
      labels: {
        'ipaddress.kubernetes.io/ip-family': family,
        'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io',
      },
    },
    spec: {
      parentRef: { group: '', resource: 'services', namespace: svc.metadata.namespace, name: svc.metadata.name },
    },
  };
}

const defaultNodePortRange: [number, number] = [30000, 32767];

export interface ServiceAllocatorConfig {
  /** `--service-cluster-ip-range`, primary first. */
  ranges: readonly string[];
  /** Storage of networking.k8s.io/ipaddresses (keys `/ipaddresses/<ip>`). */
  ipAddresses: Interface;
  /** Lists every service (node ports in use). */
  listServices: () => Promise<KubeObject[]>;
}

/**
 * BeginCreate and AfterDelete of services: a cluster IP from the range (the requested one if free and
 * in range), node ports for NodePort and LoadBalancer services; released when the service goes.
 */
export function serviceAllocator(c: ServiceAllocatorConfig): StoreHooks {
  const ranges = c.ranges.map((r) => parseCIDR(r)).filter((r): r is CIDR => !!r);
  const primary = ranges[0]!;
  const ipKey = (ip: string) => `/ipaddresses/${ip}`;
  const invalidIPs = (obj: KubeObject, ips: unknown, msg: string) =>
    newInvalid({ group: '', kind: 'Service' }, obj.metadata.name ?? '', [
      invalid(Path.of('spec', 'clusterIPs'), ips, msg),
    ]);

  /** Reserves `ip` (or, dry run, checks it is free): false when taken. */
  const reserve = async (ip: string, svc: KubeObject, dryRun: boolean): Promise<boolean> => {
    const key = ipKey(ip);
    if (dryRun) return !(await c.ipAddresses.get(key, { ignoreNotFound: true }));
    try {
      await c.ipAddresses.create(key, ipAddressObject(ip, ipFamily(primary), svc));
      return true;
    } catch (err) {
      if (err instanceof Error && err.name === 'StorageError' && (err as { code?: number }).code === 2) return false;
      throw err;
    }
  };
  const release = async (ip: string): Promise<void> => {
    await c.ipAddresses.delete(ipKey(ip)).catch(() => {});
  };

  return {
    async beginCreate(obj, { dryRun }) {
      const s = spec(obj);
      const allocated: string[] = [];
      if (needsClusterIP(s) && s.clusterIP !== ClusterIPNone) {
        if (s.clusterIP) {
          if (!contains(primary, s.clusterIP))
            throw invalidIPs(
              obj,
              s.clusterIPs ?? [s.clusterIP],
              `failed to allocate IP ${s.clusterIP}: the provided IP (${s.clusterIP}) is not in the valid range. The range of valid IPs is ${primary.text}`,
            );
          if (!(await reserve(s.clusterIP, obj, dryRun)))
            throw invalidIPs(
              obj,
              s.clusterIPs ?? [s.clusterIP],
              `failed to allocate IP ${s.clusterIP}: provided IP is already allocated`,
            );
          allocated.push(s.clusterIP);
        } else {
          let got: string | undefined;
          for (const ip of candidates(primary)) {
            if (await reserve(ip, obj, dryRun)) {
              got = ip;
              break;
            }
          }
          if (!got)
            throw new StatusError({
              status: 'Failure',
              message: `Internal error occurred: failed to allocate a serviceIP: range is full`,
              reason: 'InternalError',
              details: { causes: [{ message: 'failed to allocate a serviceIP: range is full' }] },
              code: 500,
            });
          allocated.push(got);
          s.clusterIP = got;
        }
        s.clusterIPs = [s.clusterIP!];
      } else if (s.clusterIP === ClusterIPNone) {
        s.clusterIPs = [ClusterIPNone];
      }
      if (needsClusterIP(s)) {
        s.ipFamilyPolicy ??= 'SingleStack';
        s.ipFamilies ??= [ipFamily(primary)];
      }
      if (needsNodePort(s)) await allocateNodePorts(obj, c.listServices);
      return async (success) => {
        if (!success && !dryRun) for (const ip of allocated) await release(ip);
      };
    },
    async afterDelete(obj) {
      for (const ip of ((obj.spec ?? {}) as ServiceSpec).clusterIPs ?? []) if (ip !== ClusterIPNone) await release(ip);
    },
  };
}

/** Node ports for NodePort/LoadBalancer services: the requested one if free, else a random free one. */
async function allocateNodePorts(obj: KubeObject, listServices: () => Promise<KubeObject[]>): Promise<void> {
  const used = new Set<number>();
  for (const svc of await listServices())
    for (const p of ((svc.spec ?? {}) as ServiceSpec).ports ?? []) if (p.nodePort) used.add(p.nodePort);
  const [lo, hi] = defaultNodePortRange;
  const ports = spec(obj).ports ?? [];
  const errs: ErrorList = [];
  ports.forEach((p, i) => {
    if (!p.nodePort) return;
    if (p.nodePort < lo || p.nodePort > hi)
      errs.push(
        invalid(
          Path.of('spec', 'ports').index(i).child('nodePort'),
          p.nodePort,
          `provided port is not in the valid range. The range of valid ports is ${lo}-${hi}`,
        ),
      );
    else if (used.has(p.nodePort))
      errs.push(
        invalid(Path.of('spec', 'ports').index(i).child('nodePort'), p.nodePort, 'provided port is already allocated'),
      );
    used.add(p.nodePort);
  });
  if (errs.length) throw newInvalid({ group: '', kind: 'Service' }, obj.metadata.name ?? '', errs);
  for (const p of ports) {
    if (p.nodePort) continue;
    const start = lo + Math.floor(Math.random() * (hi - lo + 1));
    for (let i = 0; i <= hi - lo; i++) {
      const port = lo + ((start - lo + i) % (hi - lo + 1));
      if (!used.has(port)) {
        p.nodePort = port;
        used.add(port);
        break;
      }
    }
  }
}

// --- table (printService) ---

function externalIP(
  s: ServiceSpec,
  status: { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } },
): string {
  const external = s.externalIPs ?? [];
  switch (s.type) {
    case 'ExternalName':
      return s.externalName ?? '';
    case 'LoadBalancer': {
      const lb = (status.loadBalancer?.ingress ?? []).map((i) => i.ip || i.hostname || '').filter(Boolean);
      const all = [...lb, ...external];
      return all.length ? all.join(',') : '<pending>';
    }
    default:
      return external.length ? external.join(',') : '<none>';
  }
}

function portsString(ports: ServicePort[]): string {
  if (!ports.length) return '<none>';
  return ports
    .map((p) => (p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol ?? 'TCP'}` : `${p.port}/${p.protocol ?? 'TCP'}`))
    .join(',');
}

/** labels.FormatLabels: sorted `k=v` pairs, `<none>` when empty. */
function formatLabels(m: Record<string, string> | undefined): string {
  const keys = Object.keys(m ?? {}).sort();
  return keys.length ? keys.map((k) => `${k}=${m![k]}`).join(',') : '<none>';
}

const col = (name: string, description: string, priority = 0) => ({
  name,
  type: 'string',
  format: '',
  description,
  priority,
});

// --- protobuf (k8s.io/api/core/v1/generated.proto) ---

const intOrStringSchema: Schema = {
  1: { name: 'type', type: 'int64' },
  2: { name: 'intVal', type: 'int32' },
  3: { name: 'strVal', type: 'string' },
};

const servicePortSchema: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'protocol', type: 'string' },
  3: { name: 'port', type: 'int32' },
  4: { name: 'targetPort', type: 'message', schema: intOrStringSchema },
  5: { name: 'nodePort', type: 'int32' },
  6: { name: 'appProtocol', type: 'string' },
};

const serviceSpecSchema: Schema = {
  1: { name: 'ports', type: 'message', schema: servicePortSchema, repeated: true },
  2: { name: 'selector', type: 'map', value: 'string' },
  3: { name: 'clusterIP', type: 'string' },
  4: { name: 'type', type: 'string' },
  5: { name: 'externalIPs', type: 'strings' },
  7: { name: 'sessionAffinity', type: 'string' },
  8: { name: 'loadBalancerIP', type: 'string' },
  9: { name: 'loadBalancerSourceRanges', type: 'strings' },
  10: { name: 'externalName', type: 'string' },
  11: { name: 'externalTrafficPolicy', type: 'string' },
  12: { name: 'healthCheckNodePort', type: 'int32' },
  13: { name: 'publishNotReadyAddresses', type: 'bool' },
  14: { name: 'sessionAffinityConfig', type: 'skip' },
  17: { name: 'ipFamilies', type: 'strings' },
  18: { name: 'clusterIPs', type: 'strings' },
  19: { name: 'ipFamilyPolicy', type: 'string' },
  20: { name: 'allocateLoadBalancerNodePorts', type: 'bool' },
  21: { name: 'loadBalancerClass', type: 'string' },
  22: { name: 'internalTrafficPolicy', type: 'string' },
  23: { name: 'trafficDistribution', type: 'string' },
};

/** IntOrString from protobuf → the JSON number or string. */
function fixTargetPorts(obj: Record<string, unknown>): void {
  for (const p of ((obj.spec ?? {}) as ServiceSpec).ports ?? []) {
    const tp = p.targetPort as unknown as { type?: number; intVal?: number; strVal?: string } | undefined;
    if (tp && typeof tp === 'object') p.targetPort = tp.type === 1 ? (tp.strVal ?? '') : (tp.intVal ?? 0);
  }
}

const serviceFields: KnownFields = {
  metadata: objectMetaFields,
  spec: {
    ports: [{ name: true, protocol: true, appProtocol: true, port: true, targetPort: true, nodePort: true }],
    selector: true,
    clusterIP: true,
    clusterIPs: true,
    type: true,
    externalIPs: true,
    sessionAffinity: true,
    loadBalancerIP: true,
    loadBalancerSourceRanges: true,
    externalName: true,
    externalTrafficPolicy: true,
    healthCheckNodePort: true,
    publishNotReadyAddresses: true,
    sessionAffinityConfig: true,
    ipFamilies: true,
    ipFamilyPolicy: true,
    allocateLoadBalancerNodePorts: true,
    loadBalancerClass: true,
    internalTrafficPolicy: true,
    trafficDistribution: true,
  },
  status: true,
};

export const service: ResourceDefinition = {
  group: '',
  version: 'v1',
  resource: {
    name: 'services',
    singularName: 'service',
    namespaced: true,
    kind: 'Service',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['svc'],
    categories: ['all'],
    subresources: [{ name: 'status', kind: 'Service', verbs: ['get', 'patch', 'update'] }],
  },
  listKind: 'ServiceList',
  strategy: {
    namespaceScoped: true,
    validateName: nameIsDNS1035Label,
    getAttrs: selectableFields(true, (obj) => {
      const spec = (obj.spec ?? {}) as { clusterIP?: string; type?: string };
      return { 'spec.clusterIP': spec.clusterIP ?? '', 'spec.type': spec.type ?? '' };
    }),
    convertFieldLabel: fieldLabelConversion(['metadata.namespace', 'metadata.name', 'spec.clusterIP', 'spec.type']),
    // PUT never creates a service here: allocation runs on create only (upstream allows it).
    allowUnconditionalUpdate: true,
    prepareForCreate(obj) {
      obj.status = { loadBalancer: {} };
      setDefaults(obj);
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
      setDefaults(obj);
      patchAllocatedValues(obj, old);
    },
    validate: validateService,
    validateUpdate: validateServiceUpdate,
    subresources: {
      // serviceStatusStrategy: status changes are not allowed to update spec.
      status: {
        prepareForUpdate(obj, old) {
          obj.spec = old.spec;
        },
        validateUpdate: validateServiceStatus,
      },
    },
  },
  kindInfo: {
    group: '',
    version: 'v1',
    kind: 'Service',
    schema: {
      1: { name: 'metadata', type: 'message', schema: objectMetaSchema },
      2: { name: 'spec', type: 'message', schema: serviceSpecSchema },
      3: { name: 'status', type: 'skip' },
    },
    fields: serviceFields,
    afterProtobuf: fixTargetPorts,
  },
  table: {
    columns: [
      nameColumn,
      col('Type', 'type determines how the Service is exposed.'),
      col('Cluster-IP', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
      col(
        'External-IP',
        'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
      ),
      col('Port(s)', 'The list of ports that are exposed by this service.'),
      ageColumn,
      col('Selector', 'Route service traffic to pods with label keys and values matching this selector.', 1),
    ],
    cells(obj, now) {
      const s = (obj.spec ?? {}) as ServiceSpec;
      return [
        obj.metadata.name,
        s.type ?? '',
        s.clusterIP || '<none>',
        externalIP(s, (obj.status ?? {}) as never),
        portsString(s.ports ?? []),
        age(obj, now),
        formatLabels(s.selector),
      ];
    },
  },
};
