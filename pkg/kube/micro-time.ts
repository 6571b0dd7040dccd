// Lease times are metav1.MicroTime: RFC 3339 in UTC with six fractional digits. JavaScript
// time has millisecond resolution, so the last three digits are written as zeros and dropped when read.

/** Epoch milliseconds as a MicroTime, e.g. 2026-11-21T23:40:01.123000Z. */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, "000Z");
}

/** A MicroTime (or any RFC 3339 time) as epoch milliseconds. */
export function parseMicroTime(text: string): number {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new Error(`invalid MicroTime ${JSON.stringify(text)}`);
  return ms;
}

/** Epoch milliseconds as a metav1.Time (conditions, timestamps): RFC 3339 in UTC, whole seconds. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
