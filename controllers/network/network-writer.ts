// The controller's writes to Network objects: its finalizer and the status subresource.
// Finalizer patches carry the resourceVersion the decision was made on, so a concurrent
// change makes them fail with 409 (and the key is retried) instead of overwriting it.
import type { KubeClient } from "../../pkg/kube/client.ts";
import { isNotFound } from "../../pkg/kube/errors.ts";
import { networkFinalizer, networkGVR, type Network, type NetworkStatus } from "./network-resource.ts";

export interface NetworkWriter {
  /** Returns the updated object. */
  addFinalizer(network: Network): Promise<Network>;
  /** Succeeds when the object is already gone. */
  removeFinalizer(network: Network): Promise<void>;
  /** Succeeds when the object is already gone. */
  writeStatus(network: Network, status: NetworkStatus): Promise<void>;
}

export function hasNetworkFinalizer(network: Network): boolean {
  return network.metadata?.finalizers?.includes(networkFinalizer) ?? false;
}

export class KubeNetworkWriter implements NetworkWriter {
  constructor(
    private readonly client: KubeClient,
    private readonly fieldManager: string,
  ) {}

  async addFinalizer(network: Network): Promise<Network> {
    const finalizers = [...(network.metadata?.finalizers ?? []), networkFinalizer];
    return this.resource(network).patch(nameOf(network), this.finalizerPatch(network, finalizers), "merge", { fieldManager: this.fieldManager });
  }

  async removeFinalizer(network: Network): Promise<void> {
    const finalizers = (network.metadata?.finalizers ?? []).filter((finalizer) => finalizer !== networkFinalizer);
    await ignoreNotFound(this.resource(network).patch(nameOf(network), this.finalizerPatch(network, finalizers), "merge", { fieldManager: this.fieldManager }));
  }

  async writeStatus(network: Network, status: NetworkStatus): Promise<void> {
    // Merge patch: fields the controller no longer sets must be nulled to disappear.
    const patch = { status: { networkID: null, subnetID: null, ...status } };
    await ignoreNotFound(this.resource(network).patch(nameOf(network), patch, "merge", { subresource: "status", fieldManager: this.fieldManager }));
  }

  private finalizerPatch(network: Network, finalizers: string[]): unknown {
    return { metadata: { finalizers, resourceVersion: network.metadata?.resourceVersion } };
  }

  private resource(network: Network) {
    return this.client.dynamic.resource<Network>(networkGVR, network.metadata?.namespace);
  }
}

function nameOf(network: Network): string {
  const name = network.metadata?.name;
  if (!name) throw new Error("Network has no metadata.name");
  return name;
}

async function ignoreNotFound(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
