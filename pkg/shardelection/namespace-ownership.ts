// What a controller asks before it reconciles a key, when the process runs as one member of a
// shard ring: whether it acts on the key's namespace now. The controller core keeps a key it
// will own soon, drops one owned elsewhere, and counts the work in flight so that a slot is only
// handed over once that work has finished.

/**
 * "act": this process acts on the namespace now; "wait": it will, once its caches are ready and the slot is handed over, or it
 * may, should a member that stopped renewing be declared dead (its work waits aside until then, and is dropped if it renews);
 * "elsewhere": another member does.
 */
export type NamespaceVerdict = "act" | "wait" | "elsewhere";

/** Which namespaces this process acts on now, as one member of a shard ring (`ControllerContext.ownership`). */
export interface NamespaceOwnership {
  /** The verdict for `namespace` ("" for cluster-scoped objects), without side effects. */
  verdict(namespace: string): NamespaceVerdict;
  /** Starts a piece of work in `namespace`: returns the call that ends it, or undefined when the verdict is not "act". */
  begin(namespace: string): (() => void) | undefined;
  /** Called whenever verdicts may have changed. Returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

/**
 * Calls `started` with the namespaces, among `known()`, whose verdict turned to "act" since the last change of
 * ownership (all those acting, at the first). Returns the unsubscribe.
 */
export function followNewlyActing(ownership: NamespaceOwnership, known: () => Iterable<string>, started: (namespaces: ReadonlySet<string>) => void): () => void {
  let acting = new Set<string>();
  return ownership.onChange(() => {
    const now = new Set<string>();
    const newly = new Set<string>();
    for (const namespace of known()) {
      if (now.has(namespace) || ownership.verdict(namespace) !== "act") continue;
      now.add(namespace);
      if (!acting.has(namespace)) newly.add(namespace);
    }
    acting = now;
    if (newly.size > 0) started(newly);
  });
}
