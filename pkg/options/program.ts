// What an executable built on kube-loom calls itself. kube-loom's own and every program built
// on it pass one to runCommand, so two of them in one cluster differ in what they print, serve
// and send, and above all in the Lease they elect their leader on: with one Lease between them,
// whichever led would keep the other's controllers from ever running.
import type { ProgramIdentity } from "../version.ts";

/** What an executable built on kube-loom calls itself; `runCommand`'s third argument. */
export interface Program {
  /**
   * The executable's name: in --help and --version, before every error line, in the logs, on
   * /statusz and version_info, first in the user agent, and the default Lease name.
   */
  name: string;
  /** "1.2.0" or "v1.2.0": --version, /statusz, version_info and the user agent. */
  version: string;
  /** The text above "Usage:" in --help; by default a paragraph on what a controller manager does. */
  description?: string | undefined;
  /** The default of --leader-elect-resource-name (controller-runtime's LeaderElectionID); `name` by default. */
  leaseName?: string | undefined;
  /** The default of --leader-elect-resource-namespace; kube-system by default, as for kube-controller-manager. */
  leaseNamespace?: string | undefined;
}

/** A Program with every default filled in and its version spelled "v1.2.0". */
export interface ResolvedProgram extends ProgramIdentity {
  readonly description: string;
  readonly leaseName: string;
  readonly leaseNamespace: string;
}

// What the API server accepts as an object name (a DNS subdomain) and as a namespace (a DNS label).
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Whether the API server accepts `name` as an object's name (a DNS subdomain); OBJECT_NAME_RULE says what it is. */
export function isObjectName(name: string): boolean {
  return name.length <= 253 && dnsSubdomain.test(name);
}

export const OBJECT_NAME_RULE = 'at most 253 lowercase letters, digits, "-" and ".", starting and ending with a letter or digit';

/** Whether the API server accepts `name` as a namespace (a DNS label); NAMESPACE_RULE says what it is. */
export function isNamespaceName(name: string): boolean {
  return name.length <= 63 && dnsLabel.test(name);
}

export const NAMESPACE_RULE = 'at most 63 lowercase letters, digits and "-", starting and ending with a letter or digit';
// One token of a User-Agent header, as the program's name and version are.
const userAgentToken = /^[^\s/()]+$/;

/**
 * Fills in the defaults. A bad value is a mistake in the program's code, not in how it was
 * invoked, so it throws a plain Error naming the value and what was expected.
 */
export function resolveProgram(program: Program): ResolvedProgram {
  const { name } = program;
  if (!userAgentToken.test(name)) throw new Error(`invalid program name ${JSON.stringify(name)}: expected a word without spaces, "/" or parentheses`);
  const version = `v${program.version.replace(/^v/, "")}`;
  if (!userAgentToken.test(program.version) || version === "v") {
    throw new Error(`invalid version ${JSON.stringify(program.version)} for ${name}: expected a word without spaces, "/" or parentheses, such as 1.2.0`);
  }
  const leaseName = program.leaseName ?? name;
  if (!isObjectName(leaseName)) {
    const expected = `expected ${OBJECT_NAME_RULE}`;
    if (program.leaseName !== undefined) throw new Error(`invalid leaseName ${JSON.stringify(leaseName)}: ${expected}`);
    throw new Error(`program name ${JSON.stringify(name)} cannot name the default Lease: ${expected}, or pass a leaseName`);
  }
  const leaseNamespace = program.leaseNamespace ?? "kube-system";
  if (!isNamespaceName(leaseNamespace)) {
    throw new Error(`leaseNamespace ${JSON.stringify(leaseNamespace)} is not a valid namespace: expected ${NAMESPACE_RULE}`);
  }
  return { name, version, description: program.description ?? defaultDescription(name), leaseName, leaseNamespace };
}

function defaultDescription(name: string): string {
  return (
    `${name} runs Kubernetes controllers in one process: each follows the objects it cares about through the ` +
    "API server and keeps changing the cluster until what exists matches what was asked for. One instance leads at a time."
  );
}
