import { describe, expect, test } from "bun:test";
import { formatIP, parseCIDR, parseIP } from "./ip-address.ts";
import { validateNetworkSpec } from "./network-spec-validation.ts";

describe("validateNetworkSpec", () => {
  test.each([
    ["10.0.0.0/24", "10.0.0.1", "10.0.0.0/24", "10.0.0.1"],
    ["10.0.0.0/30", "10.0.0.2", "10.0.0.0/30", "10.0.0.2"],
    ["fd00:10::/64", "fd00:10::1", "fd00:10::/64", "fd00:10::1"],
    ["FD00:10::/64", "FD00:10:0::FFFF", "fd00:10::/64", "fd00:10::ffff"],
    ["2001:db8::/48", "2001:db8::", "2001:db8::/48", "2001:db8::"],
  ])("accepts %s with gateway %s", (cidr, gateway, cidrText, gatewayText) => {
    const result = validateNetworkSpec({ cidr, gateway });
    expect(result).toMatchObject({ valid: true, spec: { cidrText, gatewayText } });
  });

  test.each([
    [{ gateway: "10.0.0.1" }, "spec.cidr", "spec.cidr is required"],
    [{ cidr: "10.0.0.300/24", gateway: "10.0.0.1" }, "spec.cidr", 'spec.cidr "10.0.0.300/24" is not a CIDR such as 10.0.0.0/24 or fd00::/64'],
    [{ cidr: "10.0.0.0", gateway: "10.0.0.1" }, "spec.cidr", 'spec.cidr "10.0.0.0" is not a CIDR such as 10.0.0.0/24 or fd00::/64'],
    [{ cidr: "10.0.0.0/33", gateway: "10.0.0.1" }, "spec.cidr", 'spec.cidr "10.0.0.0/33" is not a CIDR'],
    [{ cidr: "010.0.0.0/24", gateway: "10.0.0.1" }, "spec.cidr", 'spec.cidr "010.0.0.0/24" is not a CIDR'],
    [{ cidr: "10.0.0.1/24", gateway: "10.0.0.2" }, "spec.cidr", 'spec.cidr "10.0.0.1/24" has host bits set: use "10.0.0.0/24"'],
    [{ cidr: "10.0.0.0/31", gateway: "10.0.0.1" }, "spec.cidr", "use an IPv4 prefix of /30 or shorter"],
    [{ cidr: "10.0.0.0/24" }, "spec.gateway", "spec.gateway is required"],
    [{ cidr: "10.0.0.0/24", gateway: "gw" }, "spec.gateway", 'spec.gateway "gw" is not an IP address'],
    [{ cidr: "10.0.0.0/24", gateway: "10.1.0.1" }, "spec.gateway", 'spec.gateway "10.1.0.1" is outside spec.cidr "10.0.0.0/24"'],
    [{ cidr: "10.0.0.0/24", gateway: "fd00::1" }, "spec.gateway", 'spec.gateway "fd00::1" is an IPv6 address but spec.cidr "10.0.0.0/24" is IPv4'],
    [{ cidr: "fd00::/64", gateway: "10.0.0.1" }, "spec.gateway", 'spec.gateway "10.0.0.1" is an IPv4 address but spec.cidr "fd00::/64" is IPv6'],
    [{ cidr: "10.0.0.0/24", gateway: "10.0.0.0" }, "spec.gateway", 'spec.gateway "10.0.0.0" is the network address of spec.cidr "10.0.0.0/24"'],
    [{ cidr: "10.0.0.0/24", gateway: "10.0.0.255" }, "spec.gateway", 'spec.gateway "10.0.0.255" is the broadcast address of spec.cidr "10.0.0.0/24"'],
    [{ cidr: "10.0.0.0/24", gateway: "10.0.0.1", name: "n".repeat(256) }, "spec.name", "is 256 characters long; at most 255 are allowed"],
  ])("rejects %j: %s", (spec, field, message) => {
    const result = validateNetworkSpec(spec);
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.field).toBe(field);
    expect(result.message).toContain(message);
    expect(result.message).not.toContain("\n");
  });
});

describe("IP parsing", () => {
  test.each(["::", "::1", "1::", "fd00::1:2", "1:2:3:4:5:6:7:8", "::ffff:10.0.0.1", "64:ff9b::192.0.2.33"])("parses %s", (text) => {
    expect(parseIP(text)?.family).toBe(6);
  });

  test.each(["1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "1.2.3.4::", "::1.2.3", "fe80::1%eth0", ":1::", "1.2.3", "1.2.3.4.5", "256.0.0.1", " 10.0.0.1"])(
    "refuses %s",
    (text) => {
      expect(parseIP(text)).toBeUndefined();
    },
  );

  test("formats IPv6 the RFC 5952 way", () => {
    expect(formatIP(parseIP("2001:0db8:0000:0000:0001:0000:0000:0001") ?? { family: 6, value: 0n })).toBe("2001:db8::1:0:0:1");
    expect(formatIP(parseIP("::ffff:10.0.0.1") ?? { family: 6, value: 0n })).toBe("::ffff:a00:1");
    expect(parseCIDR("fd00::/129")).toBeUndefined();
  });
});
