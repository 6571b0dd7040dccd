// The types that the exports' signatures use but that kube-loom does not export by name
// (`KubeClient.dynamic` is a DynamicClient): typedoc-plugin-missing-exports gathers them into a
// namespace of their own in each entry module. It also gathers what only private members use
// (a SharedIndexInformer's Reflector), which is implementation: this prunes every gathered type
// that nothing left in the reference uses, until none is left to prune.
import { type Application, Comment, Converter, type DeclarationReflection, makeRecursiveVisitor, type ProjectReflection, type Reflection, ReflectionKind, type SomeType } from "typedoc";

/** The name of that namespace in each entry module (the plugin's `internalModule` option). */
export const UNEXPORTED_NAMESPACE = "unexported";

const namespaceSummary =
  "Types that the exports' signatures use but that are not exported by name. " +
  "Reach them through the values that carry them (`client.dynamic` is a DynamicClient), or name them with `ReturnType`, `Parameters` or an indexed access type.";

/** Registers the pruning; runs after TypeDoc has dropped private and internal members. */
export function pruneUnusedUnexportedTypes(app: Application): void {
  app.converter.on(
    Converter.EVENT_RESOLVE_BEGIN,
    (context) => {
      const namespaces = context.project.getReflectionsByKind(ReflectionKind.SomeModule).filter((namespace) => namespace.name === UNEXPORTED_NAMESPACE);
      for (const namespace of namespaces) describe(namespace);
      while (pruneOnce(context.project, namespaces)) {
        // Removing one type can leave another unused.
      }
    },
    -100,
  );
}

function describe(namespace: Reflection): void {
  namespace.comment = new Comment([{ kind: "text", text: namespaceSummary }]);
}

/** Removes the gathered types nothing outside themselves refers to; true when it removed any. */
function pruneOnce(project: ProjectReflection, namespaces: readonly Reflection[]): boolean {
  const used = new Set<number>();
  for (const reflection of Object.values(project.reflections)) {
    const from = topLevel(reflection);
    for (const target of referencedBy(reflection)) if (topLevel(target) !== from) used.add(topLevel(target).id);
  }
  let pruned = false;
  for (const namespace of namespaces) {
    for (const child of [...((namespace as DeclarationReflection).children ?? [])]) {
      if (used.has(child.id)) continue;
      project.removeReflection(child);
      pruned = true;
    }
  }
  return pruned;
}

/** The module member (or namespace member) a reflection belongs to. */
function topLevel(reflection: Reflection): Reflection {
  let current = reflection;
  while (current.parent && !current.parent.kindOf(ReflectionKind.SomeModule | ReflectionKind.Project)) current = current.parent;
  return current;
}

/** Every reflection a reflection's own types refer to. */
function referencedBy(reflection: Reflection): Reflection[] {
  const found: Reflection[] = [];
  const visitor = makeRecursiveVisitor({
    reference(type) {
      if (type.reflection) found.push(type.reflection);
    },
  });
  for (const type of ownTypes(reflection)) type.visit(visitor);
  return found;
}

function ownTypes(reflection: Reflection): SomeType[] {
  const withTypes = reflection as Reflection & { type?: SomeType; default?: SomeType; extendedTypes?: SomeType[]; implementedTypes?: SomeType[] };
  const types = [withTypes.type, withTypes.default, ...(withTypes.extendedTypes ?? []), ...(withTypes.implementedTypes ?? [])];
  return types.filter((type): type is SomeType => type !== undefined && typeof type === "object" && "visit" in type);
}
