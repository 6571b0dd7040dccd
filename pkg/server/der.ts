// The few ASN.1 DER encodings an X.509 certificate needs, so kube-loom can build its self-signed
// serving certificate with the runtime's own crypto (node:crypto signs, but builds no certificates).
import { concatBytes } from "../collections/concat-bytes.ts";

export type Der = Uint8Array;

/** One tag-length-value element. */
function tlv(tag: number, content: Der): Der {
  const length = encodeLength(content.length);
  const out = new Uint8Array(1 + length.length + content.length);
  out[0] = tag;
  out.set(length, 1);
  out.set(content, 1 + length.length);
  return out;
}

// Short form below 128, else 0x80 | count followed by the big-endian bytes.
function encodeLength(length: number): Der {
  if (length < 0x80) return Uint8Array.of(length);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}

export const sequence = (...items: Der[]): Der => tlv(0x30, concatBytes(items));
export const set = (...items: Der[]): Der => tlv(0x31, concatBytes(items));
export const octetString = (bytes: Der): Der => tlv(0x04, bytes);
export const utf8String = (text: string): Der => tlv(0x0c, new TextEncoder().encode(text));
export const nullValue = (): Der => Uint8Array.of(0x05, 0x00);
export const booleanTrue = (): Der => Uint8Array.of(0x01, 0x01, 0xff);

/** `[n]` wrapping a complete element (EXPLICIT tagging). */
export const explicit = (n: number, element: Der): Der => tlv(0xa0 | n, element);

/** `[n]` replacing a primitive element's own tag (IMPLICIT tagging), e.g. GeneralName's dNSName. */
export const implicitPrimitive = (n: number, bytes: Der): Der => tlv(0x80 | n, bytes);

/** A non-negative INTEGER from its big-endian magnitude. */
export function unsignedInteger(magnitude: Der): Der {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  // A set top bit would read as negative: DER puts a zero byte in front.
  const needsPad = trimmed.length === 0 || (trimmed[0] ?? 0) >= 0x80;
  return tlv(0x02, needsPad ? concatBytes([Uint8Array.of(0), trimmed]) : trimmed);
}

export const smallInteger = (value: number): Der => unsignedInteger(Uint8Array.of(value));

export function objectIdentifier(dotted: string): Der {
  const arcs = dotted.split(".").map(Number);
  const [first = 0, second = 0, ...rest] = arcs;
  const bytes: number[] = [first * 40 + second];
  for (const arc of rest) {
    // Base 128, most significant group first, every byte but the last with the top bit set.
    const groups: number[] = [arc % 128];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128)) groups.unshift(0x80 | (value % 128));
    bytes.push(...groups);
  }
  return tlv(0x06, Uint8Array.from(bytes));
}

/** A BIT STRING holding whole bytes (signatures, public keys). */
export const bitString = (bytes: Der): Der => tlv(0x03, concatBytes([Uint8Array.of(0), bytes]));

/**
 * A named-bit BIT STRING such as KeyUsage: `bits` are bit numbers counted from the most
 * significant bit of the first byte; DER drops trailing zero bits.
 */
export function namedBits(bits: readonly number[]): Der {
  const highest = Math.max(...bits);
  const bytes = new Uint8Array(Math.floor(highest / 8) + 1);
  for (const bit of bits) bytes[Math.floor(bit / 8)] = (bytes[Math.floor(bit / 8)] ?? 0) | (0x80 >> bit % 8);
  const unusedBits = 7 - (highest % 8);
  return tlv(0x03, concatBytes([Uint8Array.of(unusedBits), bytes]));
}

/** UTCTime for 1950–2049, GeneralizedTime otherwise, as RFC 5280 asks; whole seconds, UTC. */
export function time(date: Date): Der {
  const iso = date.toISOString(); // 2026-01-31T12:34:56.789Z
  const digits = iso.slice(0, 19).replace(/[-T:]/g, "");
  const year = date.getUTCFullYear();
  if (year >= 1950 && year < 2050) return tlv(0x17, new TextEncoder().encode(`${digits.slice(2)}Z`));
  return tlv(0x18, new TextEncoder().encode(`${digits}Z`));
}

export function toPem(label: string, der: Der): string {
  const base64 = Buffer.from(der).toString("base64");
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}
