// IP addresses and prefixes as numbers, strict in what they accept (no leading zeros, no
// zones), so the controller judges a spec exactly as the API server's isIP/isCIDR would.

export type IPFamily = 4 | 6;

export interface IPAddress {
  family: IPFamily;
  /** The address as an unsigned 32- or 128-bit number. */
  value: bigint;
}

export interface IPPrefix {
  /** The address as written, host bits included. */
  address: IPAddress;
  prefixLength: number;
}

const bitsOf = (family: IPFamily) => (family === 4 ? 32 : 128);
const IPV4_OCTET = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const IPV6_GROUP = /^[0-9a-fA-F]{1,4}$/;

export function parseIP(text: string): IPAddress | undefined {
  return text.includes(":") ? parseIPv6(text) : parseIPv4(text);
}

/** "10.0.0.0/24" or "fd00::/64"; undefined for anything else. */
export function parseCIDR(text: string): IPPrefix | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const address = parseIP(text.slice(0, slash));
  const lengthText = text.slice(slash + 1);
  if (!address || !/^(0|[1-9]\d{0,2})$/.test(lengthText)) return undefined;
  const prefixLength = Number(lengthText);
  return prefixLength <= bitsOf(address.family) ? { address, prefixLength } : undefined;
}

/** The prefix's first address (host bits cleared). */
export function networkAddress(prefix: IPPrefix): IPAddress {
  return { family: prefix.address.family, value: prefix.address.value & ~hostMask(prefix) };
}

/** The prefix's last address (host bits set): IPv4's broadcast address. */
export function lastAddress(prefix: IPPrefix): IPAddress {
  return { family: prefix.address.family, value: networkAddress(prefix).value | hostMask(prefix) };
}

export function prefixContains(prefix: IPPrefix, ip: IPAddress): boolean {
  return ip.family === prefix.address.family && (ip.value & ~hostMask(prefix)) === networkAddress(prefix).value;
}

/** Dotted decimal for IPv4; RFC 5952 (lower case, longest zero run as "::") for IPv6. */
export function formatIP(ip: IPAddress): string {
  if (ip.family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((ip.value >> shift) & 0xffn)).join(".");
  const groups = Array.from({ length: 8 }, (_, i) => Number((ip.value >> BigInt(112 - 16 * i)) & 0xffffn));
  let best = { start: -1, length: 1 };
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length++;
    if (length > best.length) best = { start, length };
  }
  const hex = groups.map((group) => group.toString(16));
  if (best.start < 0) return hex.join(":");
  return `${hex.slice(0, best.start).join(":")}::${hex.slice(best.start + best.length).join(":")}`;
}

/** The canonical text of a prefix: network address and length, e.g. "10.0.0.0/24". */
export function formatCIDR(prefix: IPPrefix): string {
  return `${formatIP(networkAddress(prefix))}/${prefix.prefixLength}`;
}

function hostMask(prefix: IPPrefix): bigint {
  return (1n << BigInt(bitsOf(prefix.address.family) - prefix.prefixLength)) - 1n;
}

function parseIPv4(text: string): IPAddress | undefined {
  const octets = text.split(".");
  if (octets.length !== 4 || !octets.every((octet) => IPV4_OCTET.test(octet))) return undefined;
  return { family: 4, value: octets.reduce((value, octet) => (value << 8n) | BigInt(octet), 0n) };
}

function parseIPv6(text: string): IPAddress | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string | undefined) => (part ? part.split(":") : []);
  const head = groupsOf(halves[0]);
  const tail = groupsOf(halves[1]);
  // A trailing dotted quad (::ffff:10.0.0.1) stands for the last two groups.
  const last = (halves.length === 2 ? tail : head).at(-1);
  const dotted = [...head, ...tail].filter((group) => group.includes("."));
  const embedded = last !== undefined && dotted.length === 1 && dotted[0] === last ? parseIPv4(last) : undefined;
  if (dotted.length > 0 && !embedded) return undefined;
  const hexGroups = [...head, ...tail].filter((group) => !group.includes("."));
  if (!hexGroups.every((group) => IPV6_GROUP.test(group))) return undefined;
  const count = hexGroups.length + (embedded ? 2 : 0);
  if (halves.length === 2 ? count > 7 : count !== 8) return undefined;
  const zeros = Array<string>(8 - count).fill("0");
  const ordered = halves.length === 2 ? [...head, ...zeros, ...tail] : head;
  let value = 0n;
  for (const group of ordered) {
    value = group.includes(".") ? (value << 32n) | (embedded?.value ?? 0n) : (value << 16n) | BigInt(`0x${group}`);
  }
  return { family: 6, value };
}
