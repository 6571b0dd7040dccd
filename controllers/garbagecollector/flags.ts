// The garbage collector's flags, named and defaulted as kube-controller-manager's.
import { maxWorkers } from "../../pkg/controller/controller.ts";
import { flagGroup } from "../../pkg/options/flag-group.ts";

const garbageCollector = flagGroup("Garbage collector controller");

// At most maxWorkers, where kube-controller-manager takes any int32 (README, "Differences").
export const concurrentGcSyncsFlag = garbageCollector.int("concurrent-gc-syncs", 20,
  "Objects the garbage collector examines at the same time, per queue.", { min: 1, max: maxWorkers });

export const enableGarbageCollectorFlag = garbageCollector.bool("enable-garbage-collector", true,
  "Collect objects whose owners are gone. Keep it equal to the API server's own setting of the same name.");
