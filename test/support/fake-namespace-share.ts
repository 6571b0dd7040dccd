// A NamespaceShare a test sets by hand: by namespace names (each a one-hash range) or by ranges.
import type { NamespaceShare } from "../../pkg/informer/namespace-share.ts";
import { type HashRange, normalizeRanges } from "../../pkg/sharding/hash-range.ts";
import { namespaceHash } from "../../pkg/sharding/namespace-hash.ts";

/** The smallest range that holds the namespace: its hash alone. */
export function rangeOfNamespace(namespace: string): HashRange {
  const hash = namespaceHash(namespace);
  return { start: hash, end: hash + 1n };
}

export function rangesOfNamespaces(namespaces: readonly string[]): HashRange[] {
  return normalizeRanges(namespaces.map(rangeOfNamespace));
}

export class FakeNamespaceShare implements NamespaceShare {
  private current: HashRange[];
  private readonly listeners = new Set<() => void>();

  constructor(namespaces: readonly string[] = []) {
    this.current = rangesOfNamespaces(namespaces);
  }

  ranges(): readonly HashRange[] {
    return this.current;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Holds exactly these namespaces from now on, and says so. */
  hold(namespaces: readonly string[]): void {
    this.setRanges(rangesOfNamespaces(namespaces));
  }

  setRanges(ranges: readonly HashRange[]): void {
    this.current = normalizeRanges(ranges);
    for (const listener of [...this.listeners]) listener();
  }
}
