// kube-controller-manager's `--controllers` semantics (IsControllerEnabled plus its validation):
// `*` enables every on-by-default controller, `foo` enables and `-foo` disables foo, the first
// explicit mention of a controller wins, and aliases count as their controller's canonical name.
// Unlike kube-controller-manager, a selection that enables nothing is refused: such a process
// would take the Lease and report ready while doing no work.
import { UsageError } from "./usage-error.ts";

/** How --controllers names a controller. */
export interface ControllerIdentity {
  /** Canonical name, the one logs, health checks and metrics use. */
  name: string;
  /** Other names accepted in --controllers (kube-controller-manager keeps old names working this way). */
  aliases: readonly string[];
  /** Whether "*" in --controllers (the default) includes it; one that is not must be named. */
  enabledByDefault: boolean;
}

const ALL_ON_BY_DEFAULT = "*";
const DISABLE_PREFIX = "-";

/** The canonical names of the enabled controllers, in the order `known` lists them; never none. */
export function selectControllers(requested: readonly string[], known: readonly ControllerIdentity[]): string[] {
  const enabled = enabledControllers(requested, known);
  if (enabled.length === 0) throw new UsageError(`--controllers=${requested.join(",")} enables no controller${whyNone(requested, known)}`);
  return enabled;
}

function enabledControllers(requested: readonly string[], known: readonly ControllerIdentity[]): string[] {
  const canonicalNames = canonicalNamesByName(known);
  const explicitChoice = new Map<string, boolean>();
  let hasStar = false;
  for (const item of requested) {
    if (item === ALL_ON_BY_DEFAULT) {
      hasStar = true;
      continue;
    }
    const disables = item.startsWith(DISABLE_PREFIX);
    const name = disables ? item.slice(DISABLE_PREFIX.length) : item;
    const canonical = canonicalNames.get(name);
    if (canonical === undefined) {
      const knownNames = known.map((controller) => controller.name).sort();
      throw new UsageError(`${JSON.stringify(name)} is not in the list of known controllers (known: ${knownNames.join(", ")})`);
    }
    if (!explicitChoice.has(canonical)) explicitChoice.set(canonical, !disables);
  }
  return known
    .filter((controller) => explicitChoice.get(controller.name) ?? (hasStar && controller.enabledByDefault))
    .map((controller) => controller.name);
}

/** The likely misreading behind a selection that enables nothing, and what to write instead. */
function whyNone(requested: readonly string[], known: readonly ControllerIdentity[]): string {
  if (requested.length === 0) return `: name the controllers to run, or use --controllers=${ALL_ON_BY_DEFAULT} for every on-by-default one`;
  if (requested.every((item) => item.startsWith(DISABLE_PREFIX))) {
    const everyOther = [ALL_ON_BY_DEFAULT, ...requested].join(",");
    return `: "${DISABLE_PREFIX}x" only disables x; to run every other controller use --controllers=${everyOther}`;
  }
  const names = (controllers: readonly ControllerIdentity[]) => controllers.map((controller) => controller.name).sort().join(", ");
  const offByDefault = known.filter((controller) => !controller.enabledByDefault);
  return ` (known: ${names(known)}${offByDefault.length > 0 ? `; off by default: ${names(offByDefault)}` : ""})`;
}

function canonicalNamesByName(known: readonly ControllerIdentity[]): Map<string, string> {
  const canonicalNames = new Map<string, string>();
  for (const controller of known) {
    for (const name of [controller.name, ...controller.aliases]) {
      const taken = canonicalNames.get(name);
      // Two controllers answering to one name is a registration bug in kube-loom, not a user mistake.
      if (taken !== undefined) throw new Error(`controller name ${JSON.stringify(name)} is used by both ${taken} and ${controller.name}`);
      canonicalNames.set(name, controller.name);
    }
  }
  return canonicalNames;
}
