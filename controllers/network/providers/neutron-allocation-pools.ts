// The allocation pools Neutron gives a subnet by default (neutron's ipam_utils.generate_pools):
// every usable address except the gateway. Moving only the gateway is refused with 409
// GatewayConflictWithAllocationPools, so a gateway update sends the pools that fit the new one.
import { formatIP, lastAddress, networkAddress, type IPAddress, type IPPrefix } from "../ip-address.ts";

export interface AllocationPool {
  start: string;
  end: string;
}

export function defaultAllocationPools(cidr: IPPrefix, gateway: IPAddress): AllocationPool[] {
  const family = cidr.address.family;
  const first = networkAddress(cidr).value + 1n;
  // IPv4's last address is the broadcast address.
  const last = lastAddress(cidr).value - (family === 4 ? 1n : 0n);
  if (first > last) return [];
  const ranges: [bigint, bigint][] =
    gateway.value < first || gateway.value > last
      ? [[first, last]]
      : [
          [first, gateway.value - 1n],
          [gateway.value + 1n, last],
        ];
  return ranges
    .filter(([start, end]) => start <= end)
    .map(([start, end]) => ({ start: formatIP({ family, value: start }), end: formatIP({ family, value: end }) }));
}
