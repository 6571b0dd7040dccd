// A controller of a custom resource need not fail, or spam list errors, while the CRD is not
// installed: it waits, idle, on a one-object informer over the CustomResourceDefinition, and
// starts once the CRD is established and serves the version it wants. Installing the CRD later
// needs no restart.
import type { SharedInformerFactory } from "../informer/factory.ts";
import type { CacheSyncSource } from "../informer/wait-for-cache-sync.ts";
import { type GroupVersionResource, resources } from "../kube/gvr.ts";
import type { KubeObject } from "../kube/objects.ts";

interface CustomResourceDefinition extends KubeObject {
  spec?: { versions?: { name: string; served?: boolean }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

export class CrdGate {
  /** The CRD's metadata.name: `<plural>.<group>`. */
  readonly crdName: string;
  /** The CRD informer, whose cache a controller waits for before it can tell. */
  readonly informer: CacheSyncSource;
  private established = false;
  private readonly waiters = new Set<() => void>();

  constructor(informers: SharedInformerFactory, private readonly resource: GroupVersionResource) {
    this.crdName = `${resource.resource}.${resource.group}`;
    const crd = informers.forResource<CustomResourceDefinition>(resources.customResourceDefinitions, {
      fieldSelector: `metadata.name=${this.crdName}`,
    });
    crd.informer.addEventHandler({ onAdd: (obj) => this.seen(obj), onUpdate: (_old, obj) => this.seen(obj) });
    this.informer = crd.informer;
  }

  get isEstablished(): boolean {
    return this.established;
  }

  /** Resolves true once the CRD is established, false if `signal` aborts first. */
  wait(signal: AbortSignal): Promise<boolean> {
    if (this.established) return Promise.resolve(true);
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (result: boolean) => {
        this.waiters.delete(onEstablished);
        signal.removeEventListener("abort", onAbort);
        resolve(result);
      };
      const onEstablished = () => done(true);
      const onAbort = () => done(false);
      this.waiters.add(onEstablished);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  private seen(crd: CustomResourceDefinition): void {
    const served = crd.spec?.versions?.some((v) => v.name === this.resource.version && v.served !== false) ?? false;
    const established = crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ?? false;
    if (!served || !established || this.established) return;
    this.established = true;
    for (const waiter of [...this.waiters]) waiter();
  }
}
