// Output media type negotiation (k8s.io/apiserver/pkg/endpoints/handlers/negotiation/negotiate.go
// and errors.go), and go-restful's Accept check of a route's Produces list, which runs before
// the handler (github.com/emicklei/go-restful/v3 route.go matchesAccept, jsr311.go detectRoute).

import { parseAccept, type Status } from './status.ts';

/** One serializer of the negotiated serializer (runtime.SerializerInfo, the parts used here). */
export interface SerializerInfo {
  mediaType: string;
  type: string;
  subType: string;
  /** Has a stream serializer (`;stream=watch`). */
  streaming: boolean;
}

function info(mediaType: string, streaming: boolean): SerializerInfo {
  const [type, subType] = mediaType.split('/') as [string, string];
  return { mediaType, type, subType, streaming };
}

export const jsonSerializer = info('application/json', true);
export const yamlSerializer = info('application/yaml', false);
export const protobufSerializer = info('application/vnd.kubernetes.protobuf', true);

/** kube-apiserver's codecs (CBOR is behind a disabled feature gate): JSON, YAML, protobuf. */
export const kubeSerializers: readonly SerializerInfo[] = [jsonSerializer, yamlSerializer, protobufSerializer];
/** Kinds this server has no protobuf encoding for (docs/differences-parity.md). */
export const jsonYAMLSerializers: readonly SerializerInfo[] = [jsonSerializer, yamlSerializer];

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** negotiation.EndpointRestrictions. */
export interface EndpointRestrictions {
  allowsMediaTypeTransform(type: string, subType: string, gvk: GroupVersionKind | undefined): boolean;
  allowsServerVersion(version: string): boolean;
  allowsStreamSchema(schema: string): boolean;
}

/** DefaultEndpointRestrictions: no conversion (`as=`), no server version, `stream=watch`. */
export const defaultEndpointRestrictions: EndpointRestrictions = {
  allowsMediaTypeTransform: (_t, _s, gvk) => gvk === undefined,
  allowsServerVersion: () => false,
  allowsStreamSchema: (s) => s === 'watch',
};

/** negotiation.MediaTypeOptions. */
export interface MediaTypeOptions {
  pretty: boolean;
  stream: string;
  convert?: GroupVersionKind;
  profile: string;
  accepted: SerializerInfo;
}

function acceptMediaTypeOptions(
  params: Record<string, string>,
  accepts: SerializerInfo,
  endpoint: EndpointRestrictions,
): MediaTypeOptions | undefined {
  const o: MediaTypeOptions = { pretty: false, stream: '', profile: '', accepted: accepts };
  for (const k in params) {
    const v = params[k]!;
    switch (k) {
      case 'as':
        (o.convert ??= { group: '', version: '', kind: '' }).kind = v;
        break;
      case 'g':
        (o.convert ??= { group: '', version: '', kind: '' }).group = v;
        break;
      case 'v':
        (o.convert ??= { group: '', version: '', kind: '' }).version = v;
        break;
      case 'stream':
        if (v && (!accepts.streaming || !endpoint.allowsStreamSchema(v))) return undefined;
        o.stream = v;
        break;
      case 'sv':
        if (v && !endpoint.allowsServerVersion(v)) return undefined;
        break;
      case 'pretty':
        o.pretty = v === '1';
        break;
      case 'profile':
        o.profile = v;
        break;
    }
  }
  if (!endpoint.allowsMediaTypeTransform(accepts.type, accepts.subType, o.convert)) return undefined;
  return o;
}

/** NegotiateMediaTypeOptions: the first clause (by q, then specificity) some serializer accepts. */
export function negotiateMediaTypeOptions(
  header: string | null,
  accepted: readonly SerializerInfo[],
  endpoint: EndpointRestrictions = defaultEndpointRestrictions,
): MediaTypeOptions | undefined {
  if (!header) return accepted.length ? { pretty: false, stream: '', profile: '', accepted: accepted[0]! } : undefined;
  for (const clause of parseAccept(header)) {
    for (const a of accepted) {
      if (
        (clause.type === a.type && (clause.subType === a.subType || clause.subType === '*')) ||
        (clause.type === '*' && clause.subType === '*')
      ) {
        const o = acceptMediaTypeOptions(clause.params, a, endpoint);
        if (o) return o;
      }
    }
  }
  return undefined;
}

/** negotiation.NewNotAcceptableError(...).Status(), as ErrorToAPIStatus returns it. */
export function newNotAcceptable(accepted: readonly SerializerInfo[]): Status {
  return {
    status: 'Failure',
    message: `only the following media types are accepted: ${accepted.map((a) => a.mediaType).join(', ')}`,
    reason: 'NotAcceptable',
    code: 406,
  };
}

/**
 * The Status go-restful's ServiceErrorHandler renders when no route produces an accepted type
 * (apierrors.NewGenericServerResponse(406, …, "406: Not Acceptable")).
 */
export function newRestfulNotAcceptable(): Status {
  return { status: 'Failure', message: '406: Not Acceptable', reason: 'NotAcceptable', details: {}, code: 406 };
}

/**
 * go-restful's Route.matchesAccept: an empty header, a `*\/*` part, or a part whose media type
 * (parameters dropped) is exactly one of `produces`. No `application/*` wildcard, as go-restful.
 */
export function restfulMatchesAccept(accept: string | null, produces: readonly string[]): boolean {
  if (!accept) return true;
  let start = 0;
  while (start <= accept.length) {
    let end = accept.indexOf(',', start);
    if (end < 0) end = accept.length;
    let semi = accept.indexOf(';', start);
    if (semi < 0 || semi > end) semi = end;
    const mt = accept.slice(start, semi).trim();
    if (mt === '*/*' || produces.includes(mt)) return true;
    start = end + 1;
  }
  return false;
}

/** The go-restful Produces list of kube-apiserver's API web services (the codecs' media types). */
export const kubeProduces: readonly string[] = kubeSerializers.map((s) => s.mediaType);
