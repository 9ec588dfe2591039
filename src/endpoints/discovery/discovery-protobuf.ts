// Protobuf encodings of the discovery kinds, as kube-apiserver's protobuf serializer writes them:
// `k8s\0` + runtime.Unknown{typeMeta, raw}, raw in gogo's field order with gogo's habit of
// writing non-pointer strings, bools and embedded messages even when empty. Field numbers:
// k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto (APIVersions, APIGroupList, APIGroup,
// APIResourceList, APIResource, ServerAddressByClientCIDR, GroupVersionForDiscovery, Verbs,
// ListMeta, ObjectMeta, GroupVersionKind) and k8s.io/api/apidiscovery/v2/generated.proto.
// Input is the JSON shape discovery.ts builds, so both encodings come from one document.

import { encodeEnvelope, encodeMessage, type EncField } from '../../util/protobuf.ts';

type J = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): J[] => (Array.isArray(v) ? (v as J[]) : []);
const strs = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : []);
const repeated = (n: number, v: unknown): EncField[] => strs(v).map((s) => [n, s] as EncField);

function serverAddress(a: J): EncField[] {
  return [
    [1, str(a.clientCIDR)],
    [2, str(a.serverAddress)],
  ];
}

function groupVersionForDiscovery(v: J | undefined): EncField[] {
  return [
    [1, str(v?.groupVersion)],
    [2, str(v?.version)],
  ];
}

function apiGroup(g: J): EncField[] {
  return [
    [1, str(g.name)],
    ...arr(g.versions).map((v) => [2, groupVersionForDiscovery(v)] as EncField),
    [3, groupVersionForDiscovery(g.preferredVersion as J | undefined)],
    ...arr(g.serverAddressByClientCIDRs).map((a) => [4, serverAddress(a)] as EncField),
  ];
}

function apiResource(r: J): EncField[] {
  const f: EncField[] = [
    [1, str(r.name)],
    [2, r.namespaced === true],
    [3, str(r.kind)],
  ];
  if (Array.isArray(r.verbs)) f.push([4, repeated(1, r.verbs)]);
  f.push(...repeated(5, r.shortNames), [6, str(r.singularName)], ...repeated(7, r.categories));
  f.push([8, str(r.group)], [9, str(r.version)], [10, str(r.storageVersionHash)]);
  return f;
}

function gvk(k: J): EncField[] {
  return [
    [1, str(k.group)],
    [2, str(k.version)],
    [3, str(k.kind)],
  ];
}

function resourceDiscovery(r: J): EncField[] {
  const f: EncField[] = [[1, str(r.resource)]];
  if (r.responseKind) f.push([2, gvk(r.responseKind as J)]);
  f.push(
    [3, str(r.scope)],
    [4, str(r.singularResource)],
    ...repeated(5, r.verbs),
    ...repeated(6, r.shortNames),
    ...repeated(7, r.categories),
  );
  for (const s of arr(r.subresources)) {
    const sf: EncField[] = [[1, str(s.subresource)]];
    if (s.responseKind) sf.push([2, gvk(s.responseKind as J)]);
    sf.push(...arr(s.acceptedTypes).map((t) => [3, gvk(t)] as EncField), ...repeated(4, s.verbs));
    f.push([8, sf]);
  }
  return f;
}

/** ObjectMeta with only a name, as gogo writes it (every non-pointer field, an empty Time). */
function objectMeta(name: string): EncField[] {
  return [
    [1, name],
    [2, ''],
    [3, ''],
    [4, ''],
    [5, ''],
    [6, ''],
    [7, 0],
    [8, []],
  ];
}

function raw(obj: J): EncField[] {
  switch (obj.kind) {
    case 'APIVersions':
      return [
        ...repeated(1, obj.versions),
        ...arr(obj.serverAddressByClientCIDRs).map((a) => [2, serverAddress(a)] as EncField),
      ];
    case 'APIGroupList':
      return arr(obj.groups).map((g) => [1, apiGroup(g)] as EncField);
    case 'APIGroup':
      return apiGroup(obj);
    case 'APIResourceList':
      return [[1, str(obj.groupVersion)], ...arr(obj.resources).map((r) => [2, apiResource(r)] as EncField)];
    case 'APIGroupDiscoveryList':
      return [
        [
          1,
          [
            [1, ''],
            [2, ''],
            [3, ''],
          ],
        ],
        ...arr(obj.items).map(
          (g) =>
            [
              2,
              [
                [1, objectMeta(str((g.metadata as J | undefined)?.name))],
                ...arr(g.versions).map(
                  (v) =>
                    [
                      2,
                      [
                        [1, str(v.version)],
                        ...arr(v.resources).map((r) => [2, resourceDiscovery(r)] as EncField),
                        [3, str(v.freshness)],
                      ],
                    ] as EncField,
                ),
              ],
            ] as EncField,
        ),
      ];
  }
  throw new Error(`no protobuf encoding for kind ${String(obj.kind)}`);
}

/** The protobuf body of a discovery document; `apiVersion` "" for the version-stripped kinds. */
export function encodeDiscoveryProtobuf(obj: J): Uint8Array {
  return encodeEnvelope(str(obj.apiVersion), str(obj.kind), encodeMessage(raw(obj)));
}
