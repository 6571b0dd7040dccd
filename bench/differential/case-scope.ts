// Where one run of one case lives on a control plane: its own namespaces, a prefix for its
// cluster-scoped names, and a label on everything it creates. Every run (shrinking attempts
// included) gets a fresh scope, so nothing left by an earlier run is seen again.

/** The finalizer the test puts on objects and removes itself later. */
export const heldFinalizer = "differential.kube-loom.io/held";

const caseLabel = "differential.kube-loom.io/case";

export class CaseScope {
  /** `id` must be a DNS label prefix, unique within the control plane (e.g. "gc-12-0"). */
  constructor(readonly id: string) {}

  namespace(which: string): string {
    return `${this.id}-${which}`;
  }

  /** Cluster-scoped names carry the case's id, since they share one space with every other case. */
  clusterName(name: string): string {
    return `${this.id}-${name}`;
  }

  get labels(): Record<string, string> {
    return { [caseLabel]: this.id };
  }

  get labelSelector(): string {
    return `${caseLabel}=${this.id}`;
  }
}
