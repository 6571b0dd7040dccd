// The garbage collector's flags, named and defaulted as kube-controller-manager's.
import { boolFlag, intFlag } from "../../pkg/options/flag-definition.ts";

const group = "Garbage collector controller";

export const concurrentGcSyncsFlag = intFlag({
  name: "concurrent-gc-syncs",
  group,
  default: 20,
  min: 1,
  help: "The number of garbage collector workers that are allowed to sync concurrently.",
});

export const enableGarbageCollectorFlag = boolFlag({
  name: "enable-garbage-collector",
  group,
  default: true,
  help: "Enables the generic garbage collector. MUST be synced with the corresponding flag of the kube-apiserver.",
});
