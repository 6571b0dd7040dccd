// Which JavaScript runtime runs kube-loom, and which version: where kube-controller-manager
// reports the Go version it was built with (/statusz), and what names the runtime in messages.

/** "Bun 1.4.5", "Deno 2.9.6" or "Node.js v24.1.0". */
export function runtimeVersion(): string {
  const versions = process.versions as NodeJS.ProcessVersions & { bun?: string; deno?: string };
  if (versions.bun) return `Bun ${versions.bun}`;
  if (versions.deno) return `Deno ${versions.deno}`;
  return `Node.js ${process.version}`;
}
