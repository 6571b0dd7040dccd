// Ordering two resourceVersions the way apimachinery's resourceversion.CompareResourceVersion
// does since 1.34: only decimal integers without leading zeros are comparable (what etcd-backed
// servers hand out); anything else is opaque and cannot be ordered.

const wellFormed = /^[1-9][0-9]*$/;

/**
 * Negative, zero or positive as `a` is older than, the same as or newer than `b`; undefined when
 * either is not a plain integer. Compared as digit strings, so values beyond 2^53 stay exact.
 */
export function compareResourceVersions(a: string, b: string): number | undefined {
  if (!wellFormed.test(a) || !wellFormed.test(b)) return undefined;
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
