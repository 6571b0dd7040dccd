import { describe, expect, test } from "bun:test";
import { SeededRandom } from "../soak/seeded-random.ts";
import type { GcCase } from "./gc-case.ts";
import { generateGcCase } from "./gc-case-generator.ts";
import { smallerGcCases } from "./gc-case-reductions.ts";
import type { RsCase } from "./rs-case.ts";
import { generateRsCase } from "./rs-case-generator.ts";
import { smallerRsCases } from "./rs-case-reductions.ts";

const seeds = Array.from({ length: 200 }, (_, i) => i);

/** Size as the shrinker sees it: a flag turned off counts as removed. */
const size = (testCase: GcCase | RsCase) => JSON.stringify(testCase, (_, value: unknown) => (value === false ? undefined : value)).length;

/** Every id an edge or operation names is an object of the case; no object owns itself or names one owner twice. */
function gcProblems(testCase: GcCase): string[] {
  const ids = new Set(testCase.objects.map((object) => object.id));
  const problems: string[] = [];
  for (const edge of testCase.edges) {
    if (!ids.has(edge.dependent)) problems.push(`edge from missing o${edge.dependent}`);
    if ("object" in edge.owner && !ids.has(edge.owner.object)) problems.push(`edge to missing o${edge.owner.object}`);
    if ("object" in edge.owner && edge.owner.object === edge.dependent) problems.push(`o${edge.dependent} owns itself`);
  }
  for (const object of testCase.objects) {
    const edges = testCase.edges.filter((edge) => edge.dependent === object.id);
    const owners = edges.map((edge) => JSON.stringify(edge.owner));
    if (new Set(owners).size !== owners.length) problems.push(`o${object.id} names an owner twice`);
    if (edges.filter((edge) => edge.controller).length > 1) problems.push(`o${object.id} has two controllers`);
    if (object.kind === "ClusterThing" && object.namespace) problems.push(`cluster-scoped o${object.id} has a namespace`);
  }
  for (const operation of testCase.steps.flat()) if (!ids.has(operation.object)) problems.push(`${operation.type} of missing o${operation.object}`);
  if (testCase.steps.some((step) => step.length > 1 && step.some((operation) => operation.type === "recreate"))) problems.push("a recreation beside another operation");
  if (testCase.steps.some((step) => step.length === 0)) problems.push("an empty step");
  return problems;
}

function rsProblems(testCase: RsCase): string[] {
  const ids = new Set(testCase.replicaSets.map((rs) => rs.id));
  const problems: string[] = [];
  for (const operation of testCase.steps.flat()) {
    if ("replicaSet" in operation && !ids.has(operation.replicaSet)) problems.push(`${operation.type} of missing rs${operation.replicaSet}`);
    if ("choice" in operation && "controlledBy" in operation.choice && operation.choice.controlledBy !== "none" && !ids.has(operation.choice.controlledBy)) {
      problems.push(`${operation.type} of a Pod of missing rs${operation.choice.controlledBy}`);
    }
  }
  for (const step of testCase.steps.slice(1).filter((operations) => operations.length > 1)) {
    const replicaSetsTouched = step.map((operation): number | "none" | "any" =>
      "replicaSet" in operation ? operation.replicaSet : "choice" in operation && "controlledBy" in operation.choice ? operation.choice.controlledBy : "any",
    );
    if (replicaSetsTouched.includes("any") || replicaSetsTouched.includes("none") || new Set(replicaSetsTouched).size < step.length) {
      problems.push(`operations that may race in one step: ${step.map((operation) => operation.type).join(", ")}`);
    }
  }
  const costs = testCase.steps.flat().flatMap((operation) => ("labels" in operation ? [operation.labels.cost] : operation.type === "hold-pod" ? [operation.cost] : []));
  if (costs.includes(0)) problems.push("a deletion cost of 0, the controller's own Pods' cost");
  if (new Set(costs).size !== costs.length) problems.push(`a deletion cost used twice: ${costs.join(",")}`);
  if (testCase.steps.some((step) => step.length === 0)) problems.push("an empty step");
  return problems;
}

describe("garbage-collector cases", () => {
  test("are the same for the same seed and differ between seeds", () => {
    expect(generateGcCase(new SeededRandom(7))).toEqual(generateGcCase(new SeededRandom(7)));
    expect(generateGcCase(new SeededRandom(7))).not.toEqual(generateGcCase(new SeededRandom(8)));
  });

  test("name only objects they define, and so do their smaller variants", () => {
    for (const seed of seeds) {
      const testCase = generateGcCase(new SeededRandom(seed));
      expect({ seed, problems: gcProblems(testCase) }).toEqual({ seed, problems: [] });
      for (const smaller of smallerGcCases(testCase)) expect({ seed, problems: gcProblems(smaller) }).toEqual({ seed, problems: [] });
    }
  });

  test("smaller variants are smaller", () => {
    for (const seed of seeds) {
      const testCase = generateGcCase(new SeededRandom(seed));
      for (const smaller of smallerGcCases(testCase)) expect(size(smaller)).toBeLessThan(size(testCase));
    }
  });
});

describe("ReplicaSet cases", () => {
  test("are the same for the same seed and differ between seeds", () => {
    expect(generateRsCase(new SeededRandom(7))).toEqual(generateRsCase(new SeededRandom(7)));
    expect(generateRsCase(new SeededRandom(7))).not.toEqual(generateRsCase(new SeededRandom(8)));
  });

  test("name only ReplicaSets they define and give every touched Pod its own nonzero deletion cost, and so do their smaller variants", () => {
    for (const seed of seeds) {
      const testCase = generateRsCase(new SeededRandom(seed));
      expect({ seed, problems: rsProblems(testCase) }).toEqual({ seed, problems: [] });
      for (const smaller of smallerRsCases(testCase)) expect({ seed, problems: rsProblems(smaller) }).toEqual({ seed, problems: [] });
    }
  });

  test("smaller variants are smaller", () => {
    for (const seed of seeds) {
      const testCase = generateRsCase(new SeededRandom(seed));
      for (const smaller of smallerRsCases(testCase)) expect(size(smaller)).toBeLessThan(size(testCase));
    }
  });
});
