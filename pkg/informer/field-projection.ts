// What an informer keeps of each object when its readers declare the fields they read: those
// fields, plus apiVersion, kind and the whole metadata (keys, indexes, resourceVersions and
// owner references all live there), without metadata.managedFields. A path names nested fields
// with dots ("status.phase"); through an array it applies to every element
// ("status.containerStatuses.restartCount" keeps only the restart counts).
import type { KubeObject } from "../kube/objects.ts";
import { builtFrom, type FieldTree, pickFields } from "../kube/field-tree.ts";
import { dropManagedFields } from "./transform.ts";

/** A field, or a nested field, of an object: "spec.nodeName". */
export type FieldPath = string;

/** Field name → what to keep of its value: all of it (true) or some of its fields. */
type MutableFieldTree = Map<string, MutableFieldTree | true>;

/** Kept of every object, whatever its readers declare. */
const alwaysKept: readonly FieldPath[] = ["apiVersion", "kind", "metadata"];

const segment = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** Properties that generic code probes on any value (promises, JSON, test matchers): never reported as undeclared. */
const protocolProperties = new Set(["then", "toJSON", "asymmetricMatch", "$$typeof", "nodeType"]);

export class FieldProjection {
  /** The declared paths, without those another one includes, sorted. */
  readonly paths: readonly FieldPath[];
  /** The kept fields as a tree (apiVersion, kind and metadata included): what a protobuf decoder builds. */
  readonly tree: FieldTree;

  /** Throws a one-line error naming a path that is not dotted field names. */
  constructor(paths: Iterable<FieldPath>) {
    const tree: MutableFieldTree = new Map();
    for (const path of [...alwaysKept, ...paths]) addPath(tree, parsePath(path));
    this.tree = tree;
    this.paths = treePaths(tree, "").sort();
  }

  /** True when everything `paths` name is kept already. */
  covers(paths: Iterable<FieldPath>): boolean {
    for (const path of paths) if (!includes(this.tree, parsePath(path))) return false;
    return true;
  }

  /** The paths of `paths` this projection does not keep. */
  missing(paths: Iterable<FieldPath>): FieldPath[] {
    return [...paths].filter((path) => !includes(this.tree, parsePath(path)));
  }

  /**
   * A new object with the kept fields of `obj` (shared with it, not copied), in their original
   * order; `obj` itself when a decoder built it with just these fields.
   */
  project<T extends KubeObject>(obj: T): T {
    if (builtFrom(obj) === this.tree) return obj;
    return dropManagedFields(pickFields(obj, this.tree) as T);
  }

  /**
   * `obj` (a projected object) behind a guard that throws when a field that was not kept is
   * read, naming it: "Pod field status.hostIP is not cached: declare it in fields", after
   * telling `onUndeclared`. For tests: a controller that reads an undeclared field fails there,
   * instead of seeing undefined.
   */
  guard<T extends KubeObject>(obj: T, kind: string, onUndeclared: (err: Error) => void = () => undefined): T {
    return guarded(obj, this.tree, `${kind} field `, { views: new WeakMap(), onUndeclared });
  }
}

/**
 * Whether informers guard projected objects when their factory is not told: when NODE_ENV is
 * "test" in the running process (bun test sets it). Read with Reflect.get, which no bundler folds:
 * Bun's replaces `process.env.NODE_ENV`, even through an alias it inlines, with the value it has
 * while building, so an executable built inside a test run guarded everywhere it ran (at 100,000
 * Pods, about 150 MiB more and several times the idle CPU).
 */
export function guardsProjectedFieldsByDefault(): boolean {
  return Reflect.get(process.env, "NODE_ENV") === "test";
}

/** Throws a one-line error naming the first of `paths` that is not dotted field names. */
export function checkFieldPaths(paths: Iterable<FieldPath>): void {
  for (const path of paths) parsePath(path);
}

function parsePath(path: FieldPath): string[] {
  const names = path.split(".");
  if (!names.every((name) => segment.test(name))) throw new Error(`invalid field path ${JSON.stringify(path)}: expected field names joined by dots, like status.phase`);
  return names;
}

function addPath(tree: MutableFieldTree, names: readonly string[]): void {
  const [name, ...rest] = names as [string, ...string[]];
  const existing = tree.get(name);
  if (existing === true) return;
  if (rest.length === 0) {
    tree.set(name, true);
    return;
  }
  const subtree: MutableFieldTree = existing ?? new Map();
  tree.set(name, subtree);
  addPath(subtree, rest);
}

function includes(tree: FieldTree, names: readonly string[]): boolean {
  const [name, ...rest] = names as [string, ...string[]];
  const kept = tree.get(name);
  if (kept === undefined) return false;
  return kept === true || (rest.length > 0 && includes(kept, rest));
}

function treePaths(tree: FieldTree, prefix: string): FieldPath[] {
  return [...tree].flatMap(([name, kept]) => (kept === true ? [`${prefix}${name}`] : treePaths(kept, `${prefix}${name}.`)));
}

interface Guard {
  /** One view per object, so that a field read twice is the same object. */
  views: WeakMap<object, unknown>;
  onUndeclared: (err: Error) => void;
}

function guarded<T>(value: T, tree: FieldTree, path: string, guard: Guard): T {
  if (value === null || typeof value !== "object") return value;
  const { views } = guard;
  const known = views.get(value);
  if (known !== undefined) return known as T;
  const view = Array.isArray(value)
    ? new Proxy(value, {
        get: (target, property, receiver) => {
          const element: unknown = Reflect.get(target, property, receiver);
          return typeof property === "string" && /^\d+$/.test(property) ? guarded(element, tree, path, guard) : element;
        },
      })
    : new Proxy(value, {
        get: (target, property, receiver) => {
          const field: unknown = Reflect.get(target, property, receiver);
          if (typeof property === "symbol" || property in Object.prototype || protocolProperties.has(property)) return field;
          const subtree = tree.get(property);
          if (subtree === undefined) {
            const error = new Error(`${path}${property} is not cached: declare it in fields`);
            guard.onUndeclared(error);
            throw error;
          }
          return subtree === true ? field : guarded(field, subtree, `${path}${property}.`, guard);
        },
      });
  views.set(value, view);
  return view;
}
