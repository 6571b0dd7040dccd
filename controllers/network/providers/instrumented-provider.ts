// Counts and times every provider operation by outcome, so operators (and the outage test)
// can see how often the controller actually calls its provider.
import { Counter, Histogram, type Registry } from "prom-client";
import { type Clock, realClock } from "../../../pkg/clock/clock.ts";
import { ProviderUnavailableError, type NetworkProvider } from "./provider.ts";
import { wrapNetworkProvider } from "./provider-wrapper.ts";

export type ProviderCallResult = "success" | "error" | "unavailable";

export function instrumentedNetworkProvider(provider: NetworkProvider, registry: Registry, clock: Clock = realClock): NetworkProvider {
  const calls = new Counter({
    name: "kube_loom_network_provider_operations_total",
    help: "Operations the network controller asked of its provider, by operation and result (success, error, unavailable).",
    labelNames: ["provider", "operation", "result"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "kube_loom_network_provider_operation_duration_seconds",
    help: "How long provider operations took, by operation.",
    labelNames: ["provider", "operation"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
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
