// Random ReplicaSet cases, the same for the same seed: one to three ReplicaSets created at once,
// then three to seven steps of scaling, Pods created (some matching a selector, some stray, some
// held by the test's finalizer), relabelled (released by one ReplicaSet, adopted by another),
// held, deleted, ReplicaSets deleted in the background, the foreground or orphaning their Pods,
// and created again to adopt them. Two operations share a step only when neither can race the other.
import type { SeededRandom } from "../soak/seeded-random.ts";
import type { Propagation } from "./gc-case.ts";
import type { AppLabel, PodChoice, PodLabels, RsCase, RsOperation, RsReplicaSet } from "./rs-case.ts";

const propagations: readonly Propagation[] = ["Background", "Foreground", "Orphan"];

export function generateRsCase(random: SeededRandom): RsCase {
  const replicaSets: RsReplicaSet[] = Array.from({ length: random.int(1, 3) }, (_, id) => ({ id, tierLabel: random.chance(0.4) }));
  const plan = new Planner(random, replicaSets);
  const steps: RsOperation[][] = [replicaSets.map((rs) => ({ type: "create-replicaset", replicaSet: rs.id, replicas: random.int(0, 4) }))];
  for (let count = random.int(3, 7); steps.length <= count; ) {
    const size = random.chance(0.2) ? 2 : 1;
    const step: RsOperation[] = [];
    for (let attempt = 0; step.length < size && attempt < 10; attempt++) {
      const operation = plan.next();
      if (step.some((other) => !independent(other, operation))) continue;
      plan.commit(operation);
      step.push(operation);
    }
    steps.push(step);
  }
  return { replicaSets, steps };
}

/**
 * Whether two operations can be sent at once without racing each other in the test itself: they
 * must touch different ReplicaSets, counting a ReplicaSet's Pods (chosen among, or relabelled to
 * match) as part of it. A named Pod, all Pods or the Pods without a controller (which any
 * ReplicaSet may adopt) may belong to any, so they share a step with nothing.
 */
function independent(a: RsOperation, b: RsOperation): boolean {
  const [first, second] = [touched(a), touched(b)];
  if (first === "any" || second === "any") return false;
  return [...first].every((id) => !second.has(id));
}

function touched(operation: RsOperation): Set<number> | "any" {
  if ("replicaSet" in operation) return new Set([operation.replicaSet]);
  if (operation.type === "release-pods" || operation.type === "create-pod") return "any";
  if ("pod" in operation.choice || operation.choice.controlledBy === "none") return "any";
  const ids = new Set([operation.choice.controlledBy]);
  if (operation.type === "relabel-pod" && operation.labels.app !== "stray") ids.add(operation.labels.app);
  return ids;
}

/** Draws operations that make sense given what earlier ones did (as far as the generator can tell). */
class Planner {
  readonly #deleted = new Set<number>();
  #namedPods = 0;
  #costs = 0;
  #holds = 0;

  constructor(
    private readonly random: SeededRandom,
    private readonly replicaSets: readonly RsReplicaSet[],
  ) {}

  next(): RsOperation {
    const { random } = this;
    const type = random.weighted({
      scale: 3,
      "create-pod": 2,
      "relabel-pod": 2.5,
      "delete-pod": 2,
      "hold-pod": 1,
      "release-pods": this.#holds > 0 ? 1 : 0,
      "delete-replicaset": 1.2,
      "create-replicaset": this.#deleted.size > 0 ? 1.5 : 0,
    });
    switch (type) {
      case "scale":
        return { type, replicaSet: this.#replicaSet(), replicas: random.int(0, 5) };
      case "create-pod":
        return { type, pod: this.#namedPods, labels: this.#labels(), held: random.chance(0.3) };
      case "relabel-pod":
        return { type, choice: this.#choice(), labels: this.#labels() };
      case "delete-pod":
        return { type, choice: this.#choice() };
      case "hold-pod":
        return { type, choice: this.#choice(), cost: this.#cost() };
      case "release-pods":
        return { type };
      case "delete-replicaset":
        return { type, replicaSet: this.#replicaSet(), propagation: random.pick(propagations) ?? "Background" };
      case "create-replicaset":
        return { type, replicaSet: random.pick([...this.#deleted]) ?? 0, replicas: random.int(0, 4) };
    }
  }

  /** Records an operation that was kept for the step. */
  commit(operation: RsOperation): void {
    if (operation.type === "create-pod") this.#namedPods++;
    if (operation.type === "hold-pod" || (operation.type === "create-pod" && operation.held)) this.#holds++;
    if (operation.type === "release-pods") this.#holds = 0;
    if (operation.type === "delete-replicaset") this.#deleted.add(operation.replicaSet);
    if (operation.type === "create-replicaset") this.#deleted.delete(operation.replicaSet);
  }

  #replicaSet(): number {
    return this.random.pick(this.replicaSets)?.id ?? 0;
  }

  #labels(): PodLabels {
    const app: AppLabel = this.random.chance(0.2) ? "stray" : this.#replicaSet();
    return { app, tier: this.random.chance(0.5), cost: this.#cost() };
  }

  /** 1, -2, 3, …: never 0 (the controller's own Pods), never twice, either sign. */
  #cost(): number {
    this.#costs++;
    return this.random.chance(0.5) ? this.#costs : -this.#costs;
  }

  #choice(): PodChoice {
    const { random } = this;
    if (this.#namedPods > 0 && random.chance(0.3)) return { pod: random.int(0, this.#namedPods - 1) };
    return { controlledBy: random.chance(0.85) ? this.#replicaSet() : "none", index: random.int(0, 9) };
  }
}
