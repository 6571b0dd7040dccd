import { describe, expect, test } from "bun:test";
import { ApiError } from "../../pkg/kube/errors.ts";
import { now, pod, replicaSet } from "../../test/replicaset/builders.ts";
import { calculateStatus, replicaFailureCondition, statusUnchanged, TerminatingReplicasSupport } from "./replicaset-status.ts";

const quotaError = ApiError.fromResponse(
  403,
  JSON.stringify({ kind: "Status", status: "Failure", reason: "Forbidden", code: 403, message: 'pods "web-x" is forbidden: exceeded quota' }),
  "POST",
  "/api/v1/namespaces/ns/pods",
);

describe("calculateStatus", () => {
  test("counts replicas, fully labelled, ready and available pods", () => {
    const rs = replicaSet("web", 4, { minReadySeconds: 30 });
    const activePods = [
      pod({ name: "a", labels: { app: "web", tier: "front" }, readyFor: 60 }),
      pod({ name: "b", labels: { app: "web", tier: "front", extra: "x" }, readyFor: 10 }),
      pod({ name: "c", labels: { app: "web" } }),
    ];
    const status = calculateStatus(rs, { activePods, terminatingPods: [pod({ name: "d", deleting: true })], manageError: undefined, now });
    expect(status).toMatchObject({ replicas: 3, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 1, terminatingReplicas: 1 });
    expect(status.conditions).toBeUndefined();
  });

  test("without minReadySeconds every ready pod is available", () => {
    const status = calculateStatus(replicaSet("web", 1), { activePods: [pod({ name: "a", readyFor: 0 })], terminatingPods: [], manageError: undefined, now });
    expect(status.availableReplicas).toBe(1);
  });

  test("a failed creation adds ReplicaFailure with reason FailedCreate and the server's message", () => {
    const status = calculateStatus(replicaSet("web", 3), { activePods: [], terminatingPods: [], manageError: quotaError, now });
    expect(status.conditions).toEqual([
      {
        type: replicaFailureCondition,
        status: "True",
        reason: "FailedCreate",
        message: 'pods "web-x" is forbidden: exceeded quota',
        lastTransitionTime: "2030-01-01T12:00:00Z",
      },
    ]);
  });

  test("a failed deletion gives reason FailedDelete; an existing condition is kept as it is", () => {
    const rs = replicaSet("web", 0);
    const failed = calculateStatus(rs, { activePods: [pod({ name: "a" })], terminatingPods: [], manageError: new Error("boom"), now });
    expect(failed.conditions?.[0]?.reason).toBe("FailedDelete");
    const again = calculateStatus({ ...rs, status: failed }, { activePods: [], terminatingPods: [], manageError: quotaError, now: now + 60_000 });
    expect(again.conditions).toEqual(failed.conditions);
  });

  test("a successful sync removes ReplicaFailure and keeps other conditions", () => {
    const other = { type: "Other", status: "True" };
    const rs = { ...replicaSet("web", 1), status: { replicas: 0, conditions: [{ type: replicaFailureCondition, status: "True" }, other] } };
    expect(calculateStatus(rs, { activePods: [], terminatingPods: [], manageError: undefined, now }).conditions).toEqual([other]);
    const onlyFailure = { ...rs, status: { replicas: 0, conditions: [{ type: replicaFailureCondition, status: "True" }] } };
    expect(calculateStatus(onlyFailure, { activePods: [], terminatingPods: [], manageError: undefined, now }).conditions).toBeUndefined();
  });

  test("terminating pods not counted leave terminatingReplicas as stored", () => {
    const rs = { ...replicaSet("web", 1), status: { replicas: 0, terminatingReplicas: 4 } };
    expect(calculateStatus(rs, { activePods: [], terminatingPods: undefined, manageError: undefined, now }).terminatingReplicas).toBe(4);
  });
});

describe("statusUnchanged", () => {
  const steady = { ...replicaSet("web", 1, { generation: 3 }), status: { replicas: 1, fullyLabeledReplicas: 1, readyReplicas: 1, availableReplicas: 1, observedGeneration: 3 } };

  test("the steady state needs no write", () => {
    const next = calculateStatus(steady, { activePods: [pod({ name: "a", labels: { app: "web", tier: "front" }, readyFor: 5 })], terminatingPods: undefined, manageError: undefined, now });
    expect(statusUnchanged(steady, next)).toBe(true);
  });

  test("a new generation, a changed count or a new condition needs a write", () => {
    expect(statusUnchanged({ ...steady, metadata: { ...steady.metadata, generation: 4 } }, steady.status)).toBe(false);
    expect(statusUnchanged(steady, { ...steady.status, readyReplicas: 0 })).toBe(false);
    expect(statusUnchanged(steady, { ...steady.status, terminatingReplicas: 0 })).toBe(false);
    expect(statusUnchanged(steady, { ...steady.status, conditions: [{ type: replicaFailureCondition, status: "True" }] })).toBe(false);
  });
});

describe("TerminatingReplicasSupport", () => {
  test("stops maintaining the field once a write shows the server dropped it", () => {
    const support = new TerminatingReplicasSupport();
    expect(support.maintained).toBe(true);
    expect(support.observeWrite({ replicas: 1, terminatingReplicas: 0 }, { status: { replicas: 1, terminatingReplicas: 0 } })).toBe(false);
    expect(support.maintained).toBe(true);
    expect(support.observeWrite({ replicas: 1, terminatingReplicas: 0 }, { status: { replicas: 1 } })).toBe(true);
    expect(support.maintained).toBe(false);
    expect(support.observeWrite({ replicas: 1, terminatingReplicas: 0 }, { status: { replicas: 1 } })).toBe(false);
  });
});
