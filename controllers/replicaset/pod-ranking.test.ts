import { describe, expect, test } from "bun:test";
import { now, pod, type PodShape } from "../../test/replicaset/builders.ts";
import { compareForDeletion, podDeletionCost, podsToDelete, relatedPodsOnSameNode } from "./pod-ranking.ts";

interface RankingCase {
  rule: string;
  /** Deleted first. */
  first: PodShape & { rank?: number };
  second: PodShape & { rank?: number };
}

// Each case makes `first` lose on a rule while winning on every later rule, so only that rule can decide.
const cases: RankingCase[] = [
  {
    rule: "unassigned before assigned",
    first: { name: "a", phase: "Running", readyFor: 10, createdAgo: 9000 },
    second: { name: "b", node: "n1", phase: "Pending", createdAgo: 10 },
  },
  { rule: "Pending before Unknown", first: { name: "a", node: "n1", phase: "Pending", readyFor: 10 }, second: { name: "b", node: "n1", phase: "Unknown" } },
  { rule: "Unknown before Running", first: { name: "a", node: "n1", phase: "Unknown", readyFor: 10 }, second: { name: "b", node: "n1", phase: "Running" } },
  { rule: "Pending before Running", first: { name: "a", node: "n1", phase: "Pending", readyFor: 10 }, second: { name: "b", node: "n1", phase: "Running" } },
  {
    rule: "not ready before ready",
    first: { name: "a", node: "n1", deletionCost: "100", createdAgo: 9000 },
    second: { name: "b", node: "n1", readyFor: 10, createdAgo: 10 },
  },
  {
    rule: "lower deletion cost first",
    first: { name: "a", node: "n1", readyFor: 9000, deletionCost: "-5", rank: 1 },
    second: { name: "b", node: "n1", readyFor: 10, deletionCost: "10", rank: 5 },
  },
  {
    rule: "an invalid deletion cost counts as 0",
    first: { name: "a", node: "n1", readyFor: 9000, deletionCost: "+5" },
    second: { name: "b", node: "n1", readyFor: 10, deletionCost: "1" },
  },
  {
    rule: "more related pods on the same node first",
    first: { name: "a", node: "n1", readyFor: 9000, rank: 3 },
    second: { name: "b", node: "n2", readyFor: 10, rank: 1 },
  },
  {
    rule: "ready for less time first",
    first: { name: "a", node: "n1", readyFor: 60, restarts: 0, createdAgo: 9000 },
    second: { name: "b", node: "n1", readyFor: 3600, restarts: 5, createdAgo: 10 },
  },
  {
    rule: "ready without a transition time counts as just ready",
    first: { name: "a", node: "n1", readyWithoutTime: true },
    second: { name: "b", node: "n1", readyFor: 60 },
  },
  {
    rule: "more restarts first",
    first: { name: "a", node: "n1", readyFor: 100, restarts: 5, createdAgo: 9000 },
    second: { name: "b", node: "n1", readyFor: 100, restarts: 1, createdAgo: 10 },
  },
  {
    rule: "more sidecar restarts first when regular restarts tie",
    first: { name: "a", node: "n1", restarts: 2, sidecarRestarts: 3, createdAgo: 9000 },
    second: { name: "b", node: "n1", restarts: 2, sidecarRestarts: 0, createdAgo: 10 },
  },
  { rule: "newer first", first: { name: "a", node: "n1", createdAgo: 60, uid: "z" }, second: { name: "b", node: "n1", createdAgo: 3600, uid: "a" } },
  { rule: "no creation time counts as newest", first: { name: "a", node: "n1", uid: "z" }, second: { name: "b", node: "n1", createdAgo: 1, uid: "a" } },
  {
    rule: "ages in the same power of two are ordered by UID",
    first: { name: "a", node: "n1", createdAgo: 101, uid: "uid-0" },
    second: { name: "b", node: "n1", createdAgo: 100, uid: "uid-1" },
  },
  {
    rule: "ready times in the same power of two are ordered by UID",
    first: { name: "a", node: "n1", readyFor: 101, uid: "uid-0", createdAgo: 9000 },
    second: { name: "b", node: "n1", readyFor: 100, uid: "uid-1", createdAgo: 10 },
  },
];

describe("compareForDeletion", () => {
  for (const { rule, first, second } of cases) {
    test(rule, () => {
      const a = { pod: pod(first), rank: first.rank ?? 0 };
      const b = { pod: pod(second), rank: second.rank ?? 0 };
      expect(compareForDeletion(a, b, now)).toBeLessThan(0);
      expect(compareForDeletion(b, a, now)).toBeGreaterThan(0);
    });
  }

  test("identical pods tie", () => {
    const shape = { name: "a", node: "n1", readyFor: 5, createdAgo: 5 };
    expect(compareForDeletion({ pod: pod(shape), rank: 1 }, { pod: pod(shape), rank: 1 }, now)).toBe(0);
  });
});

describe("podDeletionCost", () => {
  test.each([
    ["-5", -5],
    ["0", 0],
    ["2147483647", 2147483647],
    ["-2147483648", -2147483648],
    ["2147483648", 0],
    ["+5", 0],
    ["007", 0],
    ["1.5", 0],
    ["abc", 0],
    ["", 0],
  ])("%p → %p", (annotation, cost) => {
    expect(podDeletionCost(pod({ name: "a", deletionCost: annotation }))).toBe(cost);
  });
});

describe("podsToDelete", () => {
  test("picks the first pods in ranking order", () => {
    const pods = [
      pod({ name: "running-ready-old", node: "n1", readyFor: 9000, createdAgo: 9000 }),
      pod({ name: "pending", node: "n1", phase: "Pending" }),
      pod({ name: "unassigned", phase: "Pending" }),
      pod({ name: "running-not-ready", node: "n2" }),
      pod({ name: "running-ready-cheap", node: "n3", readyFor: 9000, deletionCost: "-1" }),
    ];
    expect(podsToDelete(pods, pods, 4, now).map((p) => p.metadata?.name)).toEqual([
      "unassigned",
      "pending",
      "running-not-ready",
      "running-ready-cheap",
    ]);
  });

  test("prefers a pod doubled up with related pods on its node", () => {
    const pods = [pod({ name: "alone", node: "n1", readyFor: 60 }), pod({ name: "crowded", node: "n2", readyFor: 9000 })];
    const related = [...pods, pod({ name: "sibling-1", node: "n2" }), pod({ name: "sibling-2", node: "n2" })];
    expect(podsToDelete(pods, related, 1, now).map((p) => p.metadata?.name)).toEqual(["crowded"]);
    // Without related pods (a ReplicaSet without a controller) the shorter-ready pod goes.
    expect(podsToDelete(pods, [], 1, now).map((p) => p.metadata?.name)).toEqual(["alone"]);
  });

  test("returns every pod when all go", () => {
    const pods = [pod({ name: "b", node: "n1", readyFor: 9000 }), pod({ name: "a" })];
    expect(podsToDelete(pods, pods, 5, now)).toEqual(pods);
  });
});

describe("relatedPodsOnSameNode", () => {
  test("counts only active related pods, per node", () => {
    const pods = [pod({ name: "x", node: "n1" }), pod({ name: "y", node: "n2" }), pod({ name: "z" })];
    const related = [
      pod({ name: "r1", node: "n1" }),
      pod({ name: "r2", node: "n1" }),
      pod({ name: "r3", node: "n1", deleting: true }),
      pod({ name: "r4", node: "n2", phase: "Succeeded" }),
      pod({ name: "r5" }),
    ];
    expect(relatedPodsOnSameNode(pods, related)).toEqual([2, 0, 1]);
  });
});
