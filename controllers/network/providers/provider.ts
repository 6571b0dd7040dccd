// What the network controller needs from a cloud: one network with one subnet per Network
// object, found again by the object's UID. The reconciler decides what to change; a provider
// only carries out single steps, so every provider behaves the same way.
import { ExpectedError } from "../../../pkg/errors/expected-error.ts";

export interface ProviderSubnet {
  id: string;
  /** Canonical CIDR as the provider reports it. */
  cidr: string;
  gatewayIP: string | null;
}

export interface ProviderNetwork {
  id: string;
  name: string;
  /** The subnet this controller made for the network, if it still exists. */
  subnet: ProviderSubnet | undefined;
}

export interface SubnetRequest {
  name: string;
  /** Canonical CIDR. */
  cidr: string;
  gatewayIP: string;
  ipVersion: 4 | 6;
}

/**
 * Every method may throw ProviderUnavailableError (the provider cannot be reached: back off
 * and try later); any other error means the provider refused or failed the request.
 */
export interface NetworkProvider {
  /** "neutron" or "memory", for logs and messages. */
  readonly kind: string;
  /** The network owned by the object with this UID, with its subnet; undefined when there is none. */
  findNetwork(ownerUID: string, signal: AbortSignal): Promise<ProviderNetwork | undefined>;
  createNetwork(ownerUID: string, name: string, signal: AbortSignal): Promise<ProviderNetwork>;
  renameNetwork(networkID: string, name: string, signal: AbortSignal): Promise<void>;
  createSubnet(networkID: string, ownerUID: string, request: SubnetRequest, signal: AbortSignal): Promise<ProviderSubnet>;
  /** Moves the gateway of an existing subnet (the CIDR stays). */
  updateGateway(subnet: ProviderSubnet, gatewayIP: string, signal: AbortSignal): Promise<ProviderSubnet>;
  /** Succeeds when the subnet is already gone. */
  deleteSubnet(subnetID: string, signal: AbortSignal): Promise<void>;
  /** Deletes the network with its subnets; succeeds when it is already gone. */
  deleteNetwork(networkID: string, signal: AbortSignal): Promise<void>;
}

/** The provider could not be reached (connection refused, timeout, 502/503/504): nothing to fix in the object. */
export class ProviderUnavailableError extends ExpectedError {
  override readonly name = "ProviderUnavailableError";
}
