// Decoding a big list makes garbage far faster than the list's objects are kept: each decoded
// object is copied or dropped (transform, or the cache's own copy of that version) as soon as it
// arrives. JavaScriptCore lets its heap grow to about twice what is live before it collects,
// and keeps the memory it grew to: an informer that lists 50,000 Pods kept about 15 % more
// resident memory, and a relist peaked about a third higher, than with a collection asked for
// every few hundred objects. Bun offers that request (Bun.gc(false), which does not wait for the
// collection); on other runtimes the hint does nothing.

const runtime = globalThis as { Bun?: { gc(synchronously: boolean): void } };

/** Objects between two requests: a few MiB of garbage. */
const objectsPerCollection = 500;

export class GarbageHint {
  private objects = 0;

  /** One more decoded object: every few hundred, asks the runtime to collect. */
  objectDecoded(): void {
    if (++this.objects < objectsPerCollection) return;
    this.objects = 0;
    runtime.Bun?.gc(false);
  }
}
