// A ListerWatcher whose kind (metadata only, or whole objects) is chosen after the informer that
// uses it was created: when the informer starts and knows what its readers want.
import type { ListOptions, ListerWatcher, WatchOptions } from "../kube/list-watch.ts";
import type { KubeObject, ObjectList, WatchEvent } from "../kube/objects.ts";

export class DeferredListerWatcher implements ListerWatcher {
  private chosen: ListerWatcher | undefined;

  constructor(private readonly create: (metadataOnly: boolean) => ListerWatcher) {}

  get isChosen(): boolean {
    return this.chosen !== undefined;
  }

  /** Creates the real one, once; later calls keep the first choice. */
  choose(metadataOnly: boolean): void {
    this.chosen ??= this.create(metadataOnly);
  }

  list(options: ListOptions, signal?: AbortSignal): Promise<ObjectList<KubeObject>> {
    return this.target().list(options, signal);
  }

  watch(options: WatchOptions, signal: AbortSignal): Promise<AsyncIterable<WatchEvent<KubeObject>>> {
    return this.target().watch(options, signal);
  }

  private target(): ListerWatcher {
    if (!this.chosen) throw new Error("lister-watcher used before its informer started");
    return this.chosen;
  }
}
