import { describe, expect, test } from "bun:test";
import { ApiError } from "../../pkg/kube/errors.ts";
import { now, pod, replicaSet } from "../../test/replicaset/builders.ts";
import { calculateStatus, replicaFailureCondition, statusUnchanged } from "./replicaset-status.ts";

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

  test("terminatingReplicas is always written, 0 included", () => {
    const rs = { ...replicaSet("web", 1), status: { replicas: 0, terminatingReplicas: 4 } };
    expect(calculateStatus(rs, { activePods: [], terminatingPods: [], manageError: undefined, now }).terminatingReplicas).toBe(0);
    const fresh = replicaSet("web", 1);
    expect(calculateStatus(fresh, { activePods: [], terminatingPods: [], manageError: undefined, now })).toHaveProperty("terminatingReplicas", 0);
  });

  test("a Pod ready for exactly minReadySeconds is available", () => {
    const rs = replicaSet("web", 2, { minReadySeconds: 30 });
    const activePods = [pod({ name: "a", readyFor: 30 }), pod({ name: "b", readyFor: 29 })];
    const status = calculateStatus(rs, { activePods, terminatingPods: [], manageError: undefined, now });
    expect(status).toMatchObject({ readyReplicas: 2, availableReplicas: 1 });
  });
});

describe("statusUnchanged", () => {
  const steadyStatus = { replicas: 1, fullyLabeledReplicas: 1, readyReplicas: 1, availableReplicas: 1, terminatingReplicas: 0, observedGeneration: 3 };
  const steady = { ...replicaSet("web", 1, { generation: 3 }), status: steadyStatus };
  const onePod = { activePods: [pod({ name: "a", labels: { app: "web", tier: "front" }, readyFor: 5 })], terminatingPods: [], manageError: undefined, now };

  test("the steady state needs no write", () => {
    expect(statusUnchanged(steady, calculateStatus(steady, onePod))).toBe(true);
  });

  test("a stored status without terminatingReplicas (an API server that drops the field) needs a write every time", () => {
    const { terminatingReplicas: _dropped, ...withoutField } = steadyStatus;
    const dropped = { ...steady, status: withoutField };
    expect(statusUnchanged(dropped, calculateStatus(dropped, onePod))).toBe(false);
  });

  test("a new generation, a changed count or a new condition needs a write", () => {
    expect(statusUnchanged({ ...steady, metadata: { ...steady.metadata, generation: 4 } }, steady.status)).toBe(false);
    expect(statusUnchanged(steady, { ...steady.status, readyReplicas: 0 })).toBe(false);
    expect(statusUnchanged(steady, { ...steady.status, terminatingReplicas: 1 })).toBe(false);
    expect(statusUnchanged(steady, { ...steady.status, conditions: [{ type: replicaFailureCondition, status: "True" }] })).toBe(false);
  });
});
