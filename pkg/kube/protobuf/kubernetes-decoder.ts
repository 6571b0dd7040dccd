// The decoder of the built-in Kubernetes types, made once per process on first use.
import { MessageDecoder } from "./message-decoder.ts";
import { kubernetesSchema } from "./schema.generated.ts";

let decoder: MessageDecoder | undefined;

export function kubernetesDecoder(): MessageDecoder {
  return (decoder ??= new MessageDecoder(kubernetesSchema));
}

let builtInGroupVersions: ReadonlySet<string> | undefined;

/**
 * True when the schema has the types of this group and version ("v1", "apps/v1"): the API server
 * serves them as protobuf. Custom resources and aggregated APIs are not in it.
 */
export function isBuiltInGroupVersion(apiVersion: string): boolean {
  builtInGroupVersions ??= new Set(Object.keys(kubernetesSchema.kinds).map((key) => key.slice(0, key.lastIndexOf("/"))));
  return builtInGroupVersions.has(apiVersion);
}
