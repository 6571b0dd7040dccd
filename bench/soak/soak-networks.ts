// The Network objects the soak creates, standalone and in owner trees: each gets a /24 of its
// own, so no two ever overlap whatever order they are created and deleted in.
import { apiVersionOf } from "../../pkg/kube/gvr.ts";
import { networkGVR, type Network } from "../../controllers/network/network-resource.ts";

export class SoakNetworks {
  #count = 0;

  /** A new Network manifest named `name` with the next free subnet. */
  next(name: string): Network {
    const n = this.#count++;
    const prefix = `10.${(n >> 8) & 255}.${n & 255}`;
    return { apiVersion: apiVersionOf(networkGVR), kind: "Network", metadata: { name }, spec: { cidr: `${prefix}.0/24`, gateway: `${prefix}.1` } };
  }
}
