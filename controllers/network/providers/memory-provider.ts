// An in-process provider: the default, so the controller runs with no cloud at all. It keeps
// Neutron's rules that matter to the reconciler (a subnet's CIDR cannot change; deleting a
// network deletes its subnets; deleting what is gone succeeds).
import type { NetworkProvider, ProviderNetwork, ProviderSubnet, SubnetRequest } from "./provider.ts";

interface StoredNetwork {
  id: string;
  ownerUID: string;
  name: string;
  subnets: Map<string, ProviderSubnet>;
}

export class MemoryNetworkProvider implements NetworkProvider {
  readonly kind = "memory";
  private readonly networks = new Map<string, StoredNetwork>();

  async findNetwork(ownerUID: string): Promise<ProviderNetwork | undefined> {
    const stored = [...this.networks.values()].find((network) => network.ownerUID === ownerUID);
    return stored && snapshot(stored);
  }

  async createNetwork(ownerUID: string, name: string): Promise<ProviderNetwork> {
    const stored: StoredNetwork = { id: crypto.randomUUID(), ownerUID, name, subnets: new Map() };
    this.networks.set(stored.id, stored);
    return snapshot(stored);
  }

  async renameNetwork(networkID: string, name: string): Promise<void> {
    this.existing(networkID).name = name;
  }

  async createSubnet(networkID: string, _ownerUID: string, request: SubnetRequest): Promise<ProviderSubnet> {
    const subnet: ProviderSubnet = { id: crypto.randomUUID(), cidr: request.cidr, gatewayIP: request.gatewayIP };
    this.existing(networkID).subnets.set(subnet.id, subnet);
    return { ...subnet };
  }

  async updateGateway(subnet: ProviderSubnet, gatewayIP: string): Promise<ProviderSubnet> {
    const stored = this.subnet(subnet.id);
    if (!stored) throw new Error(`memory provider: subnet ${subnet.id} not found`);
    stored.gatewayIP = gatewayIP;
    return { ...stored };
  }

  async deleteSubnet(subnetID: string): Promise<void> {
    for (const network of this.networks.values()) network.subnets.delete(subnetID);
  }

  async deleteNetwork(networkID: string): Promise<void> {
    this.networks.delete(networkID);
  }

  /** Every network with all its subnets, as a cloud console would list them. */
  list(): { id: string; name: string; ownerUID: string; subnets: ProviderSubnet[] }[] {
    return [...this.networks.values()].map(({ id, name, ownerUID, subnets }) => ({ id, name, ownerUID, subnets: [...subnets.values()].map((s) => ({ ...s })) }));
  }

  private existing(networkID: string): StoredNetwork {
    const stored = this.networks.get(networkID);
    if (!stored) throw new Error(`memory provider: network ${networkID} not found`);
    return stored;
  }

  private subnet(subnetID: string): ProviderSubnet | undefined {
    for (const network of this.networks.values()) {
      const subnet = network.subnets.get(subnetID);
      if (subnet) return subnet;
    }
    return undefined;
  }
}

function snapshot(stored: StoredNetwork): ProviderNetwork {
  const first = stored.subnets.values().next();
  return { id: stored.id, name: stored.name, subnet: first.done ? undefined : { ...first.value } };
}
