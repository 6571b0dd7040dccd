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

/**
 * Refuses controllers that answer to one name (as name or alias): --controllers, --help, logs and metrics could
 * not tell them apart. The command, its --help and the test kit all check with this.
 *
 * @throws UsageError naming the shared name and the two controllers (by place in `known` when that is all that differs).
 */
export function checkControllerNames(known: readonly ControllerIdentity[]): void {
  canonicalNamesByName(known);
}

function canonicalNamesByName(known: readonly ControllerIdentity[]): Map<string, string> {
  // By place in the list, not by object: one descriptor given twice is two controllers of one name.
  const owners = new Map<string, { controller: ControllerIdentity; entry: number }>();
  for (const [index, controller] of known.entries()) {
    const owner = { controller, entry: index + 1 };
    for (const name of [controller.name, ...controller.aliases]) {
      const taken = owners.get(name);
      // One controller listing a name twice is harmless: the name still means one controller.
      if (taken !== undefined && taken.entry !== owner.entry) throw new UsageError(sharedNameMessage(name, taken, owner));
      owners.set(name, owner);
    }
  }
  return new Map([...owners].map(([name, { controller }]) => [name, controller.name]));
}

function sharedNameMessage(name: string, ...owners: { controller: ControllerIdentity; entry: number }[]): string {
  const quoted = JSON.stringify(name);
  // Same-named controllers differ only by their places in the list; otherwise their names tell them apart.
  if (owners.every(({ controller }) => controller.name === name)) {
    return `two controllers are named ${quoted} (entries ${owners.map(({ entry }) => entry).join(" and ")} of the controller list)`;
  }
  const roles = owners.map(({ controller }) => (controller.name === name ? `the name of ${controller.name}` : `an alias of ${controller.name}`));
  return `two controllers answer to ${quoted}: it is ${roles.join(" and ")}`;
}
