// --tls-curve-preferences takes the numbers of Go's crypto/tls CurveID (kube-controller-manager
// 1.36+); the runtimes' TLS servers take key-exchange group names (node:tls `ecdhCurve`). This
// table translates one into the other and says what the running runtime can honour.
import { createSecureContext } from "node:tls";
import { runtimeVersion } from "../version.ts";

/** The groups Go 1.26 (kube-controller-manager 1.37's) knows, in the order Go prefers them, whatever order they are given in. */
const goCurves: readonly { id: number; goName: string; group: string }[] = [
  { id: 4588, goName: "X25519MLKEM768", group: "X25519MLKEM768" },
  { id: 4587, goName: "SecP256r1MLKEM768", group: "SecP256r1MLKEM768" },
  { id: 4589, goName: "SecP384r1MLKEM1024", group: "SecP384r1MLKEM1024" },
  { id: 29, goName: "X25519", group: "X25519" },
  { id: 23, goName: "CurveP256", group: "P-256" },
  { id: 24, goName: "CurveP384", group: "P-384" },
  { id: 25, goName: "CurveP521", group: "P-521" },
];

/** "23 (CurveP256)", … for --help. */
export const curveIdNames: readonly string[] = [...goCurves].sort((a, b) => a.id - b.id).map(({ id, goName }) => `${id} (${goName})`);

const MAX_CURVE_ID = 65_535;

/**
 * Why kube-loom cannot serve with these curve IDs, or undefined when it can: the checks
 * kube-controller-manager makes (range, duplicates, known to its Go), then whether this runtime's
 * TLS library has each group (Deno's TLS server ignores the setting altogether).
 */
export function curvePreferencesProblem(ids: readonly number[]): string | undefined {
  const seen = new Set<number>();
  for (const id of ids) {
    if (id < 1 || id > MAX_CURVE_ID) return `curve ID ${id} is out of range (1-${MAX_CURVE_ID})`;
    if (seen.has(id)) return `curve ID ${id} is given twice`;
    seen.add(id);
    if (!goCurves.some((curve) => curve.id === id)) return `curve ID ${id} is not one Go's crypto/tls knows (${curveIdNames.join(", ")})`;
  }
  if (ids.length === 0) return undefined;
  if ("Deno" in globalThis) return `Deno's TLS server cannot be told which key exchanges to offer; leave the flag out or run kube-loom on Bun or Node.js`;
  for (const curve of goCurves) {
    if (seen.has(curve.id) && !runtimeHas(curve.group)) return `curve ID ${curve.id} (${curve.goName}) is not available in ${runtimeVersion()}'s TLS library`;
  }
  return undefined;
}

/** node:tls's `ecdhCurve` for these IDs, in Go's preference order; undefined for none (the runtime's defaults). */
export function ecdhCurveList(ids: readonly number[]): string | undefined {
  const groups = goCurves.filter((curve) => ids.includes(curve.id)).map((curve) => curve.group);
  return groups.length > 0 ? groups.join(":") : undefined;
}

function runtimeHas(group: string): boolean {
  try {
    createSecureContext({ ecdhCurve: group });
    return true;
  } catch {
    return false;
  }
}
