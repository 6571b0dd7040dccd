// The sync of one ReplicaSet (kube-controller-manager's syncReplicaSet): claim the Pods it owns,
// create or delete Pods until their number matches spec.replicas (only when the cache has caught
// up with its previous writes), then write the status.
import type { V1Pod, V1ReplicaSet } from "@kubernetes/client-node";
import { type Clock, realClock } from "../../pkg/clock/clock.ts";
import type { ReconcileRequest, SetupContext } from "../../pkg/builder/controller-builder.ts";
import type { KeyQueue } from "../../pkg/builder/event-mappers.ts";
import { TerminalError, type ReconcileResult } from "../../pkg/controller/reconciler.ts";
import type { EventRecorder } from "../../pkg/events/recorder.ts";
import { controllerUidIndex, controllerUidIndexName } from "../../pkg/informer/index-funcs.ts";
import type { Indexer } from "../../pkg/informer/indexer.ts";
import { splitMetaNamespaceKey } from "../../pkg/informer/keys.ts";
import type { Lister } from "../../pkg/informer/lister.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { isNotFound } from "../../pkg/kube/errors.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { Wire } from "../../pkg/kube/objects.ts";
import { controllerRefOf, isControlledBy } from "../../pkg/kube/owner-references.ts";
import { selectorFromLabelSelector, type Selector } from "../../pkg/labels/selector.ts";
import type { Logger } from "../../pkg/log/logger.ts";
import { PodClaim } from "./adoption.ts";
import { ReplicaSetEventHandlers } from "./event-handlers.ts";
import { PodExpectations } from "./expectations.ts";
import { isNamespaceTerminating, PodControl } from "./pod-control.ts";
import { podsToDelete } from "./pod-ranking.ts";
import { isPodActive, isPodTerminating, podKey } from "./pod-state.ts";
import { calculateStatus, TerminatingReplicasSupport, writeStatus } from "./replicaset-status.ts";
import { slowStartBatch, slowStartInitialBatchSize } from "./slow-start.ts";
import { errorMessage } from "../../pkg/errors/expected-error.ts";

type Pod = Wire<V1Pod>;
type ReplicaSet = Wire<V1ReplicaSet>;

/** At most this many Pods are created or deleted per sync (kube-controller-manager's BurstReplicas). */
export const burstReplicas = 500;

export interface ReplicaSetControllerOptions {
  client: KubeClient;
  /** The shared informers the controller reads (the builder's `informer`, so their caches are waited for). */
  informer: SetupContext<ReplicaSet>["informer"];
  events: EventRecorder;
  logger: Logger;
  queue: KeyQueue;
  clock?: Clock;
}

export class ReplicaSetController {
  private readonly client: KubeClient;
  private readonly events: EventRecorder;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly expectations: PodExpectations;
  private readonly podControl: PodControl;
  private readonly terminatingReplicas = new TerminatingReplicasSupport();
  private readonly replicaSets: Lister<ReplicaSet>;
  private readonly replicaSetIndexer: Indexer<ReplicaSet>;
  private readonly pods: Lister<Pod>;

  /** Registers the informer handlers: call before the informers start. */
  constructor(options: ReplicaSetControllerOptions) {
    this.client = options.client;
    this.events = options.events;
    this.logger = options.logger;
    this.clock = options.clock ?? realClock;
    this.expectations = new PodExpectations(this.clock);
    this.podControl = new PodControl(options.client, options.events);
    const replicaSets = options.informer<ReplicaSet>(resources.replicaSets);
    const pods = options.informer<Pod>(resources.pods);
    const handlers = new ReplicaSetEventHandlers(options.queue, this.expectations, replicaSets.lister);
    replicaSets.informer.addEventHandler(handlers.replicaSetHandler);
    pods.informer.addEventHandler(handlers.podHandler);
    this.replicaSets = replicaSets.lister;
    this.replicaSetIndexer = replicaSets.informer.getIndexer();
    this.pods = pods.lister;
    // Another controller sharing the informer may have added the same index already.
    if (!(controllerUidIndexName in this.replicaSetIndexer.getIndexers())) {
      replicaSets.informer.addIndexers({ [controllerUidIndexName]: controllerUidIndex });
    }
  }

  async reconcile({ key }: ReconcileRequest<ReplicaSet>): Promise<ReconcileResult> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const rs = this.replicaSets.namespace(namespace).get(name);
    if (!rs) {
      this.expectations.delete(key);
      return;
    }
    // Read before listing Pods: expectations met now mean the listed Pods include those writes.
    const cacheCaughtUp = this.expectations.satisfied(key);
    const selector = this.selectorOf(rs);
    const replicaSetClient = this.client.dynamic.resource<ReplicaSet>(resources.replicaSets, namespace);

    const allPods = this.pods.namespace(namespace).list();
    const claim = new PodClaim(rs, selector, this.podControl, () => replicaSetClient.get(name));
    const activePods = await claim.claim(allPods.filter(isPodActive));
    const terminatingPods = this.terminatingReplicas.maintained
      ? allPods.filter((pod) => isPodTerminating(pod) && isControlledBy(pod, rs) && selector.matches(pod.metadata?.labels))
      : undefined;

    const manageError = cacheCaughtUp && !rs.metadata?.deletionTimestamp ? await this.manageReplicas(key, rs, activePods) : undefined;
    const status = calculateStatus(rs, { activePods, terminatingPods, manageError, now: this.clock.now() });
    const written = await writeStatus(replicaSetClient, rs, status, this.logger);
    if (written && this.terminatingReplicas.observeWrite(status, written)) {
      this.logger.info("the API server drops status.terminatingReplicas (feature gate DeploymentReplicaSetTerminatingReplicas is off); not maintaining it");
    }
    if (manageError !== undefined) throw manageError;

    // A last look once the ready Pods should have become available, in case no Pod event comes.
    const current = written ?? rs;
    const minReadySeconds = current.spec?.minReadySeconds ?? 0;
    const wanted = current.spec?.replicas ?? 1;
    if (minReadySeconds > 0 && (current.status?.readyReplicas ?? 0) === wanted && (current.status?.availableReplicas ?? 0) !== wanted) {
      return { requeueAfterMs: minReadySeconds * 1000 };
    }
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
      const { successes, error } = await slowStartBatch(count, slowStartInitialBatchSize, () => this.createPod(rs));
      // Pods never created will never be observed.
      for (let skipped = count - successes; skipped > 0; skipped--) this.expectations.creationObserved(key);
      return error;
    }
    if (diff > 0) {
      const count = Math.min(diff, burstReplicas);
      this.logger.info({ replicaSet: key, need: wanted, deleting: count }, "too many replicas");
      const victims = podsToDelete(activePods, this.relatedPods(rs), count, this.clock.now());
      this.expectations.expectDeletions(key, victims.map(podKey));
      const failures = await Promise.all(
        victims.map(async (pod) => {
          try {
            await this.podControl.deletePod(rs, pod);
            return undefined;
          } catch (err) {
            // The informer will not see a deletion that did not happen.
            this.expectations.deletionObserved(key, podKey(pod));
            return isNotFound(err) ? undefined : err;
          }
        }),
      );
      return failures.find((failure) => failure !== undefined);
    }
    return undefined;
  }

  private async createPod(rs: ReplicaSet): Promise<void> {
    try {
      await this.podControl.createPod(rs);
    } catch (err) {
      // Every creation in a terminating namespace fails; there is nothing to retry.
      if (!isNamespaceTerminating(err)) throw err;
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
