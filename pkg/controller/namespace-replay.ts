// When a shard ring member starts acting on a namespace, its controllers must hear of every object
// there: events that came while another member owned the namespace were dropped, and a member
// that died may have left work half done. So each watched cache replays its objects of the
// namespaces newly acted on, as adds from an initial list (low priority), to the controller's handlers.
import type { ResourceEventHandler } from "../informer/event-handler.ts";
import { namespaceIndexName } from "../informer/index-funcs.ts";
import type { IndexedStore } from "../informer/store.ts";
import type { KubeObject } from "../kube/objects.ts";
import type { NamespaceOwnership } from "../shardelection/namespace-ownership.ts";

interface Watched {
  namespaces(): string[];
  replay(namespace: string): void;
}

export class NamespaceReplay {
  private readonly watched: Watched[] = [];
  /** The namespaces acted on at the last change. */
  private acting = new Set<string>();

  constructor(private readonly ownership: NamespaceOwnership) {}

  add<T extends KubeObject>(cache: IndexedStore<T>, handler: ResourceEventHandler<T>): void {
    this.watched.push({
      namespaces: () => namespacesOf(cache),
      replay: (namespace) => {
        for (const obj of objectsIn(cache, namespace)) void handler.onAdd?.(obj, true);
      },
    });
  }

  /** Replays on every change of ownership until the returned call. */
  follow(): () => void {
    return this.ownership.onChange(() => this.replayNewlyActing());
  }

  private replayNewlyActing(): void {
    const now = new Set<string>();
    for (const watched of this.watched) {
      for (const namespace of watched.namespaces()) {
        if (this.ownership.verdict(namespace) !== "act") continue;
        now.add(namespace);
        if (!this.acting.has(namespace)) watched.replay(namespace);
      }
    }
    this.acting = now;
  }
}

function namespacesOf<T extends KubeObject>(cache: IndexedStore<T>): string[] {
  if (namespaceIndexName in cache.getIndexers()) return cache.listIndexFuncValues(namespaceIndexName);
  return [...new Set(cache.list().map((obj) => obj.metadata?.namespace ?? ""))];
}

function objectsIn<T extends KubeObject>(cache: IndexedStore<T>, namespace: string): T[] {
  if (namespaceIndexName in cache.getIndexers()) return cache.byIndex(namespaceIndexName, namespace);
  return cache.list().filter((obj) => (obj.metadata?.namespace ?? "") === namespace);
}
