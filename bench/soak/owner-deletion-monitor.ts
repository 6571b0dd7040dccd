// "No object deleted while an owner with its UID lives and is not itself being deleted": for
// every object of the owner trees whose deletion starts (deletionTimestamp set, or gone), each
// owner named in its last ownerReferences must have started its own deletion at an earlier
// revision. When the watch has not shown the owner's deletion, a GET after a short wait
// decides: the owner still there with the same UID and no deletionTimestamp is a violation.
import { networkGVR } from "../../controllers/network/network-resource.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { isNotFound } from "../../pkg/kube/errors.ts";
import { type GroupVersionResource, resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject, OwnerReference } from "../../pkg/kube/objects.ts";
import type { ObservedChange } from "./observed-change.ts";
import type { SoakTally } from "./soak-tally.ts";

interface Tracked {
  /** Revision at which its deletion started; undefined while it lives. */
  deletingSince: number | undefined;
  /** The deletion was only inferred from a relist, so `deletingSince` is an upper bound. */
  inferred: boolean;
}

/** Time for a lagging watch to show an owner's deletion before the GET decides. */
const verifyAfterMs = 5_000;

const ownerResources: Record<string, GroupVersionResource> = {
  ConfigMap: resources.configMaps,
  Secret: resources.secrets,
  Network: networkGVR,
};

export class OwnerDeletionMonitor {
  readonly #objects = new Map<string, Tracked>();
  readonly #verifications = new Set<Promise<void>>();
  #checked = 0;
  #unverifiable = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly tally: SoakTally,
  ) {}

  /** Dependent deletions checked against their owners. */
  get checked(): number {
    return this.#checked;
  }

  /** Checks that could not be decided (an owner's deletion only seen through a relist). */
  get unverifiable(): number {
    return this.#unverifiable;
  }

  observe(change: ObservedChange): void {
    if (change.resource !== "configmaps" && change.resource !== "secrets" && change.resource !== "networks") return;
    const uid = change.object.metadata?.uid ?? "";
    const tracked = this.#objects.get(uid) ?? { deletingSince: undefined, inferred: false };
    this.#objects.set(uid, tracked);
    const deleting = change.type === "delete" || change.object.metadata?.deletionTimestamp !== undefined;
    if (!deleting || tracked.deletingSince !== undefined) return;
    tracked.deletingSince = change.revision;
    tracked.inferred = change.inferred;
    for (const owner of change.object.metadata?.ownerReferences ?? []) this.#checkOwner(change, owner);
  }

  /** Resolves once every pending GET has decided. */
  async settle(): Promise<void> {
    while (this.#verifications.size > 0) await Promise.all([...this.#verifications]);
  }

  #checkOwner(change: ObservedChange, owner: OwnerReference): void {
    this.#checked++;
    const verdict = this.#verdictFromWatch(change, owner);
    if (verdict === "ok") return;
    if (verdict === "violation") {
      this.#report(change, owner, `the owner's deletion started only at revision ${this.#objects.get(owner.uid)?.deletingSince}`);
      return;
    }
    const verification = Bun.sleep(verifyAfterMs)
      .then(() => this.#verifyLater(change, owner))
      .finally(() => this.#verifications.delete(verification));
    this.#verifications.add(verification);
  }

  #verdictFromWatch(change: ObservedChange, owner: OwnerReference): "ok" | "violation" | "undecided" {
    const tracked = this.#objects.get(owner.uid);
    if (tracked?.deletingSince === undefined) return "undecided";
    if (tracked.deletingSince <= change.revision) return "ok";
    // Either revision being an estimate leaves the order open.
    if (tracked.inferred || change.inferred) {
      this.#unverifiable++;
      return "ok";
    }
    return "violation";
  }

  async #verifyLater(change: ObservedChange, owner: OwnerReference): Promise<void> {
    const verdict = this.#verdictFromWatch(change, owner);
    if (verdict === "ok") return;
    if (verdict === "violation") {
      this.#report(change, owner, `the owner's deletion started only at revision ${this.#objects.get(owner.uid)?.deletingSince}`);
      return;
    }
    const gvr = ownerResources[owner.kind];
    const namespace = change.object.metadata?.namespace;
    if (!gvr || !namespace) {
      this.#unverifiable++;
      return;
    }
    let current: KubeObject | undefined;
    try {
      current = await this.client.dynamic.resource(gvr, namespace).get(owner.name);
    } catch (err) {
      // Gone and never seen going: whether before or after the dependent cannot be told.
      if (!isNotFound(err)) console.error(`[soak] could not verify owner ${owner.kind} ${namespace}/${owner.name}: ${err instanceof Error ? err.message : String(err)}`);
      this.#unverifiable++;
      return;
    }
    if (current.metadata?.uid === owner.uid && !current.metadata.deletionTimestamp) {
      this.#report(change, owner, `the owner still exists without a deletionTimestamp (GET at resourceVersion ${current.metadata.resourceVersion})`);
    } else if (current.metadata?.uid === owner.uid) {
      this.#unverifiable++;
    }
  }

  #report(change: ObservedChange, owner: OwnerReference, why: string): void {
    const meta = change.object.metadata ?? {};
    this.tally.violation(
      "deleted-with-live-owner",
      `${change.resource} ${meta.namespace}/${meta.name} (uid ${meta.uid}) started deleting at revision ${change.revision}${change.inferred ? " (inferred)" : ""} ` +
        `while its owner ${owner.kind} ${owner.name} (uid ${owner.uid}) lived: ${why}`,
    );
  }
}
