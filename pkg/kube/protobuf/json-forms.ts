// The JSON forms of the Kubernetes types that do not marshal as their fields, computed from
// their protobuf fields exactly as the API server's JSON encoder writes them.
import { Buffer } from "node:buffer";

/** metav1.Time: RFC 3339 in UTC, whole seconds ("2026-11-27T20:14:53Z"); the zero time is null. */
export function timeJson(seconds: number, nanos: number): string | null {
  if (seconds === 0 && nanos === 0) return null;
  return cachedSeconds(seconds);
}

/** metav1.MicroTime: RFC 3339 in UTC with six fractional digits, always ("…T20:14:53.000120Z"); the zero time is null. */
export function microTimeJson(seconds: number, nanos: number): string | null {
  if (seconds === 0 && nanos === 0) return null;
  return `${cachedSeconds(seconds).slice(0, -1)}.${String(Math.floor(nanos / 1000)).padStart(6, "0")}Z`;
}

// Objects listed together share a few timestamps (created, started, conditions in the same
// seconds): formatted once each, and the cached objects share the one string. Bounded: cleared when full.
const formatted = new Map<number, string>();
const formattedLimit = 4096;

/** "2026-11-27T20:14:53Z" for a Unix time in seconds. */
function cachedSeconds(seconds: number): string {
  let text = formatted.get(seconds);
  if (text === undefined) {
    if (formatted.size >= formattedLimit) formatted.clear();
    text = `${formatSeconds(seconds)}Z`;
    formatted.set(seconds, text);
  }
  return text;
}

function formatSeconds(seconds: number): string {
  const date = new Date(seconds * 1000);
  const year = date.getUTCFullYear();
  // Date's ISO form writes years past 9999 with a sign; Go writes the digits.
  const yearText = year >= 0 && year <= 9999 ? String(year).padStart(4, "0") : String(year);
  return `${yearText}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}T${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}`;
}

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

const nanosecond = 1;
const microsecond = 1000 * nanosecond;
const millisecond = 1000 * microsecond;
const second = 1000 * millisecond;

/** metav1.Duration: Go's time.Duration.String() of a count of nanoseconds ("1h0m0s", "1.5s", "300ms", "0s"). */
export function durationJson(nanoseconds: number): string {
  if (nanoseconds === 0) return "0s";
  const negative = nanoseconds < 0;
  // Exact integer arithmetic: durations reach 2^63 ns.
  let rest = BigInt(Math.abs(nanoseconds));
  let text: string;
  if (rest < BigInt(second)) {
    const [unit, size] = rest < BigInt(microsecond) ? ["ns", 1n] : rest < BigInt(millisecond) ? ["µs", BigInt(microsecond)] : ["ms", BigInt(millisecond)];
    text = fraction(rest, size) + unit;
  } else {
    const hours = rest / 3_600_000_000_000n;
    rest %= 3_600_000_000_000n;
    const minutes = rest / 60_000_000_000n;
    rest %= 60_000_000_000n;
    text = `${fraction(rest, BigInt(second))}s`;
    if (hours > 0n || minutes > 0n) text = `${minutes}m${text}`;
    if (hours > 0n) text = `${hours}h${text}`;
  }
  return negative ? `-${text}` : text;
}

/** `value / size` in decimal, without trailing zeros after the point. */
function fraction(value: bigint, size: bigint): string {
  const whole = value / size;
  const part = value % size;
  if (part === 0n) return String(whole);
  const digits = String(size).length - 1;
  return `${whole}.${String(part).padStart(digits, "0").replace(/0+$/, "")}`;
}

/** float32 as Go writes it: the shortest decimal that reads back as the same float32. */
export function float32Json(value: number): number {
  if (!Number.isFinite(value) || Number.isInteger(value)) return value;
  for (let precision = 1; precision < 9; precision++) {
    const shortest = Number(value.toPrecision(precision));
    if (Math.fround(shortest) === value) return shortest;
  }
  return Number(value.toPrecision(9));
}

/** []byte: standard base64, as encoding/json writes it. */
export function bytesJson(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

const utf8 = new TextDecoder();

/** runtime.RawExtension and metav1.FieldsV1 hold JSON; empty is null. */
export function rawJson(bytes: Uint8Array, what: string): unknown {
  if (bytes.length === 0) return null;
  const text = utf8.decode(bytes);
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${what} does not hold JSON: ${JSON.stringify(text.slice(0, 60))}`);
  }
}
