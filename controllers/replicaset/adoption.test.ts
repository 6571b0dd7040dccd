import { describe, expect, test } from "bun:test";
import { ApiError } from "../../pkg/kube/errors.ts";
import { selectorFromLabelSelector } from "../../pkg/labels/selector.ts";
import { pod, replicaSet, type Pod, type ReplicaSet } from "../../test/replicaset/builders.ts";
import { PodClaim } from "./adoption.ts";

const rs = replicaSet("web", 3);
const selector = selectorFromLabelSelector(rs.spec?.selector);

class RecordingPatcher {
  readonly patches: { pod: string; patch: object }[] = [];
  failWith: Error | undefined;

  async patchPod(target: Pod, patch: object): Promise<void> {
    this.patches.push({ pod: target.metadata?.name ?? "", patch });
    if (this.failWith) throw this.failWith;
  }
}

function apiError(code: number): ApiError {
  return ApiError.fromResponse(code, "", "PATCH", "/api/v1/namespaces/ns/pods/x");
}

function claimWith(patcher: RecordingPatcher, owner: ReplicaSet = rs, fresh: () => Promise<ReplicaSet> = async () => owner) {
  let reads = 0;
  const claim = new PodClaim(owner, selector, patcher, () => {
    reads++;
    return fresh();
  });
  return { claim, reads: () => reads };
}

describe("PodClaim", () => {
  test("keeps owned matching pods and adopts matching orphans, with one uncached read", async () => {
    const patcher = new RecordingPatcher();
    const { claim, reads } = claimWith(patcher);
    const owned = pod({ name: "owned", owner: rs });
    const orphans = [pod({ name: "orphan-1" }), pod({ name: "orphan-2" })];
    const claimed = await claim.claim([owned, ...orphans]);
    expect(claimed.map((p) => p.metadata?.name)).toEqual(["owned", "orphan-1", "orphan-2"]);
    expect(reads()).toBe(1);
    expect(patcher.patches[0]).toEqual({
      pod: "orphan-1",
      patch: {
        metadata: {
          ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "web", uid: "uid-web", controller: true, blockOwnerDeletion: true }],
          uid: "uid-orphan-1",
        },
      },
    });
  });

  test("never touches pods controlled by another owner, nor orphans that do not match or are being deleted", async () => {
    const patcher = new RecordingPatcher();
    const { claim, reads } = claimWith(patcher);
    const other = replicaSet("other", 1, { uid: "uid-other" });
    const claimed = await claim.claim([
      pod({ name: "theirs", owner: other }),
      pod({ name: "theirs-not-matching", owner: other, labels: { app: "db" } }),
      pod({ name: "stranger", labels: { app: "db" } }),
      pod({ name: "leaving", deleting: true }),
    ]);
    expect(claimed).toEqual([]);
    expect(patcher.patches).toEqual([]);
    expect(reads()).toBe(0);
  });

  test("releases owned pods whose labels stopped matching", async () => {
    const patcher = new RecordingPatcher();
    const { claim } = claimWith(patcher);
    expect(await claim.claim([pod({ name: "relabelled", owner: rs, labels: { app: "debug" } })])).toEqual([]);
    expect(patcher.patches).toEqual([
      { pod: "relabelled", patch: { metadata: { ownerReferences: [{ $patch: "delete", uid: "uid-web" }], uid: "uid-relabelled" } } },
    ]);
  });

  test("a ReplicaSet being deleted neither adopts nor releases, but keeps what it owns", async () => {
    const patcher = new RecordingPatcher();
    const deleting = { ...rs, metadata: { ...rs.metadata, deletionTimestamp: "2030-01-01T00:00:00Z" } };
    const { claim } = claimWith(patcher, deleting);
    const owned = pod({ name: "owned", owner: rs });
    expect(await claim.claim([owned, pod({ name: "orphan" }), pod({ name: "relabelled", owner: rs, labels: { app: "x" } })])).toEqual([owned]);
    expect(patcher.patches).toEqual([]);
  });

  test("does not adopt when the uncached read shows a different or deleting ReplicaSet", async () => {
    const patcher = new RecordingPatcher();
    const recreated = claimWith(patcher, rs, async () => ({ ...rs, metadata: { ...rs.metadata, uid: "uid-new" } }));
    await expect(recreated.claim.claim([pod({ name: "orphan" })])).rejects.toThrow(/original ReplicaSet ns\/web is gone: got uid uid-new, wanted uid-web/);
    const deleting = claimWith(patcher, rs, async () => ({ ...rs, metadata: { ...rs.metadata, deletionTimestamp: "2030-01-01T00:00:00Z" } }));
    await expect(deleting.claim.claim([pod({ name: "orphan" })])).rejects.toThrow(/has just been deleted/);
    expect(patcher.patches).toEqual([]);
  });

  test("a pod gone meanwhile is skipped; other patch failures fail the claim", async () => {
    const gone = new RecordingPatcher();
    gone.failWith = apiError(404);
    expect(await claimWith(gone).claim.claim([pod({ name: "orphan" })])).toEqual([]);
    const invalidRelease = new RecordingPatcher();
    invalidRelease.failWith = apiError(422);
    expect(await claimWith(invalidRelease).claim.claim([pod({ name: "x", owner: rs, labels: { app: "x" } })])).toEqual([]);
    const conflict = new RecordingPatcher();
    conflict.failWith = apiError(409);
    await expect(claimWith(conflict).claim.claim([pod({ name: "orphan-1" }), pod({ name: "orphan-2" })])).rejects.toThrow(/2 pods could not be claimed/);
  });
});
