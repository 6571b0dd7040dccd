// The direct dependents of a tree deleted with Orphan (and owned by nothing else) must survive.
// One way to lose one is a race upstream documents and accepts (kubernetes#26120, item 1): the
// garbage collector orphans the dependents its graph knows, so one it has not watched yet (its
// informer lagging, e.g. backing off after a fault) is collected as soon as the owner is gone.
// The audit log tells that case apart: the orphan finalizer came off the owner before the garbage
// collector of any replica touched the dependent (the Network controller may write it meanwhile:
// the user agent tells the controllers apart), and a replica deleted the dependent afterwards.
// Anything else is a violation.
import type { KubeClient } from "../../pkg/kube/client.ts";
import type { AuditEvent } from "../../test/support/audit-log.ts";
import { garbageCollectorDescriptor } from "../../controllers/garbagecollector/descriptor.ts";
import { serviceAccountName } from "../../pkg/manager/service-account-clients.ts";
import { treeObjects } from "./final-convergence.ts";
import type { OwnerTree, TreeMember } from "./owner-tree.ts";
import type { SoakTally } from "./soak-tally.ts";

export const orphanRace = "orphan race (kubernetes#26120)";

export async function judgeOrphans(
  client: KubeClient,
  namespace: string,
  trees: readonly OwnerTree[],
  /** Audit events of `namespace`. */
  audit: readonly AuditEvent[],
  replicaUsers: readonly string[],
  tally: SoakTally,
): Promise<void> {
  const existing = new Set((await treeObjects(client, namespace)).map((object) => object.metadata?.uid));
  for (const tree of trees) {
    if (tree.deletedWith !== "Orphan") continue;
    const root = tree.root.metadata ?? {};
    for (const member of tree.members) {
      const onlyOwnerWasRoot = member.owners.length === 1 && member.owners[0] === root.uid;
      if (!onlyOwnerWasRoot || existing.has(member.uid)) continue;
      const what = `${member.gvr.resource} ${namespace}/${member.name} was deleted, though its only owner ${root.name} was deleted with Orphan`;
      if (isOrphanRace(audit, replicaUsers, root.name ?? "", member)) tally.allow(orphanRace, `${what}: the garbage collector had not seen it when it orphaned`);
      else tally.violation("orphan-deleted", what);
    }
  }
}

/** The garbage collector's requests end their user agent with its name, as every controller's do. */
const garbageCollectorAgentSuffix = `/${serviceAccountName(garbageCollectorDescriptor)}`;

/** True when the audit shows the race: the owner's orphan finalizer came off before a garbage collector orphaned `dependent`, which a replica then deleted. */
export function isOrphanRace(audit: readonly AuditEvent[], replicaUsers: readonly string[], root: string, dependent: TreeMember): boolean {
  const byReplica = (event: AuditEvent) => replicaUsers.includes(event.user);
  const onRoot = (event: AuditEvent) => event.resource === "configmaps" && event.name === root && !event.subresource;
  const onDependent = (event: AuditEvent) => event.resource === dependent.gvr.resource && event.name === dependent.name;
  const succeeded = (event: AuditEvent) => event.code >= 200 && event.code < 300;

  const ownerDeleted = audit.find((e) => !byReplica(e) && onRoot(e) && e.verb === "delete" && succeeded(e))?.receivedAtMicros;
  if (ownerDeleted === undefined) return false;
  const finalizerRemoved = audit.find((e) => byReplica(e) && onRoot(e) && (e.verb === "patch" || e.verb === "update") && succeeded(e) && e.receivedAtMicros > ownerDeleted)?.receivedAtMicros;
  if (finalizerRemoved === undefined) return false;
  const byGarbageCollector = (event: AuditEvent) => byReplica(event) && (event.userAgent?.endsWith(garbageCollectorAgentSuffix) ?? false);
  const orphaned = audit.some((e) => byGarbageCollector(e) && onDependent(e) && e.verb !== "delete" && e.receivedAtMicros > ownerDeleted && e.receivedAtMicros < finalizerRemoved);
  const collectedAfter = audit.some((e) => byReplica(e) && onDependent(e) && e.verb === "delete" && e.receivedAtMicros > finalizerRemoved);
  return !orphaned && collectedAfter;
}
