// The sync of one ReplicaSet (kube-controller-manager's syncReplicaSet): wait until the caches
// show the controller's own last writes, send again the Pod writes whose answer was lost
// (unsettled-writes.ts), claim the Pods it owns, create or delete Pods until
// their number matches spec.replicas (only when the expected creations and deletions have been
// observed), then write the status and schedule the next look for Pods about to become available.
import { type Clock, realClock } from "../../pkg/clock/clock.ts";
import type { SetupContext } from "../../pkg/builder/build-controller.ts";
import { type Requeue, TerminalError } from "../../pkg/controller/reconciler.ts";
import type { EventRecorder } from "../../pkg/events/recorder.ts";
import {
  controllerRefIndex,
  controllerRefIndexKey,
  controllerRefIndexName,
  controllerUidIndex,
  controllerUidIndexName,
} from "../../pkg/informer/index-funcs.ts";
import type { IndexedStore } from "../../pkg/informer/store.ts";
import { splitMetaNamespaceKey } from "../../pkg/informer/keys.ts";
import type { Lister } from "../../pkg/informer/lister.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { isAlreadyExists, isNamespaceTerminating } from "../../pkg/kube/errors.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { ObjectOf } from "../../pkg/kube/gvr.ts";
import type { OwnerReference } from "../../pkg/kube/objects.ts";
import { controllerRefOf, isControlledBy } from "../../pkg/kube/owner-references.ts";
import { selectorFromLabelSelector, type Selector } from "../../pkg/labels/selector.ts";
import type { Logger } from "../../pkg/log/logger.ts";
import { PodClaim } from "./adoption.ts";
import { availabilityRecheckDelay } from "./availability-recheck.ts";
import { ReplicaSetEventHandlers } from "./event-handlers.ts";
import { PodExpectations } from "./expectations.ts";
import { prometheusReplicaSetMetrics, type ReplicaSetMetrics } from "./metrics.ts";
import { OwnWrites, StaleCacheError } from "./own-writes.ts";
import { isPodGone, PodControl, podNamePrefix, replicaSetKind } from "./pod-control.ts";
import { SyncPodNames } from "./pod-names.ts";
import { podsToDelete } from "./pod-ranking.ts";
import { isPodActive, isPodTerminating, podKey } from "./pod-state.ts";
import { calculateStatus, writeStatus } from "./replicaset-status.ts";
import { slowStartBatch, slowStartInitialBatchSize } from "./slow-start.ts";
import { mayHaveTakenEffect, UnsettledWrites } from "./unsettled-writes.ts";
import { errorMessage } from "../../pkg/errors/expected-error.ts";

type Pod = ObjectOf<typeof resources.pods>;
type ReplicaSet = ObjectOf<typeof resources.replicaSets>;

/** At most this many Pods are created or deleted per sync (kube-controller-manager's BurstReplicas). */
const burstReplicas = 500;

/** What the controller takes from its builder's setup: the shared machinery and its core's queue and caches. */
export interface ReplicaSetControllerOptions
  extends Pick<SetupContext<ReplicaSet>, "client" | "informer" | "watch" | "events" | "logger" | "metrics" | "queue"> {
  clock?: Clock;
}

/**
 * What the controller reads of a Pod besides its metadata, so the shared Pod cache keeps only
 * that: phase and Ready condition (active, ready, available: pod-state.ts), and what ranks Pods
 * for deletion (node, restart counts of containers and sidecars: pod-ranking.ts).
 */
export const podFields = [
  "spec.nodeName",
  "spec.initContainers.name",
  "spec.initContainers.restartPolicy",
  "status.phase",
  "status.conditions.type",
  "status.conditions.status",
  "status.conditions.lastTransitionTime",
  "status.containerStatuses.restartCount",
  "status.initContainerStatuses.name",
  "status.initContainerStatuses.restartCount",
];

const podsResource = { group: resources.pods.group, resource: resources.pods.resource };
const replicaSetsResource = { group: resources.replicaSets.group, resource: resources.replicaSets.resource };

export class ReplicaSetController {
  private readonly client: KubeClient;
  private readonly events: EventRecorder;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly expectations: PodExpectations;
  private readonly unsettledWrites = new UnsettledWrites();
  private readonly ownWrites: OwnWrites;
  private readonly metrics: ReplicaSetMetrics;
  private readonly podControl: PodControl;
  private readonly queue: ReplicaSetControllerOptions["queue"];
  private readonly replicaSets: Lister<ReplicaSet>;
  private readonly replicaSetIndexer: IndexedStore<ReplicaSet>;
  private readonly pods: Lister<Pod>;
  private readonly podIndexer: IndexedStore<Pod>;

  /** Declares the caches it reads, with their indexes, and watches both resources: call before the informers start. */
  constructor(options: ReplicaSetControllerOptions) {
    this.client = options.client;
    this.events = options.events;
    this.logger = options.logger;
    this.clock = options.clock ?? realClock;
    this.queue = options.queue;
    this.metrics = prometheusReplicaSetMetrics(options.metrics);
    this.expectations = new PodExpectations(this.clock);
    const replicaSets = options.informer(resources.replicaSets, { indexers: { [controllerUidIndexName]: controllerUidIndex } });
    const pods = options.informer(resources.pods, { indexers: { [controllerRefIndexName]: controllerRefIndex }, fields: podFields });
    this.ownWrites = new OwnWrites([
      { ...podsResource, cache: pods.informer.getIndexer() },
      { ...replicaSetsResource, cache: replicaSets.informer.getIndexer() },
    ]);
    this.podControl = new PodControl(options.client, options.events, (stored, controllerRef) => this.podWritten(stored, controllerRef));
    // Its handlers also track the Pods each ReplicaSet expects, so they are the controller's own.
    const handlers = new ReplicaSetEventHandlers(options.queue, this.expectations, replicaSets.lister, this.ownWrites);
    options.watch(resources.replicaSets, handlers.replicaSetHandler);
    options.watch(resources.pods, handlers.podHandler, { fields: podFields });
    this.replicaSets = replicaSets.lister;
    this.replicaSetIndexer = replicaSets.informer.getIndexer();
    this.pods = pods.lister;
    this.podIndexer = pods.informer.getIndexer();
  }

  async reconcile({ key }: { key: string }): Promise<Requeue | undefined> {
    if (!this.cachesShowOwnWrites(key)) return { requeue: true };
    const { namespace, name } = splitMetaNamespaceKey(key);
    const rs = this.replicaSets.namespace(namespace).get(name);
    if (!rs) {
      this.ownWrites.forget(key);
      this.expectations.delete(key);
      this.unsettledWrites.delete(key);
      return;
    }
    // A ReplicaSet being deleted makes no Pods, not even one it may have made already.
    const settleError = rs.metadata?.deletionTimestamp ? undefined : await this.settleWrites(key, rs);
    // Read before listing Pods: expectations met now mean the listed Pods include those writes.
    const cacheCaughtUp = this.expectations.satisfied(key, this.podIndexer.lastStoreSyncResourceVersion(namespace));
    const selector = this.selectorOf(rs);
    const replicaSetClient = this.client.dynamic.resource<ReplicaSet>(resources.replicaSets, namespace);

    const candidates = this.ownedAndOrphanedPods(rs);
    const claim = new PodClaim(rs, selector, this.podControl, () => replicaSetClient.get(name));
    const activePods = await claim.claim(candidates.filter(isPodActive));
    const terminatingPods = candidates.filter((pod) => isPodTerminating(pod) && isControlledBy(pod, rs) && selector.matches(pod.metadata?.labels));

    const manageError = (cacheCaughtUp && !rs.metadata?.deletionTimestamp ? await this.manageReplicas(key, rs, activePods) : undefined) ?? settleError;
    // One moment for the status and the next availability check, so both judge each Pod alike.
    const now = this.clock.now();
    const status = calculateStatus(rs, { activePods, terminatingPods, manageError, now });
    const current = (await writeStatus(replicaSetClient, rs, status, this.logger)) ?? rs;
    this.ownWrites.wroteAt(key, rs.metadata?.uid ?? "", replicaSetsResource, current.metadata?.resourceVersion ?? "");
    if (manageError !== undefined) throw manageError;

    // Nothing announces that a ready Pod became available: look again when the next one should be.
    const recheckMs = availabilityRecheckDelay(current, activePods, now, this.clock);
    if (recheckMs !== undefined) this.queue.addAfter(key, recheckMs);
  }

  /**
   * False while a cache has not seen this controller's last write for the ReplicaSet: the sync is
   * put off, to be retried with backoff. A normal wait, not a failure: logged at debug level, as
   * kube-controller-manager logs it at a high verbosity, and counted as a skip, not an error.
   */
  private cachesShowOwnWrites(key: string): boolean {
    try {
      this.ownWrites.ensureCaughtUp(key);
      return true;
    } catch (err) {
      if (!(err instanceof StaleCacheError)) throw err;
      this.metrics.staleSyncSkipped(err.resource);
      this.logger.debug({ replicaSet: key, reason: err.message }, "sync put off until the cache shows this controller's own write");
      return false;
    }
  }

  /** Records a Pod write under the ReplicaSet it was made for; a Pod left without a controller (a release) is nobody's. */
  private podWritten(stored: Pod, controllerRef: OwnerReference | undefined): void {
    if (!controllerRef) return;
    const owner = `${stored.metadata?.namespace ?? ""}/${controllerRef.name}`;
    this.ownWrites.wroteAt(owner, controllerRef.uid, podsResource, stored.metadata?.resourceVersion ?? "");
  }

  /**
   * The Pods this ReplicaSet controls (same kind, name and UID in their controller reference) and
   * the orphans of its namespace it might adopt, from the controllerRef index.
   */
  private ownedAndOrphanedPods(rs: ReplicaSet): Pod[] {
    const { namespace = "", name = "", uid = "" } = rs.metadata ?? {};
    return [
      ...this.podIndexer.byIndex(controllerRefIndexName, controllerRefIndexKey(namespace, { kind: replicaSetKind, name, uid })),
      ...this.podIndexer.byIndex(controllerRefIndexName, controllerRefIndexKey(namespace, undefined)),
    ];
  }

  /** The ReplicaSet's selector; the API server validates it, so a bad one is reported and never retried. */
  private selectorOf(rs: ReplicaSet): Selector {
    try {
      return selectorFromLabelSelector(rs.spec?.selector);
    } catch (err) {
      const message = `invalid selector ${JSON.stringify(rs.spec?.selector)}: ${errorMessage(err)}`;
      this.events.eventf(rs, undefined, "Warning", "InvalidSelector", "Sync", message);
      throw new TerminalError(message);
    }
  }

  /** Creates or deletes Pods to close the gap to spec.replicas; resolves with the first failure, if any. */
  private async manageReplicas(key: string, rs: ReplicaSet, activePods: readonly Pod[]): Promise<unknown> {
    const wanted = rs.spec?.replicas ?? 1;
    const diff = activePods.length - wanted;
    if (diff < 0) {
      const count = Math.min(-diff, burstReplicas);
      this.expectations.expectCreations(key, count);
      this.logger.info({ replicaSet: key, need: wanted, creating: count }, "too few replicas");
      let unsettled = 0;
      const namespace = rs.metadata?.namespace ?? "";
      const names = new SyncPodNames(podNamePrefix(rs.metadata?.name ?? ""), (name) => this.podIndexer.getByKey(`${namespace}/${name}`) !== undefined);
      const { successes, error } = await slowStartBatch(count, slowStartInitialBatchSize, async () => {
        const name = names.next();
        try {
          const created = await this.podControl.createPod(rs, name);
          this.expectations.creationAnswered(key, created.metadata?.resourceVersion ?? "");
        } catch (err) {
          // Every creation in a terminating namespace fails; there is nothing to retry.
          if (isNamespaceTerminating(err)) return;
          // AlreadyExists too: the REST client's own retry of a 5xx may have found this very Pod.
          if (mayHaveTakenEffect(err) || isAlreadyExists(err)) {
            unsettled++;
            this.unsettledWrites.creationUnsettled(key, name);
          }
          throw err;
        }
      });
      // Pods never created will never be observed; those that may have been stay expected.
      for (let skipped = count - successes - unsettled; skipped > 0; skipped--) this.expectations.creationNotMade(key);
      return error;
    }
    if (diff > 0) {
      const count = Math.min(diff, burstReplicas);
      this.logger.info({ replicaSet: key, need: wanted, deleting: count }, "too many replicas");
      const victims = podsToDelete(activePods, this.relatedPods(rs), count, this.clock.now());
      this.expectations.expectDeletions(key, victims.map(podKey));
      const failures = await Promise.all(victims.map((pod) => this.deleteExpectedPod(key, rs, pod)));
      return failures.find((failure) => failure !== undefined);
    }
    return undefined;
  }

  /**
   * Sends again the creates and deletes of this ReplicaSet whose answer was lost, so each is known
   * to have happened or not before the Pods are counted; resolves with the first that is still
   * unsettled, if any. One that did not happen is no longer expected.
   */
  private async settleWrites(key: string, rs: ReplicaSet): Promise<unknown> {
    const creations = this.unsettledWrites.takeCreations(key).map(async (name) => {
      try {
        const made = await this.podControl.createPodAgain(rs, name);
        if (made) this.expectations.creationAnswered(key, made.metadata?.resourceVersion ?? "");
        else this.expectations.creationNotMade(key);
        return undefined;
      } catch (err) {
        // Still not known whether the Pod exists: the repeat's answer, or the read after it, failed.
        this.unsettledWrites.creationUnsettled(key, name);
        return err;
      }
    });
    const deletions = this.unsettledWrites.takeDeletions(key).map((pod) => this.deleteExpectedPod(key, rs, pod));
    const failures = await Promise.all([...creations, ...deletions]);
    return failures.find((failure) => failure !== undefined);
  }

  /**
   * Deletes a Pod whose deletion the ReplicaSet expects; resolves with the error, if any. The Pod
   * stays expected unless the API server refused the delete: after a lost answer it is sent again
   * at the next sync, and a Pod found gone (NotFound) was in the cache, which will show it go.
   * kube-controller-manager stops expecting it in both cases, so a lagging cache makes it delete
   * again, and perhaps another Pod.
   */
  private async deleteExpectedPod(key: string, rs: ReplicaSet, pod: Pod): Promise<unknown> {
    try {
      await this.podControl.deletePod(rs, pod);
      return undefined;
    } catch (err) {
      if (isPodGone(err)) return undefined;
      if (mayHaveTakenEffect(err)) this.unsettledWrites.deletionUnsettled(key, podKey(pod), pod);
      // The informer will not see a deletion that was refused.
      else this.expectations.deletionObserved(key, podKey(pod));
      return err;
    }
  }

  /** The Pods of every ReplicaSet with the same controller as `rs` (none when it has no controller). */
  private relatedPods(rs: ReplicaSet): Pod[] {
    const ref = controllerRefOf(rs);
    if (!ref) return [];
    const seen = new Set<string>();
    const related: Pod[] = [];
    for (const sibling of this.replicaSetIndexer.byIndex(controllerUidIndexName, ref.uid)) {
      let selector: Selector;
      try {
        selector = selectorFromLabelSelector(sibling.spec?.selector);
      } catch {
        continue; // an invalid selector matches no Pods
      }
      for (const pod of this.pods.namespace(sibling.metadata?.namespace ?? "").list(selector)) {
        const uid = pod.metadata?.uid ?? "";
        if (seen.has(uid)) continue;
        seen.add(uid);
        related.push(pod);
      }
    }
    return related;
  }
}
