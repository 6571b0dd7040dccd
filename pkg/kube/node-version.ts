// The oldest Node that kube-loom runs on. Its HTTP client there, undici 8, needs Node.js 22.19;
// on an older Node it fails while loading with a TypeError from its own internals, which would
// read as a kube-loom bug. package.json's engines field states the same minimum.
import { ExpectedError } from "../errors/expected-error.ts";

export const minimumNodeVersion = "22.19.0";

export class UnsupportedNodeError extends ExpectedError {}

/** Throws an UnsupportedNodeError when `version` (as process.version spells it: "v20.20.2") is older than minimumNodeVersion. */
export function requireSupportedNode(version: string): void {
  const running = numbers(version);
  const needed = numbers(minimumNodeVersion);
  if (!running || !needed) return;
  for (let i = 0; i < 3; i++) {
    if (running[i]! > needed[i]!) return;
    if (running[i]! < needed[i]!) throw new UnsupportedNodeError(`Node.js ${version} is too old for kube-loom: it needs Node.js ${minimumNodeVersion} or newer`);
  }
}

function numbers(version: string): [number, number, number] | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}
