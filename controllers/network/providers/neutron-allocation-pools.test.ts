import { describe, expect, test } from "bun:test";
import { parseCIDR, parseIP, type IPAddress, type IPPrefix } from "../ip-address.ts";
import { defaultAllocationPools } from "./neutron-allocation-pools.ts";

const pools = (cidr: string, gateway: string) => defaultAllocationPools(parseCIDR(cidr) as IPPrefix, parseIP(gateway) as IPAddress);

describe("defaultAllocationPools (as Neutron computes them)", () => {
  test("IPv4: everything but network, broadcast and gateway", () => {
    expect(pools("10.1.0.0/24", "10.1.0.1")).toEqual([{ start: "10.1.0.2", end: "10.1.0.254" }]);
    expect(pools("10.1.0.0/24", "10.1.0.254")).toEqual([{ start: "10.1.0.1", end: "10.1.0.253" }]);
    expect(pools("10.1.0.0/24", "10.1.0.100")).toEqual([
      { start: "10.1.0.1", end: "10.1.0.99" },
      { start: "10.1.0.101", end: "10.1.0.254" },
    ]);
  });

  test("IPv6: the last address is usable, the subnet-router anycast address is not", () => {
    expect(pools("fd00:1::/64", "fd00:1::1")).toEqual([{ start: "fd00:1::2", end: "fd00:1::ffff:ffff:ffff:ffff" }]);
    expect(pools("fd00:1::/64", "fd00:1::")).toEqual([{ start: "fd00:1::1", end: "fd00:1::ffff:ffff:ffff:ffff" }]);
  });
});
