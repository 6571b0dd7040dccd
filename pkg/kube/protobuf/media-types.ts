// The media types the API server speaks, and the Accept headers that ask for them.

/** Kubernetes' protobuf: the "k8s\0" envelope around a runtime.Unknown. */
export const protobufMediaType = "application/vnd.kubernetes.protobuf";
export const jsonMediaType = "application/json";

/** What --kube-api-content-type takes. */
export const apiContentTypes = [protobufMediaType, jsonMediaType] as const;
export type ApiContentType = (typeof apiContentTypes)[number];

export function isApiContentType(value: string): value is ApiContentType {
  return (apiContentTypes as readonly string[]).includes(value);
}

/** True when a response's Content-Type header names protobuf (a watch's has ";stream=watch"). */
export function isProtobufResponse(contentType: string | null): boolean {
  return contentType !== null && contentType.trimStart().startsWith(protobufMediaType);
}

/** Protobuf, with JSON accepted when the server cannot send it (client-go's Accept). */
export const protobufOrJson = `${protobufMediaType}, ${jsonMediaType}`;

/** The Accept header of a metadata-only read of one object or a list: PartialObjectMetadata(List) in `preferred`, JSON as fallback. */
export function metadataAccept(preferred: ApiContentType, list: boolean): string {
  const as = `;as=PartialObjectMetadata${list ? "List" : ""};g=meta.k8s.io;v=v1`;
  const json = `${jsonMediaType}${as},${jsonMediaType}`;
  return preferred === protobufMediaType ? `${protobufMediaType}${as},${json}` : json;
}
