import { describe, expect, test } from "bun:test";
import { bytesField, enveloped, messageField, stringField } from "../../test/support/protobuf-wire.ts";
import { DynamicClient } from "./dynamic-client.ts";
import { resources } from "./gvr.ts";
import { RestClient } from "./rest-client.ts";
import type { Fetch } from "./transport.ts";

/** A dynamic client over `fetch`, recording the Accept header of each request. */
function dynamicClient(fetch: Fetch, accepts: string[], contentType?: "application/json"): DynamicClient {
  const recording: Fetch = (url, init) => {
    accepts.push(String((init.headers as Record<string, string>).Accept));
    return fetch(url, init);
  };
  return new DynamicClient(
    new RestClient({
      config: { server: "https://api.example:6443", tls: {}, authenticate: async () => ({}), namespace: "default", source: "test" },
      fetch: recording,
      throttle: { take: async () => undefined },
      userAgent: "kube-loom/test",
      timeoutMs: 1000,
      ...(contentType ? { contentType } : {}),
    }),
  );
}

const pods = { group: "", version: "v1", resource: "pods" };
const networks = { group: "samplecrd.k8s.io", version: "v1", resource: "networks" };
const jsonList = '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"}}]}';
const json = () => new Response(jsonList, { status: 200, headers: { "Content-Type": "application/json" } });

describe("content negotiation", () => {
  test("protobuf for built-in resources, JSON for custom ones, protobuf for anyone's metadata", async () => {
    const accepts: string[] = [];
    const client = dynamicClient(async () => json(), accepts);
    await client.resource(pods).list();
    await client.resource(networks).list();
    await client.metadata(networks).list();
    expect(accepts).toEqual([
      "application/vnd.kubernetes.protobuf, application/json",
      "application/json",
      "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
    ]);
  });

  test("--kube-api-content-type=application/json asks JSON for everything", async () => {
    const accepts: string[] = [];
    const client = dynamicClient(async () => json(), accepts, "application/json");
    await client.resource(pods).list();
    await client.metadata(networks).list();
    expect(accepts).toEqual(["application/json", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"]);
  });

  test("a server answering JSON where protobuf was asked for is read as JSON", async () => {
    const list = await dynamicClient(async () => json(), []).resource(pods).list();
    expect(list.items).toEqual([{ apiVersion: "v1", kind: "Pod", metadata: { name: "a" } }]);
  });

  test("a protobuf kind the schema lacks (a newer server's) is asked again once as JSON, and JSON from then on", async () => {
    const accepts: string[] = [];
    const newer = enveloped("v1", "PodListV2", [...messageField(1, stringField(2, "5")), ...bytesField(2, [])]);
    const client = dynamicClient(async (_url, init) => {
      const accept = String((init.headers as Record<string, string>).Accept);
      return accept.startsWith("application/vnd.kubernetes.protobuf")
        ? new Response(newer, { status: 200, headers: { "Content-Type": "application/vnd.kubernetes.protobuf" } })
        : json();
    }, accepts).resource(pods);
    expect((await client.list()).items).toHaveLength(1);
    expect((await client.list()).items).toHaveLength(1);
    expect(accepts).toEqual(["application/vnd.kubernetes.protobuf, application/json", "application/json", "application/json"]);
  });
});

describe("typing", () => {
  test("a resource's object type comes from the resource, with no type argument", async () => {
    const client = dynamicClient(async () => json(), []);
    const list = await client.resource(resources.configMaps).list();
    // Compiles only if items are ConfigMaps: `data` is not a field of every KubeObject.
    const data: Record<string, string> | undefined = list.items[0]?.data;
    expect(data).toBeUndefined();
    expect(list.items[0]?.metadata?.name).toBe("a");
  });
});
