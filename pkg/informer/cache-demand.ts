// What the readers of one shared informer read of its objects, gathered until the informer
// starts and fixed then: the whole object if any reader declared nothing; else the union of the
// fields they declared; metadata only if all they want is metadata. A reader that comes after
// the start must be content with what is kept: a cache cannot widen once it is filled.
import type { KubeObject } from "../kube/objects.ts";
import type { FieldTree } from "../kube/field-tree.ts";
import { type FieldPath, FieldProjection } from "./field-projection.ts";
import { dropManagedFields } from "./transform.ts";

/** What one reader declares. */
export type CacheRead =
  /** Every field. */
  | { kind: "whole" }
  /** These fields (and metadata, which is always kept). */
  | { kind: "fields"; fields: readonly FieldPath[] }
  /** Metadata only: a metadata-only LIST and WATCH will do, when no reader wants more. */
  | { kind: "metadata" };

/** How the informer lists and what it keeps, once fixed. */
export type CacheMode =
  | { kind: "whole" }
  | { kind: "projected"; projection: FieldProjection }
  | { kind: "metadata" };

export class CacheDemand {
  private whole = false;
  private readonly fields = new Set<FieldPath>();
  private metadataOnly = true;
  private fixed: CacheMode | undefined;

  /**
   * @param description names the informer in errors ("pods.v1")
   * @param kind names its objects in the errors of guarded objects ("Pod")
   */
  constructor(
    private readonly description: string,
    private readonly kind: string,
  ) {}

  /** Before start: widens what is kept. After: throws unless `read` is kept already. */
  add(read: CacheRead): void {
    if (this.fixed) return this.check(read, this.fixed);
    if (read.kind === "metadata") return;
    this.metadataOnly = false;
    if (read.kind === "whole") this.whole = true;
    // Normalized: a path inside another one adds nothing.
    else for (const path of new FieldProjection(read.fields).paths) this.fields.add(path);
  }

  /** True while only metadata was asked for (so far, or for good once fixed). */
  get wantsMetadataOnly(): boolean {
    return this.fixed ? this.fixed.kind === "metadata" : this.metadataOnly;
  }

  get isFixed(): boolean {
    return this.fixed !== undefined;
  }

  /** Fixes the mode; later reads must fit it. */
  fix(): CacheMode {
    this.fixed ??= this.metadataOnly ? { kind: "metadata" } : this.whole ? { kind: "whole" } : { kind: "projected", projection: new FieldProjection(this.fields) };
    return this.fixed;
  }

  /** The fields kept of each object once fixed; undefined while unfixed, or when whole objects or only metadata are kept. */
  keptFields(): FieldTree | undefined {
    return this.fixed?.kind === "projected" ? this.fixed.projection.tree : undefined;
  }

  /**
   * What the informer keeps of an object, for its transform. `guard`: projected objects come
   * behind FieldProjection.guard, and a read of a field not kept is also thrown on its own, so
   * that code which catches and retries (a reconcile loop, an event handler) cannot hide it: a
   * test run reports it as an unhandled error.
   */
  transform(guard: boolean): <T extends KubeObject>(obj: T) => T {
    const mode = this.fix();
    if (mode.kind !== "projected") return dropManagedFields;
    const { projection } = mode;
    if (!guard) return (obj) => projection.project(obj);
    return (obj) => projection.guard(projection.project(obj), this.kind, rethrowApart);
  }

  private check(read: CacheRead, mode: CacheMode): void {
    if (read.kind === "metadata" || mode.kind === "whole") return;
    const late = `${this.description} started already`;
    if (mode.kind === "metadata") throw new Error(`${late} with metadata only; whole objects were asked for too late: request every cache before the informers start`);
    if (read.kind === "whole") {
      throw new Error(`${late}, keeping only ${mode.projection.paths.join(", ")}; the whole object was asked for too late: declare fields, or request the cache before the informers start`);
    }
    const missing = mode.projection.missing(read.fields);
    if (missing.length > 0) {
      throw new Error(`${late}, keeping only ${mode.projection.paths.join(", ")}; ${missing.join(", ")} declared too late: declare every field before the informers start`);
    }
  }
}

function rethrowApart(err: Error): void {
  queueMicrotask(() => {
    throw err;
  });
}
