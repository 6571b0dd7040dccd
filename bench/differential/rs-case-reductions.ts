// The ReplicaSet cases one simplification smaller than a given one, biggest cuts first: only the
// first steps, without a step, without an operation of a step, without a ReplicaSet (its operations dropped, Pods meant
// for it made stray), without a template's tier label, with a created Pod not held.
import type { PodLabels, RsCase, RsOperation } from "./rs-case.ts";

export function smallerRsCases(testCase: RsCase): RsCase[] {
  const { replicaSets, steps } = testCase;
  const withoutIndex = <T>(items: readonly T[], index: number) => items.filter((_, i) => i !== index);
  const mapOperations = (change: (operation: RsOperation) => RsOperation | undefined): RsOperation[][] =>
    steps.map((step) => step.flatMap((operation) => change(operation) ?? [])).filter((step) => step.length > 0);
  const candidates: RsCase[] = [];
  // Disagreements often show after the first few steps: the shortest prefixes first.
  for (let kept = 1; kept < steps.length - 1; kept++) candidates.push({ ...testCase, steps: steps.slice(0, kept) });
  steps.forEach((_, index) => candidates.push({ ...testCase, steps: withoutIndex(steps, index) }));
  steps.forEach((step, index) => {
    if (step.length < 2) return;
    step.forEach((_, operation) => candidates.push({ ...testCase, steps: steps.map((s, i) => (i === index ? withoutIndex(s, operation) : s)) }));
  });
  for (const rs of replicaSets) {
    const stray = (labels: PodLabels): PodLabels => (labels.app === rs.id ? { ...labels, app: "stray" } : labels);
    candidates.push({
      replicaSets: replicaSets.filter((other) => other.id !== rs.id),
      steps: mapOperations((operation) => {
        if ("replicaSet" in operation && operation.replicaSet === rs.id) return undefined;
        if ("choice" in operation && "controlledBy" in operation.choice && operation.choice.controlledBy === rs.id) return undefined;
        if (operation.type === "create-pod" || operation.type === "relabel-pod") return { ...operation, labels: stray(operation.labels) };
        return operation;
      }),
    });
  }
  for (const rs of replicaSets.filter((candidate) => candidate.tierLabel)) {
    candidates.push({ ...testCase, replicaSets: replicaSets.map((other) => (other.id === rs.id ? { ...other, tierLabel: false } : other)) });
  }
  steps.forEach((step, index) =>
    step.forEach((operation, position) => {
      if (operation.type !== "create-pod" || !operation.held) return;
      candidates.push({ ...testCase, steps: steps.map((s, i) => (i === index ? s.map((o, p) => (p === position ? { ...operation, held: false } : o)) : s)) });
    }),
  );
  return candidates;
}
