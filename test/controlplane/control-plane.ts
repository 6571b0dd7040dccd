// The project's tests start kube-loom/testing's ControlPlane (pkg/testing/control-plane.ts) with
// binaries built from the pinned Go modules (binaries.ts) unless they bring their own.
import { ControlPlane as ShippedControlPlane, type ControlPlaneOptions } from "../../pkg/testing/control-plane.ts";
import { ensureBinaries } from "./binaries.ts";

export type { ControlPlaneOptions, KubeconfigOptions, KubectlOptions, KubectlResult, StopSignal } from "../../pkg/testing/control-plane.ts";

export type ControlPlane = ShippedControlPlane;

export const ControlPlane = {
  async start(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
    return ShippedControlPlane.start({ ...options, binaries: options.binaries ?? (await ensureBinaries()) });
  },
};
