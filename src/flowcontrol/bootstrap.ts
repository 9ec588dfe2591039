// Upstream's bootstrap configuration (pkg/apis/flowcontrol/bootstrap/default.go): the mandatory
// exempt and catch-all objects plus the suggested ones.
// Built fresh per call so each server owns (and may give UIDs to) its own copies.

import {
  flowcontrolGroupVersion,
  type FlowSchema,
  type NonResourcePolicyRule,
  type PolicyRulesWithSubjects,
  type PriorityLevelConfiguration,
  type ResourcePolicyRule,
  type Subject,
} from './types.ts';

const autoupdateAnnotation = { 'apf.kubernetes.io/autoupdate-spec': 'true' };

function pl(name: string, spec: PriorityLevelConfiguration['spec']): PriorityLevelConfiguration {
  return {
    apiVersion: flowcontrolGroupVersion,
    kind: 'PriorityLevelConfiguration',
    metadata: { name, annotations: { ...autoupdateAnnotation } },
    spec,
  };
}

function queued(
  shares: number,
  lendablePercent: number,
  queues: number,
  handSize: number,
  queueLengthLimit: number,
): PriorityLevelConfiguration['spec'] {
  return {
    type: 'Limited',
    limited: {
      nominalConcurrencyShares: shares,
      lendablePercent,
      limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit } },
    },
  };
}

function fs(
  name: string,
  plName: string,
  precedence: number,
  distinguisher: 'ByUser' | 'ByNamespace' | '',
  ...rules: PolicyRulesWithSubjects[]
): FlowSchema {
  return {
    apiVersion: flowcontrolGroupVersion,
    kind: 'FlowSchema',
    metadata: { name, annotations: { ...autoupdateAnnotation } },
    spec: {
      priorityLevelConfiguration: { name: plName },
      matchingPrecedence: precedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules,
    },
  };
}

const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'User', user: { name } }));
const kubeSystemServiceAccount = (...names: string[]): Subject[] =>
  names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name } }));
const resourceRule = (
  verbs: string[],
  apiGroups: string[],
  resources: string[],
  namespaces: string[],
  clusterScope: boolean,
): ResourcePolicyRule => ({
  verbs,
  apiGroups,
  resources,
  namespaces,
  clusterScope,
});
const nonResourceRule = (verbs: string[], nonResourceURLs: string[]): NonResourcePolicyRule => ({
  verbs,
  nonResourceURLs,
});

const everything = (subjects: Subject[]): PolicyRulesWithSubjects => ({
  subjects,
  resourceRules: [resourceRule(['*'], ['*'], ['*'], ['*'], true)],
  nonResourceRules: [nonResourceRule(['*'], ['*'])],
});

export const mandatoryPriorityLevelNames = new Set(['exempt', 'catch-all']);
export const mandatoryFlowSchemaNames = new Set(['exempt', 'catch-all']);

export function mandatoryPriorityLevels(): PriorityLevelConfiguration[] {
  return [
    pl('catch-all', {
      type: 'Limited',
      limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } },
    }),
    pl('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
  ];
}

export function mandatoryFlowSchemas(): FlowSchema[] {
  return [
    fs('exempt', 'exempt', 1, '', everything(groups('system:masters'))),
    fs('catch-all', 'catch-all', 10000, 'ByUser', everything(groups('system:unauthenticated', 'system:authenticated'))),
  ];
}

export function suggestedPriorityLevels(): PriorityLevelConfiguration[] {
  return [
    pl('system', queued(30, 33, 64, 6, 50)),
    pl('node-high', queued(40, 25, 64, 6, 50)),
    pl('leader-election', queued(10, 0, 16, 4, 50)),
    pl('workload-high', queued(40, 50, 128, 6, 50)),
    pl('workload-low', queued(100, 90, 128, 6, 50)),
    pl('global-default', queued(20, 50, 128, 6, 50)),
  ];
}

export function suggestedFlowSchemas(): FlowSchema[] {
  const leases = (namespaces: string[]) =>
    resourceRule(['get', 'create', 'update'], ['coordination.k8s.io'], ['leases'], namespaces, false);
  return [
    fs('system-nodes', 'system', 500, 'ByUser', everything(groups('system:nodes'))),
    fs('system-node-high', 'node-high', 400, 'ByUser', {
      subjects: groups('system:nodes'),
      resourceRules: [
        resourceRule(['*'], [''], ['nodes', 'nodes/status'], ['*'], true),
        resourceRule(['*'], ['coordination.k8s.io'], ['leases'], ['*'], false),
      ],
    }),
    fs('probes', 'exempt', 2, '', {
      subjects: groups('system:unauthenticated', 'system:authenticated'),
      nonResourceRules: [nonResourceRule(['get'], ['/healthz', '/readyz', '/livez'])],
    }),
    fs('system-leader-election', 'leader-election', 100, 'ByUser', {
      subjects: [...users('system:kube-controller-manager', 'system:kube-scheduler'), ...kubeSystemServiceAccount('*')],
      resourceRules: [leases(['*'])],
    }),
    fs('workload-leader-election', 'leader-election', 200, 'ByUser', {
      subjects: kubeSystemServiceAccount('*'),
      resourceRules: [leases(['*'])],
    }),
    fs('endpoint-controller', 'workload-high', 150, 'ByUser', {
      subjects: [
        ...users('system:kube-controller-manager'),
        ...kubeSystemServiceAccount('endpoint-controller', 'endpointslicemirroring-controller'),
      ],
      resourceRules: [resourceRule(['get', 'create', 'update'], [''], ['endpoints'], ['*'], false)],
    }),
    fs(
      'kube-controller-manager',
      'workload-high',
      800,
      'ByNamespace',
      everything(users('system:kube-controller-manager')),
    ),
    fs('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(users('system:kube-scheduler'))),
    fs('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything(kubeSystemServiceAccount('*'))),
    fs('service-accounts', 'workload-low', 9000, 'ByUser', everything(groups('system:serviceaccounts'))),
    fs(
      'global-default',
      'global-default',
      9900,
      'ByUser',
      everything(groups('system:unauthenticated', 'system:authenticated')),
    ),
  ];
}
