// Reconciles one Network: validate the spec, hold the object with a finalizer, make the provider
// match (network-sync.ts), and report every outcome in status and Events:
//   Ready=True  Provisioned          the provider network matches the spec
//   Ready=False InvalidSpec          not retried until the spec changes; the provider is not called
//   Ready=False ProviderError        the provider refused or failed: rate-limited retries
//   Ready=False ProviderUnavailable  the provider is unreachable: shared backoff, recovers by itself
// Deleting a Network deletes its provider network first; "already gone" counts as deleted.
import { type Clock, realClock } from "../../pkg/clock/clock.ts";
import type { ReconcileRequest } from "../../pkg/builder/build-controller.ts";
import type { ReconcileResult } from "../../pkg/controller/reconciler.ts";
import { firstLineOfError } from "../../pkg/errors/expected-error.ts";
import type { EventRecorder } from "../../pkg/events/recorder.ts";
import { hasFinalizer } from "../../pkg/kube/finalizers.ts";
import type { Logger } from "../../pkg/log/logger.ts";
import { networkFinalizer, type Network } from "./network-resource.ts";
import { validateNetworkSpec, type ValidNetworkSpec } from "./network-spec-validation.ts";
import { isReadyAtCurrentGeneration, nextStatus, readyChanges, statusEquals, type ProviderIDs, type ReadyState } from "./network-status.ts";
import { syncProviderNetwork } from "./network-sync.ts";
import type { NetworkWriter } from "./network-writer.ts";
import type { ProviderOutageBackoff } from "./provider-outage-backoff.ts";
import { ProviderUnavailableError, type NetworkProvider } from "./providers/provider.ts";

export interface NetworkReconcilerOptions {
  writer: NetworkWriter;
  provider: NetworkProvider;
  outage: ProviderOutageBackoff;
  events: EventRecorder;
  logger: Logger;
  clock?: Clock;
}

/** The Network controller's reconciler: the builder hands it each Network as the cache has it. */
export class NetworkReconciler {
  private readonly clock: Clock;

  constructor(private readonly options: NetworkReconcilerOptions) {
    this.clock = options.clock ?? realClock;
  }

  async reconcile({ key, object: network }: ReconcileRequest<Network>, signal: AbortSignal): Promise<ReconcileResult> {
    if (!network) {
      this.options.outage.forget(key);
      return;
    }
    if (network.metadata?.deletionTimestamp) return this.finalize(key, network, signal);
    const validation = validateNetworkSpec(network.spec);
    if (!validation.valid) {
      // The next spec change (a new generation) brings the key back; until then retrying cannot help.
      await this.report(network, { status: "False", reason: "InvalidSpec", message: validation.message }, "Validate");
      return;
    }
    const held = hasFinalizer(network, networkFinalizer) ? network : await this.options.writer.addFinalizer(network);
    if (!held) return;
    return this.provision(key, held, validation.spec, signal);
  }

  private async provision(key: string, network: Network, spec: ValidNetworkSpec, signal: AbortSignal): Promise<ReconcileResult> {
    const { provider } = this.options;
    const inSyncBefore = isReadyAtCurrentGeneration(network);
    const outcome = await this.callProvider(key, network, signal, (uid) =>
      syncProviderNetwork(provider, { uid, providerName: spec.name ?? providerNameOf(network) }, spec, signal),
    );
    if ("requeueAfterMs" in outcome) return outcome;
    const { actions, networkID, subnetID } = outcome.result;
    const message = `${provider.kind} network ${networkID}, subnet ${subnetID} (${spec.cidrText}, gateway ${spec.gatewayText})`;
    const first = actions[0];
    if (first) {
      // One Event per reconcile, however many steps it took: Events cost API writes too.
      const notes = actions.map((action) => action.note).join("; ");
      if (inSyncBefore) {
        // Nothing in the spec changed since the last success: someone changed the provider side.
        this.options.events.eventf(network, undefined, "Warning", "DriftRepaired", "Repair", `${provider.kind} network drifted from the spec and was repaired: ${notes}`);
        this.options.logger.warn({ network: key, actions: actions.map((a) => a.reason) }, "repaired provider drift");
      } else {
        this.options.events.eventf(network, undefined, "Normal", first.reason, "Sync", notes);
        this.options.logger.info({ network: key, actions: actions.map((a) => a.reason) }, "synced provider network");
      }
    }
    await this.report(network, { status: "True", reason: "Provisioned", message }, "Sync", { networkID, subnetID }, first === undefined);
    return;
  }

  private async finalize(key: string, network: Network, signal: AbortSignal): Promise<ReconcileResult> {
    if (!hasFinalizer(network, networkFinalizer)) return;
    const { provider } = this.options;
    const outcome = await this.callProvider(key, network, signal, async (uid) => {
      const actual = await provider.findNetwork(uid, signal);
      if (actual) await provider.deleteNetwork(actual.id, signal);
      return actual;
    });
    if ("requeueAfterMs" in outcome) return outcome;
    await this.options.writer.removeFinalizer(network);
    this.options.outage.forget(key);
    const note = outcome.result ? `deleted ${provider.kind} network ${outcome.result.id}` : `no ${provider.kind} network was left to delete`;
    this.options.events.eventf(network, undefined, "Normal", "NetworkDeleted", "Delete", note);
    this.options.logger.info({ network: key, networkID: outcome.result?.id }, "deleted provider network; finalizer removed");
    return;
  }

  /**
   * Runs `work` against the provider when the outage backoff allows it. Unavailability parks the
   * key and reports ProviderUnavailable; other provider errors report ProviderError and are
   * rethrown for the workqueue's rate-limited retry.
   */
  private async callProvider<T>(
    key: string,
    network: Network,
    signal: AbortSignal,
    work: (uid: string) => Promise<T>,
  ): Promise<{ result: T } | { requeueAfterMs: number }> {
    const { outage, provider } = this.options;
    const uid = network.metadata?.uid;
    if (!uid) throw new Error(`Network ${key} has no metadata.uid`);
    const admission = outage.admit(key);
    if (!admission.admitted) {
      await this.report(network, unavailable(provider, admission.message), "Sync");
      return { requeueAfterMs: admission.retryAfterMs };
    }
    try {
      const result = await work(uid);
      outage.succeeded();
      return { result };
    } catch (err) {
      if (signal.aborted) throw err;
      const message = firstLineOfError(err);
      if (err instanceof ProviderUnavailableError) {
        const requeueAfterMs = outage.failed(key, message);
        this.options.logger.info({ network: key, err: message, retryInMs: requeueAfterMs }, "provider unavailable; backing off");
        await this.report(network, unavailable(provider, message), "Sync");
        return { requeueAfterMs };
      }
      outage.succeeded();
      await this.report(network, { status: "False", reason: "ProviderError", message }, "Sync");
      throw err;
    } finally {
      outage.release(key);
    }
  }

  /** Writes the status if it changed; an Event when the Ready condition changed (unless the caller already sent one). */
  private async report(network: Network, ready: ReadyState, action: string, ids?: ProviderIDs, announce = true): Promise<void> {
    const status = nextStatus(network, ready, ids, this.clock.now());
    if (announce && readyChanges(network, ready)) {
      this.options.events.eventf(network, undefined, ready.status === "True" ? "Normal" : "Warning", ready.reason, action, ready.message);
    }
    if (!statusEquals(network.status, status)) await this.options.writer.writeStatus(network, status);
  }
}

/** Default provider-side name: unambiguous across namespaces. */
function providerNameOf(network: Network): string {
  return `${network.metadata?.namespace ?? ""}/${network.metadata?.name ?? ""}`;
}

function unavailable(provider: NetworkProvider, message: string): ReadyState {
  return { status: "False", reason: "ProviderUnavailable", message: `${provider.kind} is unavailable: ${message}` };
}
