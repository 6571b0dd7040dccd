// The controller's own checks of a Network's spec: the CRD's CEL rules repeated (API servers
// without CEL, or a CRD installed without them), plus what Neutron would accept silently or
// reject only after a round trip (a gateway outside the CIDR, a network or broadcast gateway).
import { formatCIDR, formatIP, lastAddress, networkAddress, parseCIDR, parseIP, prefixContains, type IPAddress, type IPPrefix } from "./ip-address.ts";
import type { NetworkSpec } from "./network-resource.ts";

/** Neutron's limit for names (and the CRD's maxLength). */
const maxProviderNameLength = 255;
/** The longest prefixes that still leave room for a gateway and one host (and DHCP in Neutron). */
const longestPrefix = { 4: 30, 6: 126 } as const;

export interface ValidNetworkSpec {
  cidr: IPPrefix;
  /** Canonical text, as the provider reports it back. */
  cidrText: string;
  gateway: IPAddress;
  gatewayText: string;
  name: string | undefined;
}

export type SpecValidation =
  | { valid: true; spec: ValidNetworkSpec }
  /** `message` is one line naming the field and its value. */
  | { valid: false; field: string; message: string };

export function validateNetworkSpec(spec: NetworkSpec | undefined): SpecValidation {
  const invalid = (field: string, message: string): SpecValidation => ({ valid: false, field, message });
  const cidrText = spec?.cidr;
  const gatewayText = spec?.gateway;
  if (typeof cidrText !== "string" || cidrText === "") return invalid("spec.cidr", "spec.cidr is required");
  const cidr = parseCIDR(cidrText);
  if (!cidr) return invalid("spec.cidr", `spec.cidr ${quote(cidrText)} is not a CIDR such as 10.0.0.0/24 or fd00::/64`);
  const family = cidr.address.family;
  if (networkAddress(cidr).value !== cidr.address.value) {
    return invalid("spec.cidr", `spec.cidr ${quote(cidrText)} has host bits set: use ${quote(formatCIDR(cidr))}`);
  }
  if (cidr.prefixLength > longestPrefix[family]) {
    return invalid(
      "spec.cidr",
      `spec.cidr ${quote(cidrText)} is too small for a gateway and hosts: use an IPv${family} prefix of /${longestPrefix[family]} or shorter`,
    );
  }
  if (typeof gatewayText !== "string" || gatewayText === "") return invalid("spec.gateway", "spec.gateway is required");
  const gateway = parseIP(gatewayText);
  if (!gateway) return invalid("spec.gateway", `spec.gateway ${quote(gatewayText)} is not an IP address`);
  if (gateway.family !== family) {
    return invalid(
      "spec.gateway",
      `spec.gateway ${quote(gatewayText)} is an IPv${gateway.family} address but spec.cidr ${quote(cidrText)} is IPv${family}`,
    );
  }
  if (!prefixContains(cidr, gateway)) {
    return invalid("spec.gateway", `spec.gateway ${quote(gatewayText)} is outside spec.cidr ${quote(cidrText)}`);
  }
  if (family === 4 && gateway.value === cidr.address.value) {
    return invalid("spec.gateway", `spec.gateway ${quote(gatewayText)} is the network address of spec.cidr ${quote(cidrText)}`);
  }
  if (family === 4 && gateway.value === lastAddress(cidr).value) {
    return invalid("spec.gateway", `spec.gateway ${quote(gatewayText)} is the broadcast address of spec.cidr ${quote(cidrText)}`);
  }
  const name = spec?.name;
  if (name !== undefined && (typeof name !== "string" || name.length > maxProviderNameLength)) {
    const text = String(name);
    return invalid("spec.name", `spec.name ${quote(`${text.slice(0, 40)}...`)} is ${text.length} characters long; at most ${maxProviderNameLength} are allowed`);
  }
  return {
    valid: true,
    spec: { cidr, cidrText: formatCIDR(cidr), gateway, gatewayText: formatIP(gateway), name: name || undefined },
  };
}

function quote(value: string): string {
  return JSON.stringify(value);
}
