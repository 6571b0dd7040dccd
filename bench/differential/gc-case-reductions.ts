// The garbage-collector cases one simplification smaller than a given one, biggest cuts first:
// only the first steps, without a step, without an operation of a step, without an object (with its edges and
// operations), without an edge, without the test's finalizer on an object. The shrinker keeps
// the first that still disagrees.
import type { GcCase, GcOperation } from "./gc-case.ts";

export function smallerGcCases(testCase: GcCase): GcCase[] {
  const { objects, edges, steps } = testCase;
  const withoutIndex = <T>(items: readonly T[], index: number) => items.filter((_, i) => i !== index);
  const candidates: GcCase[] = [];
  // Disagreements often show after the first few steps: the shortest prefixes first.
  for (let kept = 1; kept < steps.length - 1; kept++) candidates.push({ ...testCase, steps: steps.slice(0, kept) });
  steps.forEach((_, index) => candidates.push({ ...testCase, steps: withoutIndex(steps, index) }));
  steps.forEach((step, index) => {
    if (step.length < 2) return;
    step.forEach((_, operation) => candidates.push({ ...testCase, steps: steps.map((s, i) => (i === index ? withoutIndex(s, operation) : s)) }));
  });
  for (const object of objects) {
    const keep = (operation: GcOperation) => operation.object !== object.id;
    candidates.push({
      objects: objects.filter((other) => other.id !== object.id),
      edges: edges.filter((edge) => edge.dependent !== object.id && !("object" in edge.owner && edge.owner.object === object.id)),
      steps: steps.map((step) => step.filter(keep)).filter((step) => step.length > 0),
    });
  }
  edges.forEach((_, index) => candidates.push({ ...testCase, edges: withoutIndex(edges, index) }));
  for (const object of objects.filter((candidate) => candidate.held)) {
    candidates.push({
      ...testCase,
      objects: objects.map((other) => (other.id === object.id ? { ...other, held: false } : other)),
      steps: steps
        .map((step) => step.filter((operation) => !(operation.type === "release" && operation.object === object.id)))
        .filter((step) => step.length > 0),
    });
  }
  return candidates;
}
