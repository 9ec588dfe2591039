// WriteObjectNegotiated / SerializeObject / WriteRawJSON (k8s.io/apiserver/pkg/endpoints/handlers/
// responsewriters/writers.go): one place where an object is written in the media type the
// request negotiated. JSON is json.Encoder (compact + "\n") or json.MarshalIndent (pretty, no
// newline); YAML is sigs.k8s.io/yaml's JSONToYAML of the JSON (keys sorted, sequences not
// indented); protobuf is the kind's encoder when the object has one.

import { goJSON, isPrettyPrint, statusObject, toKubeYAML } from './status.ts';
import {
  defaultEndpointRestrictions,
  jsonYAMLSerializers,
  kubeSerializers,
  newNotAcceptable,
  negotiateMediaTypeOptions,
  type EndpointRestrictions,
  type GroupVersionKind,
  type MediaTypeOptions,
  type SerializerInfo,
} from './negotiation.ts';

export interface WriteOptions {
  /** The object's protobuf encoding (magic + runtime.Unknown); absent: JSON and YAML only. */
  protobuf?: () => Uint8Array;
  restrictions?: EndpointRestrictions;
  /** Content-Type parameters naming the listed GVK (listGVKInContentType, aggregated discovery). */
  listGVK?: boolean;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/** The body of `value` in a negotiated media type (SerializeObject's encode step). */
export function encodeNegotiated(
  value: unknown,
  mt: MediaTypeOptions,
  pretty: boolean,
  protobuf?: () => Uint8Array,
): string | Uint8Array {
  switch (mt.accepted.subType) {
    case 'yaml':
      return toKubeYAML(value);
    case 'vnd.kubernetes.protobuf':
      return protobuf!();
    default:
      return pretty ? goJSON(value, 2) : goJSON(value) + '\n';
  }
}

/** generateMediaTypeWithGVK: `application/json;g=…;v=…;as=…`. */
function mediaTypeWithGVK(mediaType: string, gvk: GroupVersionKind | undefined): string {
  if (!gvk) return mediaType;
  let out = mediaType;
  if (gvk.group) out += `;g=${gvk.group}`;
  if (gvk.version) out += `;v=${gvk.version}`;
  if (gvk.kind) out += `;as=${gvk.kind}`;
  return out;
}

/** WriteRawJSON: json.MarshalIndent, `Content-Type: application/json`, no newline. */
export function writeRawJSON(code: number, value: unknown): Response {
  return new Response(goJSON(value, 2), { status: code, headers: { 'content-type': 'application/json' } });
}

/** The serializers available for an object: all three when it has a protobuf encoding. */
export function serializersFor(protobuf: unknown): readonly SerializerInfo[] {
  return protobuf ? kubeSerializers : jsonYAMLSerializers;
}

/**
 * WriteObjectNegotiated: negotiates the Accept header against the object's serializers; on
 * failure a successful answer becomes upstream's 406 Status and an error keeps its code (both
 * WriteRawJSON).
 */
export function writeObjectNegotiated(
  request: Request,
  url: URL,
  code: number,
  value: unknown,
  opts: WriteOptions = {},
): Response {
  const accepted = serializersFor(opts.protobuf);
  const mt = negotiateMediaTypeOptions(
    request.headers.get('accept'),
    accepted,
    opts.restrictions ?? defaultEndpointRestrictions,
  );
  if (!mt) {
    if (code < 200 || code >= 400) return writeRawJSON(code, value);
    return writeRawJSON(406, statusObject(newNotAcceptable(accepted)));
  }
  const pretty = mt.pretty || isPrettyPrint(request, url);
  const body = encodeNegotiated(value, mt, pretty, opts.protobuf);
  const contentType = opts.listGVK ? mediaTypeWithGVK(mt.accepted.mediaType, mt.convert) : mt.accepted.mediaType;
  return new Response(body as BodyInit, { status: code, headers: { 'content-type': contentType, ...opts.headers } });
}
