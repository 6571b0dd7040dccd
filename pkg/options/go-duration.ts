// Go's time.ParseDuration / Duration.String, so durations read and print the way
// kube-controller-manager users write them ("15s", "1m30s", "500ms", "12h0m0s").
// kube-loom keeps durations as (possibly fractional) milliseconds.

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

const NANOSECONDS_PER_UNIT: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  "µs": 1e3, // U+00B5 micro sign
  "μs": 1e3, // U+03BC Greek mu
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

// Longer units first so "ms" is not read as "m" followed by a stray "s".
const COMPONENT = /(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/y;
const MAX_GO_DURATION_NS = 2 ** 63;

/** Milliseconds for a Go duration string, or undefined when Go would reject it. */
export function parseGoDuration(text: string): number | undefined {
  const sign = text.startsWith("-") ? -1 : 1;
  const body = /^[-+]/.test(text) ? text.slice(1) : text;
  // Go accepts a bare zero without a unit, and nothing else without one.
  if (body === "0") return 0;
  if (body === "") return undefined;
  let totalNs = 0;
  COMPONENT.lastIndex = 0;
  while (COMPONENT.lastIndex < body.length) {
    const match = COMPONENT.exec(body);
    if (!match) return undefined;
    const [, whole = "", fraction = "", unit = ""] = match;
    if (whole === "" && fraction === "") return undefined;
    const unitNs = NANOSECONDS_PER_UNIT[unit] ?? 0;
    // Whole and fraction separately, in nanoseconds, so "1.1s" is exactly 1100ms; Go truncates below 1ns.
    totalNs += Number(whole || "0") * unitNs + Math.trunc((Number(fraction || "0") * unitNs) / 10 ** fraction.length);
  }
  if (totalNs > MAX_GO_DURATION_NS) return undefined;
  return (sign * totalNs) / 1e6;
}

/** The text Go's Duration.String prints for this many milliseconds. */
export function formatGoDuration(ms: number): string {
  const totalNs = Math.round(ms * 1e6);
  if (totalNs === 0) return "0s";
  const sign = totalNs < 0 ? "-" : "";
  let ns = Math.abs(totalNs);
  if (ns < 1e3) return `${sign}${ns}ns`;
  if (ns < 1e6) return `${sign}${ns / 1e3}µs`;
  if (ns < 1e9) return `${sign}${ns / 1e6}ms`;
  const hours = Math.floor(ns / 3600e9);
  ns -= hours * 3600e9;
  const minutes = Math.floor(ns / 60e9);
  ns -= minutes * 60e9;
  const hoursText = hours > 0 ? `${hours}h` : "";
  const minutesText = hours > 0 || minutes > 0 ? `${minutes}m` : "";
  return `${sign}${hoursText}${minutesText}${ns / 1e9}s`;
}
