// The network provider for OpenStack Neutron. Names are not unique in Neutron, so each network
// and subnet carries a tag holding the Network object's UID and is found again by it. Neutron
// (before tag-creation) cannot tag in the create call, so the same text also goes into the
// description, which is set atomically: a resource whose tagging was interrupted is still found,
// and adopted.
import { parseCIDR, parseIP } from "../ip-address.ts";
import { defaultAllocationPools } from "./neutron-allocation-pools.ts";
import { isNeutronNotFound, NeutronApiError, type NeutronClient } from "./neutron-client.ts";
import type { NetworkProvider, ProviderNetwork, ProviderSubnet, SubnetRequest } from "./provider.ts";

export interface NeutronProviderOptions {
  client: NeutronClient;
  /** Set for noauth: the project new resources belong to and lookups are limited to. Keystone scopes by token. */
  projectID?: string;
}

interface NeutronNetwork {
  id: string;
  name: string;
  description?: string;
  tags?: string[];
}

interface NeutronSubnet {
  id: string;
  cidr: string;
  gateway_ip: string | null;
  description?: string;
  tags?: string[];
}

type Collection = "networks" | "subnets";

/** Neutron tags: at most 60 characters, no commas or slashes. */
function ownerTag(ownerUID: string): string {
  return `kube-loom:network-uid:${ownerUID}`;
}

export class NeutronNetworkProvider implements NetworkProvider {
  readonly kind = "neutron";

  constructor(private readonly options: NeutronProviderOptions) {}

  async findNetwork(ownerUID: string, signal: AbortSignal): Promise<ProviderNetwork | undefined> {
    const network = await this.findOwned<NeutronNetwork>("networks", ownerUID, {}, signal);
    if (!network) return undefined;
    const subnet = await this.findOwned<NeutronSubnet>("subnets", ownerUID, { network_id: network.id }, signal);
    return { id: network.id, name: network.name, subnet: subnet && toProviderSubnet(subnet) };
  }

  async createNetwork(ownerUID: string, name: string, signal: AbortSignal): Promise<ProviderNetwork> {
    const { network } = await this.client.post<{ network: NeutronNetwork }>(
      "networks",
      { network: { name, description: ownerTag(ownerUID), admin_state_up: true, ...this.project() } },
      signal,
    );
    await this.tag("networks", network.id, ownerUID, signal);
    return { id: network.id, name: network.name, subnet: undefined };
  }

  async renameNetwork(networkID: string, name: string, signal: AbortSignal): Promise<void> {
    await this.client.put(`networks/${networkID}`, { network: { name } }, signal);
  }

  async createSubnet(networkID: string, ownerUID: string, request: SubnetRequest, signal: AbortSignal): Promise<ProviderSubnet> {
    const { subnet } = await this.client.post<{ subnet: NeutronSubnet }>(
      "subnets",
      {
        subnet: {
          network_id: networkID,
          name: request.name,
          description: ownerTag(ownerUID),
          ip_version: request.ipVersion,
          cidr: request.cidr,
          gateway_ip: request.gatewayIP,
          ...this.project(),
        },
      },
      signal,
    );
    await this.tag("subnets", subnet.id, ownerUID, signal);
    return toProviderSubnet(subnet);
  }

  async updateGateway(subnet: ProviderSubnet, gatewayIP: string, signal: AbortSignal): Promise<ProviderSubnet> {
    const cidr = parseCIDR(subnet.cidr);
    const gateway = parseIP(gatewayIP);
    if (!cidr || !gateway) throw new Error(`cannot move the gateway of subnet ${subnet.id} (${subnet.cidr}) to ${gatewayIP}`);
    const { subnet: updated } = await this.client.put<{ subnet: NeutronSubnet }>(
      `subnets/${subnet.id}`,
      { subnet: { gateway_ip: gatewayIP, allocation_pools: defaultAllocationPools(cidr, gateway) } },
      signal,
    );
    return toProviderSubnet(updated);
  }

  async deleteSubnet(subnetID: string, signal: AbortSignal): Promise<void> {
    await this.deleteIfPresent(`subnets/${subnetID}`, signal);
  }

  async deleteNetwork(networkID: string, signal: AbortSignal): Promise<void> {
    await this.deleteIfPresent(`networks/${networkID}`, signal);
  }

  private get client(): NeutronClient {
    return this.options.client;
  }

  private project(): { project_id?: string } {
    return this.options.projectID ? { project_id: this.options.projectID } : {};
  }

  /** By tag first; else by the description marker, re-tagging what an interrupted create left untagged. */
  private async findOwned<T extends { id: string }>(
    collection: Collection,
    ownerUID: string,
    filters: Record<string, string>,
    signal: AbortSignal,
  ): Promise<T | undefined> {
    const query = { ...filters, ...this.project() };
    const tagged = await this.list<T>(collection, { ...query, tags: ownerTag(ownerUID) }, signal);
    if (tagged[0]) return tagged[0];
    const untagged = (await this.list<T>(collection, { ...query, description: ownerTag(ownerUID) }, signal))[0];
    if (untagged) await this.tag(collection, untagged.id, ownerUID, signal);
    return untagged;
  }

  private async list<T>(collection: Collection, query: Record<string, string>, signal: AbortSignal): Promise<T[]> {
    const body = await this.client.get<Record<Collection, T[] | undefined>>(`${collection}?${new URLSearchParams(query)}`, signal);
    const items = body[collection];
    if (!Array.isArray(items)) throw new NeutronApiError(200, "UnexpectedResponse", `Neutron GET /v2.0/${collection} returned no "${collection}" list`);
    return items;
  }

  private async tag(collection: Collection, id: string, ownerUID: string, signal: AbortSignal): Promise<void> {
    await this.client.put(`${collection}/${id}/tags`, { tags: [ownerTag(ownerUID)] }, signal);
  }

  private async deleteIfPresent(path: string, signal: AbortSignal): Promise<void> {
    try {
      await this.client.delete(path, signal);
    } catch (err) {
      if (!isNeutronNotFound(err)) throw err;
    }
  }
}

function toProviderSubnet(subnet: NeutronSubnet): ProviderSubnet {
  return { id: subnet.id, cidr: subnet.cidr, gatewayIP: subnet.gateway_ip };
}
