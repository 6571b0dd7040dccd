// The garbage-collector cases one simplification smaller than a given one, biggest cuts first:
// only the first steps, without a step, without an operation of a step, without a group of
// objects or one object (with their edges and operations), without an edge, without the test's
// finalizer on an object. The shrinker keeps the first that still disagrees.
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
  for (const group of objectGroups(objects.map((object) => object.id))) candidates.push(withoutObjects(testCase, new Set(group)));
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

/** Halves, then quarters, then single objects: most objects of a random graph play no part. */
function objectGroups(ids: readonly number[]): number[][] {
  const groups: number[][] = [];
  for (let size = Math.floor(ids.length / 2); size > 1; size = Math.floor(size / 2)) {
    for (let start = 0; start < ids.length; start += size) groups.push(ids.slice(start, start + size));
  }
  return [...groups, ...ids.map((id) => [id])];
}

function withoutObjects(testCase: GcCase, ids: ReadonlySet<number>): GcCase {
  const keep = (operation: GcOperation) => !ids.has(operation.object);
  return {
    objects: testCase.objects.filter((object) => !ids.has(object.id)),
    edges: testCase.edges.filter((edge) => !ids.has(edge.dependent) && !("object" in edge.owner && ids.has(edge.owner.object))),
    steps: testCase.steps.map((step) => step.filter(keep)).filter((step) => step.length > 0),
  };
}
