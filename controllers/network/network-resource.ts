// The Network custom resource (samplecrd.k8s.io/v1, config/crd/) as the controller sees
// it on the wire: desired state in spec, observed state in status.
import { resourceType } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";

const networkGroup = "samplecrd.k8s.io";
const networkVersion = "v1";
export const networkGVR = resourceType<Network>({ group: networkGroup, version: networkVersion, resource: "networks", kind: "Network", namespaced: true });

/** Holds a Network until its provider network is gone (controller-runtime style: `<group>/<purpose>`). */
export const networkFinalizer = `${networkGroup}/network-protection`;

export interface NetworkSpec {
  /** IPv4 or IPv6 CIDR in canonical form, e.g. 10.0.0.0/24. */
  cidr?: string;
  /** A host address inside cidr. */
  gateway?: string;
  /** Provider-side name; default `<namespace>/<name>`. */
  name?: string;
}

export type ConditionStatus = "True" | "False" | "Unknown";

/** metav1.Condition. */
export interface Condition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface NetworkStatus {
  conditions?: Condition[];
  observedGeneration?: number;
  networkID?: string;
  subnetID?: string;
}

export interface Network extends KubeObject {
  spec?: NetworkSpec;
  status?: NetworkStatus;
}
