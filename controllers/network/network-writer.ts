// The controller's writes to Network objects: its finalizer and the status subresource.
// Finalizer writes carry the resourceVersion the decision was made on (pkg/kube/finalizers.ts),
// so a concurrent change makes them fail with 409 (and the key is retried) instead of overwriting it.
import type { KubeClient } from "../../pkg/kube/client.ts";
import { isNotFound } from "../../pkg/kube/errors.ts";
import { addFinalizer, type FinalizerTarget, removeFinalizer } from "../../pkg/kube/finalizers.ts";
import { networkFinalizer, networkGVR, type Network, type NetworkStatus } from "./network-resource.ts";

export interface NetworkWriter {
  /** Returns the updated object, or undefined when it is already gone. */
  addFinalizer(network: Network): Promise<Network | undefined>;
  /** Succeeds when the object is already gone. */
  removeFinalizer(network: Network): Promise<void>;
  /** Succeeds when the object is already gone. */
  writeStatus(network: Network, status: NetworkStatus): Promise<void>;
}

export class KubeNetworkWriter implements NetworkWriter {
  private readonly target: FinalizerTarget<Network>;

  constructor(
    private readonly client: KubeClient,
    private readonly fieldManager: string,
  ) {
    this.target = { client, resource: networkGVR, fieldManager };
  }

  addFinalizer(network: Network): Promise<Network | undefined> {
    return addFinalizer(this.target, network, networkFinalizer);
  }

  async removeFinalizer(network: Network): Promise<void> {
    await removeFinalizer(this.target, network, networkFinalizer);
  }

  async writeStatus(network: Network, status: NetworkStatus): Promise<void> {
    const name = network.metadata?.name;
    if (!name) throw new Error("Network has no metadata.name");
    // Merge patch: fields the controller no longer sets must be nulled to disappear.
    const patch = { status: { networkID: null, subnetID: null, ...status } };
    try {
      await this.client.dynamic.resource<Network>(networkGVR, network.metadata?.namespace).patch(name, patch, "merge", { subresource: "status", fieldManager: this.fieldManager });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
