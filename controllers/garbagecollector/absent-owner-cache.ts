// Owners the API server has said are gone: a GET answered 404 (or another UID under that name),
// or an informer saw that UID deleted. UIDs are never reused, so an entry never goes stale; the
// cache is bounded (least recently used out, 500 like kube-controller-manager's) only for memory.
// Nothing enters it because an owner is merely missing from a cache.
import type { ObjectIdentity } from "./graph.ts";

export class AbsentOwnerCache {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  private readonly keys = new Map<string, true>();

  constructor(private readonly capacity = 500) {}

  add(identity: ObjectIdentity): void {
    const key = keyOf(identity);
    this.keys.delete(key);
    this.keys.set(key, true);
    if (this.keys.size > this.capacity) {
      const oldest = this.keys.keys().next();
      if (!oldest.done) this.keys.delete(oldest.value);
    }
  }

  has(identity: ObjectIdentity): boolean {
    const key = keyOf(identity);
    if (!this.keys.has(key)) return false;
    this.keys.delete(key);
    this.keys.set(key, true);
    return true;
  }
}

function keyOf(identity: ObjectIdentity): string {
  return JSON.stringify([identity.uid, identity.apiVersion, identity.kind, identity.namespace, identity.name]);
}
