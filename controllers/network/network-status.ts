// The Network's status: a Ready condition with a reason for every outcome, the generation it
// describes, and the provider IDs. Written only when it changes, so resyncs cost no writes.
import { formatTime } from "../../pkg/kube/micro-time.ts";
import type { Condition, Network, NetworkStatus } from "./network-resource.ts";

const readyConditionType = "Ready";

export type ReadyReason = "Provisioned" | "InvalidSpec" | "ProviderError" | "ProviderUnavailable";

export interface ReadyState {
  status: "True" | "False";
  reason: ReadyReason;
  /** One line; stable across retries of the same problem, so retries do not rewrite the status. */
  message: string;
}

export interface ProviderIDs {
  networkID: string;
  subnetID: string;
}

export function readyCondition(network: Network): Condition | undefined {
  return network.status?.conditions?.find((condition) => condition.type === readyConditionType);
}

/** Ready=True at the object's current generation: the provider network was last seen matching this spec. */
export function isReadyAtCurrentGeneration(network: Network): boolean {
  const generation = network.metadata?.generation;
  return readyCondition(network)?.status === "True" && network.status?.observedGeneration === generation;
}

/** True when `ready` differs from the current condition in status, reason or message. */
export function readyChanges(network: Network, ready: ReadyState): boolean {
  const current = readyCondition(network);
  return current?.status !== ready.status || current.reason !== ready.reason || current.message !== ready.message;
}

/**
 * The status after an outcome: `ids` replace the provider IDs when given (success), otherwise
 * the last known ones stay. The transition time moves only when the condition's status does.
 */
export function nextStatus(network: Network, ready: ReadyState, ids: ProviderIDs | undefined, now: number): NetworkStatus {
  const generation = network.metadata?.generation;
  const current = readyCondition(network);
  const condition: Condition = {
    type: readyConditionType,
    status: ready.status,
    reason: ready.reason,
    message: ready.message,
    lastTransitionTime: current && current.status === ready.status ? current.lastTransitionTime : formatTime(now),
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
  const others = (network.status?.conditions ?? []).filter((c) => c.type !== readyConditionType);
  const networkID = ids?.networkID ?? network.status?.networkID;
  const subnetID = ids?.subnetID ?? network.status?.subnetID;
  return {
    ...network.status,
    conditions: [...others, condition],
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    ...(networkID ? { networkID } : {}),
    ...(subnetID ? { subnetID } : {}),
  };
}

export function statusEquals(a: NetworkStatus | undefined, b: NetworkStatus): boolean {
  return JSON.stringify(canonical(a ?? {})) === JSON.stringify(canonical(b));
}

/** Key order does not matter to the API server, so it must not matter here. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([key, v]) => [key, canonical(v)]));
  }
  return value;
}
