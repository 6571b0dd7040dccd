// The garbage collector's flags, named and defaulted as kube-controller-manager's.
import { boolFlag, intFlag } from "../../pkg/options/flag-definition.ts";

const group = "Garbage collector controller";

export const concurrentGcSyncsFlag = intFlag({
  name: "concurrent-gc-syncs",
  group,
  default: 20,
  min: 1,
  help: "Objects the garbage collector examines at the same time, per queue.",
});

export const enableGarbageCollectorFlag = boolFlag({
  name: "enable-garbage-collector",
  group,
  default: true,
  help: "Collect objects whose owners are gone. Keep it equal to the API server's own setting of the same name.",
});
