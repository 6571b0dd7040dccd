// One place that forwards every provider method, so decorators (deferred construction,
// metrics, fault injection in tests) only say what happens around a call.
import type { NetworkProvider } from "./provider.ts";

export type ProviderOperation = Exclude<keyof NetworkProvider, "kind">;

/** Runs `call` against the wrapped provider; `operation` names the method for decorators that care. */
export type AroundProviderCall = <T>(operation: ProviderOperation, call: (provider: NetworkProvider) => Promise<T>) => Promise<T>;

export function wrapNetworkProvider(kind: string, around: AroundProviderCall): NetworkProvider {
  return {
    kind,
    findNetwork: (ownerUID, signal) => around("findNetwork", (p) => p.findNetwork(ownerUID, signal)),
    createNetwork: (ownerUID, name, signal) => around("createNetwork", (p) => p.createNetwork(ownerUID, name, signal)),
    renameNetwork: (networkID, name, signal) => around("renameNetwork", (p) => p.renameNetwork(networkID, name, signal)),
    createSubnet: (networkID, ownerUID, request, signal) => around("createSubnet", (p) => p.createSubnet(networkID, ownerUID, request, signal)),
    updateGateway: (subnet, gatewayIP, signal) => around("updateGateway", (p) => p.updateGateway(subnet, gatewayIP, signal)),
    deleteSubnet: (subnetID, signal) => around("deleteSubnet", (p) => p.deleteSubnet(subnetID, signal)),
    deleteNetwork: (networkID, signal) => around("deleteNetwork", (p) => p.deleteNetwork(networkID, signal)),
  };
}
