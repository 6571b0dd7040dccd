// The versions kube-loom reports: its own (--version, user agent, /metrics), taken from
// package.json; the Kubernetes release it follows; and the JavaScript runtime that runs it, where
// kube-controller-manager reports the Go version it was built with (/statusz), also used to name
// the runtime in messages. A program built on kube-loom reports its own name and version.
import pkg from "../package.json" with { type: "json" };

export const version = `v${pkg.version}`;

/** The kube-controller-manager release, major.minor, whose behaviour kube-loom follows (/metrics version_info, /statusz). */
export const emulatedKubernetesVersion = "1.37";

/** "Bun 1.4.5", "Deno 2.9.6" or "Node.js v24.1.0". */
export function runtimeVersion(): string {
  const versions = process.versions as NodeJS.ProcessVersions & { bun?: string; deno?: string };
  if (versions.bun) return `Bun ${versions.bun}`;
  if (versions.deno) return `Deno ${versions.deno}`;
  return `Node.js ${process.version}`;
}

/** What a program calls itself in messages, endpoints and its user agent: kube-loom, or a program built on it. */
export interface ProgramIdentity {
  /** e.g. "kube-loom". */
  readonly name: string;
  /** "v1.2.3". */
  readonly version: string;
}

/** kube-loom's own executable. */
export const kubeLoomProgram: ProgramIdentity = { name: "kube-loom", version };
