// The Lease requests of leader election and the shard ring. They go through the RestClient
// rather than ResourceClient's create/update/patch, which take neither a timeout nor a signal:
// a renewal must not outlive its deadline.
import type { V1Lease } from "@kubernetes/client-node";
import type { KubeClient } from "./client.ts";
import type { Wire } from "./objects.ts";
import type { RestRequest } from "./rest-client.ts";

export type WireLease = Wire<V1Lease>;

/** Sends one request about a Lease and returns what the server answers. */
export type LeaseRequester = (request: Omit<RestRequest, "timeoutMs" | "signal">, signal?: AbortSignal) => Promise<WireLease>;

/** Requests through `client`, each given up after `timeoutMs` or when its signal aborts. */
export function leaseRequester(client: KubeClient, timeoutMs: number): LeaseRequester {
  return (request, signal) => client.rest.request<WireLease>({ ...request, timeoutMs, ...(signal ? { signal } : {}) });
}
