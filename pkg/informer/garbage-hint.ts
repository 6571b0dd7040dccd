// Decoding a big list makes garbage far faster than the list's objects are kept: each decoded
// object is copied or dropped (transform, or the cache's own copy of that version) as soon as it
// arrives, and the body's bytes are dropped once decoded. JavaScriptCore lets its heap grow to
// about twice what is live before it collects, and keeps the memory it grew to: an informer that
// lists 50,000 Pods kept about 15 % more resident memory, and a relist peaked about a third
// higher, than with a collection asked for every few hundred objects. Bun offers that request
// (Bun.gc); on other runtimes the hint does nothing.
//
// A first list's garbage is about its body: the hint counts the bytes read, not the objects. Every
// collection marks the whole heap, so one per 500 objects cost 50,000 ConfigMaps' metadata-only
// informer a fifth of its start's CPU, for objects of 250 bytes on the wire where a Pod has 4 KiB.
//
// A relist is where the peak is: the whole cache is live while the list streams in, and the
// requests that do not wait left 50,000 ConfigMaps' relist at 1.38× the steady RSS. A full
// collection, waited for, each time a tenth of the cache has been listed again bounds the relist's
// garbage to about a tenth of the cache: 1.18× in the same run, for about ten collections of the
// live heap per relist, whatever its size.
//
// A whole process relists every informer at once (kube-apiserver restarted), and there the peak
// came at the end of the biggest list: its last tenth's garbage, then the list, its keys and its
// comparison with the cache allocated on top, left for the runtime to collect seconds later. Two
// more full collections per big relist, one when it has come in and one once the cache has it,
// with the relist's own allocations cut, took a 30,000-Pod manager's relist from 1.16× to 1.11× of
// its steady RSS (bench/manager-relist.ts, bench/README.md).

import { bodyBytesRead } from "../kube/body-bytes.ts";

const runtime = globalThis as { Bun?: { gc(synchronously: boolean): void } };

/** Body bytes read between two requests during a first list: a few MiB of garbage (about 500 Pods). */
const bytesPerCollection = 2 * 2 ** 20;
/** Relisted objects between two full collections, at the least: a small cache's relist needs none. */
const minimumObjectsPerFullCollection = 2000;

/** Asks the runtime for a collection; `synchronously`: a full one, waited for. */
export type Collect = (synchronously: boolean) => void;

const runtimeCollect: Collect = (synchronously) => runtime.Bun?.gc(synchronously);

/** Where the body-bytes count stood at the last request of a first list. */
interface LastRequest {
  atBytes: number;
}

// One for every informer of the process: the garbage is the process's, and informers listing at
// once need one request between them, not one each.
const processLastRequest: LastRequest = { atBytes: 0 };

export class GarbageHint {
  private objects = 0;

  constructor(
    private readonly collect: Collect = runtimeCollect,
    private readonly bytesRead: () => number = bodyBytesRead,
    private readonly lastRequest: LastRequest = processLastRequest,
  ) {}

  /** One more object of a first list: every few MiB of body read, asks the runtime to collect (not waiting for it). */
  objectDecoded(): void {
    const read = this.bytesRead();
    if (read - this.lastRequest.atBytes < bytesPerCollection) return;
    this.lastRequest.atBytes = read;
    this.collect(false);
  }

  /**
   * A relist of `objects` has reached a step that frees much at once: it has come in whole (its
   * stream's last garbage), or it is in the cache with its handlers told (the list, its keys and
   * its comparison with the cache). A full collection now, for a big one.
   */
  relistStepDone(objects: number): void {
    if (objects >= minimumObjectsPerFullCollection) this.collect(true);
  }

  /** One more object of a relist while the cache holds `cached` objects: a full collection every tenth of them. */
  objectRelisted(cached: number): void {
    if (++this.objects < Math.max(minimumObjectsPerFullCollection, Math.ceil(cached / 10))) return;
    this.objects = 0;
    this.collect(true);
  }
}
