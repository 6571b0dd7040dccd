// What to keep of an object, as a tree of field names; shared by the informer's projection and
// the protobuf decoder, which builds only what the tree names. A map's keys are named as fields.

/** Field name → what to keep of its value: all of it (true) or some of its fields. */
export type FieldTree = ReadonlyMap<string, FieldTree | true>;

/** The fields of `value` that `tree` names (shared with it, not copied), in their original order; arrays element by element. */
export function pickFields(value: unknown, tree: FieldTree): unknown {
  if (Array.isArray(value)) return value.map((element) => pickFields(element, tree));
  // A scalar where fields were expected is kept as it is: a projection only ever removes.
  if (value === null || typeof value !== "object") return value;
  const kept: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) {
    const subtree = tree.get(name);
    if (subtree !== undefined) kept[name] = subtree === true ? field : pickFields(field, subtree);
  }
  return kept;
}

const decodedTrees = new WeakMap<object, FieldTree>();

/** Records that a decoder built `object` with only the fields of `tree`, so a projection to it can be skipped. */
export function noteBuiltFrom<T extends object>(object: T, tree: FieldTree): T {
  decodedTrees.set(object, tree);
  return object;
}

/** The tree `object` was built with by a decoder, if it was. */
export function builtFrom(object: object): FieldTree | undefined {
  return decodedTrees.get(object);
}
