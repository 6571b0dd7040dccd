// The resources the garbage collector watches: every resource discovery reports with the list,
// watch and delete verbs (built-in groups, CRDs, aggregated APIs; Events excluded). It reads only
// metadata, so each goes through the informer another controller reads that resource's objects
// from, where there is one (one cache, not a second copy), else a metadata-only informer.
import type { EventHandlerRegistration } from "../../pkg/informer/shared-informer.ts";
import type { ResourceEventHandler } from "../../pkg/informer/event-handler.ts";
import type { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import type { Lister } from "../../pkg/informer/lister.ts";
import { type ApiResource, type PreferredResources, withVerbs } from "../../pkg/kube/discovery.ts";
import type { PartialObjectMetadata } from "../../pkg/kube/dynamic-client.ts";
import { apiVersionOf, type GroupVersionResource, gvrString } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { type Logger, silentLogger } from "../../pkg/log/logger.ts";

/** Never owners or dependents in practice, and by far the busiest collections. */
const ignoredResources = new Set(["events.", "events.events.k8s.io"]);

const requiredVerbs = ["list", "watch", "delete"];

/** Every namespace, whatever the factory's default. */
const allNamespaces = { namespace: "" };

interface Monitor {
  resource: ApiResource;
  lister: Lister<PartialObjectMetadata>;
  registration: EventHandlerRegistration;
}

/**
 * What to monitor after a discovery. Groups whose discovery failed (an aggregated API down) keep
 * the monitors that had synced, as kube-controller-manager keeps them, instead of losing their graph.
 */
export function deletableResources(discovered: PreferredResources, monitors: ResourceMonitors): ApiResource[] {
  const resources = withVerbs(discovered.resources, requiredVerbs).filter((r) => !ignoredResources.has(`${r.resource}.${r.group}`));
  const kept = monitors.resources.filter((r) => discovered.failed.has(apiVersionOf(r)) && monitors.isResourceSynced(r));
  return [...resources, ...kept];
}

export class ResourceMonitors {
  private readonly monitors = new Map<string, Monitor>();
  private readonly logger: Logger;

  constructor(
    private readonly informers: SharedInformerFactory,
    private readonly handlerFor: (resource: ApiResource) => ResourceEventHandler<KubeObject>,
    logger: Logger = silentLogger,
  ) {
    this.logger = logger;
  }

  get size(): number {
    return this.monitors.size;
  }

  get resources(): ApiResource[] {
    return [...this.monitors.values()].map((m) => m.resource);
  }

  /** True when `resources` are exactly the monitored ones. */
  monitorsExactly(resources: readonly ApiResource[]): boolean {
    const wanted = new Set(resources.map(gvrString));
    return wanted.size === this.monitors.size && [...wanted].every((key) => this.monitors.has(key));
  }

  /**
   * Starts monitoring the new resources and stops the gone ones (their informers stop too unless
   * another controller still uses them). New informers run once the factory is started again.
   */
  sync(resources: readonly ApiResource[]): { added: string[]; removed: string[] } {
    const wanted = new Map(resources.map((r) => [gvrString(r), r]));
    const added: string[] = [];
    for (const [key, resource] of wanted) {
      if (this.monitors.has(key)) continue;
      const { informer, lister } = this.informers.forMetadataReader(resource, allNamespaces);
      const registration = informer.addEventHandler(this.handlerFor(resource), { resyncPeriodMs: 0 });
      this.monitors.set(key, { resource, lister, registration });
      added.push(key);
    }
    const removed = [...this.monitors.keys()].filter((key) => !wanted.has(key));
    for (const key of removed) this.stop(key);
    if (added.length > 0 || removed.length > 0) {
      // Names for a few changes (a CRD came or went); counts for the first discovery's dozens.
      const changes = added.length + removed.length <= 10 ? { added, removed } : { added: added.length, removed: removed.length };
      this.logger.info({ ...changes, monitored: this.monitors.size }, "garbage collector monitors changed");
    }
    return { added, removed };
  }

  /** True when there are monitors and each has delivered its informer's initial list to the graph. */
  isSynced(): boolean {
    return this.monitors.size > 0 && this.unsynced().length === 0;
  }

  unsynced(): string[] {
    return [...this.monitors].filter(([, m]) => !m.registration.hasSynced()).map(([key]) => key);
  }

  isResourceSynced(resource: GroupVersionResource): boolean {
    return this.monitors.get(gvrString(resource))?.registration.hasSynced() ?? false;
  }

  /** The cached metadata of one object, by cache key (namespace/name, or name), if its resource is monitored. */
  lookup(resource: GroupVersionResource, key: string): PartialObjectMetadata | undefined {
    return this.monitors.get(gvrString(resource))?.lister.get(key);
  }

  /** Forgets the monitor at once; its informer winds down in the background, so discovery never waits on it. */
  private stop(key: string): void {
    const monitor = this.monitors.get(key);
    if (!monitor) return;
    this.monitors.delete(key);
    void this.release(key, monitor);
  }

  private async release(key: string, monitor: Monitor): Promise<void> {
    try {
      await monitor.registration.remove();
      const stopped = await this.informers.remove(monitor.resource, allNamespaces);
      if (!stopped) this.logger.debug({ resource: key }, "informer of a resource no longer monitored is still used elsewhere; left running");
    } catch (err) {
      this.logger.warn({ resource: key, err }, "failed to stop the informer of a resource no longer monitored");
    }
  }
}
