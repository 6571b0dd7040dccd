// Counts and times every provider operation by outcome, so operators (and the outage test)
// can see how often the controller actually calls its provider.
import type { Registry } from "prom-client";
import { type Clock, realClock } from "../../../pkg/clock/clock.ts";
import { counter, histogram } from "../../../pkg/metrics/declare.ts";
import { ProviderUnavailableError, type NetworkProvider } from "./provider.ts";
import { wrapNetworkProvider } from "./provider-wrapper.ts";

// From a few milliseconds (the memory provider) to Neutron's 30 s request timeout.
const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export type ProviderCallResult = "success" | "error" | "unavailable";

export function instrumentedNetworkProvider(provider: NetworkProvider, registry: Registry, clock: Clock = realClock): NetworkProvider {
  const calls = counter(
    registry,
    "kube_loom_network_provider_operations_total",
    "Operations the network controller asked of its provider, by operation and result (success, error, unavailable).",
    ["provider", "operation", "result"],
  );
  const duration = histogram(registry, "kube_loom_network_provider_operation_duration_seconds", "How long provider operations took, by operation.", ["provider", "operation"], durationBuckets);
  return wrapNetworkProvider(provider.kind, async (operation, call) => {
    const started = clock.monotonic();
    let result: ProviderCallResult = "error";
    try {
      const value = await call(provider);
      result = "success";
      return value;
    } catch (err) {
      if (err instanceof ProviderUnavailableError) result = "unavailable";
      throw err;
    } finally {
      calls.inc({ provider: provider.kind, operation, result });
      duration.observe({ provider: provider.kind, operation }, (clock.monotonic() - started) / 1000);
    }
  });
}
