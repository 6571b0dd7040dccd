// kube-controller-manager's version_info gauge (component-base's compatibility-version metric):
// always 1, its labels naming the component, its binary's version, the Kubernetes version whose
// behaviour it emulates, and the oldest one it stays compatible with (one minor below, upstream's
// default). kube-loom fills them with its own facts.
import type { Registry } from "prom-client";
import { gauge } from "./declare.ts";

export interface ComponentVersion {
  /** What runs: "kube-loom" (kube-controller-manager says "kube"). */
  component: string;
  /** Its release, without a leading "v": "0.1.0". */
  binary: string;
  /** The Kubernetes release, major.minor, whose kube-controller-manager it behaves as: "1.37". */
  emulation: string;
}

export function versionInfoMetric(registry: Registry, { component, binary, emulation }: ComponentVersion): void {
  gauge(registry, "version_info", "Always 1; the labels say which component this is, its version, and the Kubernetes versions it emulates and stays compatible with.", [
    "component",
    "binary",
    "emulation",
    "min_compat",
  ]).set({ component, binary, emulation, min_compat: previousMinor(emulation) }, 1);
}

/** "1.37" → "1.36", never below x.0. */
function previousMinor(majorMinor: string): string {
  const [major = "0", minor = "0"] = majorMinor.split(".");
  return `${major}.${Math.max(0, Number(minor) - 1)}`;
}
