// The comparison at the heart of the network controller: read the provider's network for a
// Network object, and create, update or replace what differs from the spec, step by step.
// Every step is idempotent, so a sync interrupted anywhere is finished by the next one. A network
// deleted by someone else after it was read fails the step that addresses it; that is drift
// found late, so the sync starts over once from the read instead of failing.
import { parseCIDR, parseIP } from "./ip-address.ts";
import type { ValidNetworkSpec } from "./network-spec-validation.ts";
import { type NetworkProvider, type ProviderNetwork, type ProviderSubnet, ProviderUnavailableError } from "./providers/provider.ts";

export type SyncActionReason = "NetworkCreated" | "NetworkRenamed" | "SubnetCreated" | "SubnetReplaced" | "GatewayUpdated";

export interface SyncAction {
  reason: SyncActionReason;
  /** One line for the Event. */
  note: string;
}

export interface SyncOutcome {
  networkID: string;
  subnetID: string;
  /** What had to change; empty when the provider already matched. */
  actions: SyncAction[];
}

export interface NetworkOwner {
  uid: string;
  /** The provider-side name to use. */
  providerName: string;
}

export async function syncProviderNetwork(
  provider: NetworkProvider,
  owner: NetworkOwner,
  spec: ValidNetworkSpec,
  signal: AbortSignal,
): Promise<SyncOutcome> {
  const network = await provider.findNetwork(owner.uid, signal);
  try {
    return await syncFrom(network, provider, owner, spec, signal);
  } catch (err) {
    // An unreachable provider would only make the second read wait out its timeout too.
    if (network === undefined || signal.aborted || err instanceof ProviderUnavailableError) throw err;
    const now = await provider.findNetwork(owner.uid, signal);
    if (now?.id === network.id) throw err;
    return syncFrom(now, provider, owner, spec, signal);
  }
}

/** The steps after the read: `found` is the provider's network as read, if any. */
async function syncFrom(
  found: ProviderNetwork | undefined,
  provider: NetworkProvider,
  owner: NetworkOwner,
  spec: ValidNetworkSpec,
  signal: AbortSignal,
): Promise<SyncOutcome> {
  const actions: SyncAction[] = [];
  const kind = provider.kind;
  const name = owner.providerName;
  let network = found;
  if (!network) {
    network = await provider.createNetwork(owner.uid, name, signal);
    actions.push({ reason: "NetworkCreated", note: `created ${kind} network ${network.id} named ${JSON.stringify(name)}` });
  } else if (network.name !== name) {
    await provider.renameNetwork(network.id, name, signal);
    actions.push({ reason: "NetworkRenamed", note: `renamed ${kind} network ${network.id} from ${JSON.stringify(network.name)} to ${JSON.stringify(name)}` });
  }

  let subnet: ProviderSubnet | undefined = network.subnet;
  let replaced: ProviderSubnet | undefined;
  // A subnet's CIDR is read-only (in Neutron too): a new CIDR means a new subnet.
  if (subnet && !sameCIDR(subnet.cidr, spec)) {
    await provider.deleteSubnet(subnet.id, signal);
    replaced = subnet;
    subnet = undefined;
  }
  if (!subnet) {
    subnet = await provider.createSubnet(
      network.id,
      owner.uid,
      { name, cidr: spec.cidrText, gatewayIP: spec.gatewayText, ipVersion: spec.cidr.address.family },
      signal,
    );
    actions.push(
      replaced
        ? { reason: "SubnetReplaced", note: `replaced ${kind} subnet ${replaced.id} (${replaced.cidr}) with ${subnet.id} (${subnet.cidr}, gateway ${spec.gatewayText})` }
        : { reason: "SubnetCreated", note: `created ${kind} subnet ${subnet.id} (${subnet.cidr}, gateway ${spec.gatewayText})` },
    );
  } else if (!sameGateway(subnet.gatewayIP, spec)) {
    subnet = await provider.updateGateway(subnet, spec.gatewayText, signal);
    actions.push({ reason: "GatewayUpdated", note: `moved the gateway of ${kind} subnet ${subnet.id} to ${spec.gatewayText}` });
  }
  return { networkID: network.id, subnetID: subnet.id, actions };
}

/** Compared as numbers: providers may spell an address differently (e.g. IPv6 case or zero runs). */
function sameCIDR(actual: string, spec: ValidNetworkSpec): boolean {
  const parsed = parseCIDR(actual);
  return parsed !== undefined && parsed.prefixLength === spec.cidr.prefixLength && parsed.address.value === spec.cidr.address.value && parsed.address.family === spec.cidr.address.family;
}

function sameGateway(actual: string | null, spec: ValidNetworkSpec): boolean {
  const parsed = actual === null ? undefined : parseIP(actual);
  return parsed !== undefined && parsed.family === spec.gateway.family && parsed.value === spec.gateway.value;
}
