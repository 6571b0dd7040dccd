// When a shard ring member starts acting on a namespace, its controllers must hear of every object
// there: events that came while another member owned the namespace were dropped, and a member
// that died may have left work half done. So each watched cache replays its objects of the
// namespaces newly acted on, as adds from an initial list (low priority), to the controller's handlers.
import type { ResourceEventHandler } from "../informer/event-handler.ts";
import { namespaceIndexName, namespacesIn } from "../informer/index-funcs.ts";
import type { IndexedStore } from "../informer/store.ts";
import type { KubeObject } from "../kube/objects.ts";
import { followNewlyActing, type NamespaceOwnership } from "../shardelection/namespace-ownership.ts";

interface Watched {
  namespaces(): string[];
  replay(namespace: string): void;
}

export class NamespaceReplay {
  private readonly watched: Watched[] = [];

  constructor(private readonly ownership: NamespaceOwnership) {}

  add<T extends KubeObject>(cache: IndexedStore<T>, handler: ResourceEventHandler<T>): void {
    this.watched.push({
      namespaces: () => namespacesIn(cache),
      replay: (namespace) => {
        for (const obj of objectsIn(cache, namespace)) void handler.onAdd?.(obj, true);
      },
    });
  }

  /** Replays on every change of ownership until the returned call. */
  follow(): () => void {
    const known = () => this.watched.flatMap((watched) => watched.namespaces());
    return followNewlyActing(this.ownership, known, (namespaces) => {
      for (const watched of this.watched) for (const namespace of namespaces) watched.replay(namespace);
    });
  }
}

function objectsIn<T extends KubeObject>(cache: IndexedStore<T>, namespace: string): T[] {
  if (namespaceIndexName in cache.getIndexers()) return cache.byIndex(namespaceIndexName, namespace);
  return cache.list().filter((obj) => (obj.metadata?.namespace ?? "") === namespace);
}
