// A ReplicaSet case: a few ReplicaSets with disjoint selectors (app=rs<id>) and steps of scale
// operations, Pods created, relabelled, held by the test's finalizer and deleted, ReplicaSets
// deleted (orphaning among them) and created again to adopt what they left. Plain data, so a case
// can be printed, saved, replayed and shrunk.
//
// Which Pod a ReplicaSet deletes when it has too many is decided, among equally ranked Pods, by
// UID: random. So every Pod the test creates or touches gets a deletion cost nobody else has
// (controller.kubernetes.io/pod-deletion-cost), and the Pods left at cost 0 are the controller's
// own, untouched ones, which snapshots do not tell apart.
import type { Propagation } from "./gc-case.ts";

/** The id of the ReplicaSet whose selector the Pod matches, or "stray" for none. */
export type AppLabel = number | "stray";

/** A named Pod the test created, or the `index`-th (in snapshot order, modulo their number) live Pod with that controller. */
export type PodChoice = { pod: number } | { controlledBy: number | "none"; index: number };

export interface PodLabels {
  app: AppLabel;
  /** tier=t, which templates with `tierLabel` carry and selectors never require. */
  tier: boolean;
  /** A deletion cost unique within the case, never 0. */
  cost: number;
}

export type RsOperation =
  | { type: "create-replicaset"; replicaSet: number; replicas: number }
  | { type: "scale"; replicaSet: number; replicas: number }
  | { type: "delete-replicaset"; replicaSet: number; propagation: Propagation }
  /** The Pod is named p<pod>. */
  | { type: "create-pod"; pod: number; labels: PodLabels; held: boolean }
  | { type: "relabel-pod"; choice: PodChoice; labels: PodLabels }
  | { type: "hold-pod"; choice: PodChoice; cost: number }
  | { type: "delete-pod"; choice: PodChoice }
  | { type: "release-pods" };

export interface RsReplicaSet {
  id: number;
  /** The template adds tier=t to the selector's labels, so fullyLabeledReplicas can differ from replicas. */
  tierLabel: boolean;
}

export interface RsCase {
  replicaSets: RsReplicaSet[];
  /** The operations of a step are sent together; both sides quiesce between steps. */
  steps: RsOperation[][];
}

export function appLabelValue(app: AppLabel): string {
  return app === "stray" ? "stray" : `rs${app}`;
}

/** The case as a short script, one line per step. */
export function describeRsCase(testCase: RsCase): string[] {
  return [
    ...testCase.replicaSets.map((rs) => `ReplicaSet rs${rs.id}: selector app=rs${rs.id}, template labels app=rs${rs.id}${rs.tierLabel ? ",tier=t" : ""}`),
    ...testCase.steps.map((step, index) => `step ${index + 1}: ${step.map(describeRsOperation).join(" + ")}`),
  ];
}

function describeRsOperation(operation: RsOperation): string {
  switch (operation.type) {
    case "create-replicaset":
      return `create rs${operation.replicaSet} with ${operation.replicas} replicas`;
    case "scale":
      return `scale rs${operation.replicaSet} to ${operation.replicas}`;
    case "delete-replicaset":
      return `delete rs${operation.replicaSet} (${operation.propagation})`;
    case "create-pod":
      return `create Pod p${operation.pod} ${describeLabels(operation.labels)}${operation.held ? " with the test's finalizer" : ""}`;
    case "relabel-pod":
      return `relabel ${describeChoice(operation.choice)} to ${describeLabels(operation.labels)}`;
    case "hold-pod":
      return `put the test's finalizer (and cost ${operation.cost}) on ${describeChoice(operation.choice)}`;
    case "delete-pod":
      return `delete ${describeChoice(operation.choice)}`;
    case "release-pods":
      return "release every Pod's finalizer";
  }
}

function describeLabels(labels: PodLabels): string {
  return `app=${appLabelValue(labels.app)}${labels.tier ? ",tier=t" : ""} cost=${labels.cost}`;
}

function describeChoice(choice: PodChoice): string {
  if ("pod" in choice) return `Pod p${choice.pod}`;
  const controller = choice.controlledBy === "none" ? "with no controller" : `controlled by rs${choice.controlledBy}`;
  return `live Pod #${choice.index} ${controller}`;
}
