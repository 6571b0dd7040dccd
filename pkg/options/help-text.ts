// --help in the shape of kube-controller-manager's (cobra + cliflag.PrintSections): a description,
// "Usage:", then one "<Group> flags:" section per group, flags sorted by name and aligned as pflag
// aligns them, each with its type, its help and "(default …)" unless the default is the zero value.
import type { FlagDefinition } from "./flag-definition.ts";
import type { ResolvedProgram } from "./program.ts";

/** Deprecated flags are left out, as pflag hides them. */
export function renderHelp(program: Pick<ResolvedProgram, "name" | "description">, flags: readonly FlagDefinition[]): string {
  const sections = groupsInOrder(flags.filter((flag) => flag.deprecated === undefined)).map(([group, members]) => `\n${group} flags:\n\n${renderGroup(members)}`);
  return `${program.description}\n\nUsage:\n  ${program.name} [flags]\n${sections.join("")}`;
}

/** Groups in the order their first flag appears. */
function groupsInOrder(flags: readonly FlagDefinition[]): [string, FlagDefinition[]][] {
  const groups = new Map<string, FlagDefinition[]>();
  for (const flag of flags) {
    const members = groups.get(flag.group);
    if (members) members.push(flag);
    else groups.set(flag.group, [flag]);
  }
  return [...groups];
}

function renderGroup(members: readonly FlagDefinition[]): string {
  const sorted = [...members].sort((a, b) => a.name.localeCompare(b.name));
  const names = sorted.map((flag) => {
    const prefix = flag.shorthand === undefined ? "      " : `  -${flag.shorthand}, `;
    return `${prefix}--${flag.name}${flag.typeName ? ` ${flag.typeName}` : ""}`;
  });
  const width = Math.max(...names.map((name) => name.length));
  // pflag leaves three spaces after the longest name and indents continuation lines to the help column.
  const continuation = `\n${" ".repeat(width + 3)}`;
  return sorted
    .map((flag, index) => {
      const help = flag.helpDefault === undefined ? flag.help : `${flag.help} (default ${flag.helpDefault})`;
      return `${(names[index] ?? "").padEnd(width)}   ${help.replaceAll("\n", continuation)}\n`;
    })
    .join("");
}
