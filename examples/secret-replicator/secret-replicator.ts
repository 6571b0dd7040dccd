// Copies each Secret labelled replicator.example.com/replicate=true into every other namespace and
// keeps the copies equal to it (server-side apply). An ownerReference cannot cross namespaces, so
// each copy carries the label replicator.example.com/source=<namespace>.<name> instead (a namespace
// name has no dot: the first dot splits it); through it an edited or deleted copy queues its source
// and is repaired. A finalizer on the source removes the copies before the source goes; removing
// the label removes them too, and releases the finalizer.
import { isDeepStrictEqual } from "node:util";
import { apply, controller, finalizer, hasFinalizer, isNotFound, resources } from "kube-loom";

export const replicateLabel = "replicator.example.com/replicate";
export const sourceLabel = "replicator.example.com/source";
export const copiesFinalizer = "replicator.example.com/copies";
const ignoreNotFound = (err: unknown) => {
  if (!isNotFound(err)) throw err;
  return undefined;
};

export const secretReplicator = controller("secret-replicator")
  .for(resources.secrets, { scope: { labelSelector: `${replicateLabel}=true` } })
  // A copy's events queue its source; a new namespace queues every source (its other events none).
  .watches(resources.secrets, (copy) => [copy.metadata?.labels?.[sourceLabel]?.replace(".", "/") ?? ""], { scope: { labelSelector: sourceLabel } })
  .watches(resources.namespaces, (_, { primaryObjects }) => primaryObjects().map(({ metadata }) => `${metadata?.namespace}/${metadata?.name}`), {
    predicates: [{ update: () => false, delete: () => false }],
  })
  .complete(({ client, informer }) => {
    const namespaces = informer(resources.namespaces);
    const copies = informer(resources.secrets, { scope: { labelSelector: sourceLabel } });
    const secrets = (namespace: string) => client.dynamic.resource(resources.secrets, namespace);
    const deleteCopies = async (source: string, name: string) => {
      const found = copies.lister.list().filter((copy) => copy.metadata?.labels?.[sourceLabel] === source);
      await Promise.all(found.map((copy) => secrets(copy.metadata?.namespace ?? "").delete(name).catch(ignoreNotFound)));
    };
    // Deleted, or no longer labelled: the copies go, and a source still there loses the finalizer.
    const release = async (namespace: string, name: string) => {
      await deleteCopies(`${namespace}.${name}`, name);
      const left = await secrets(namespace).get(name).catch(ignoreNotFound);
      if (!left || !hasFinalizer(left, copiesFinalizer)) return;
      const finalizers = left.metadata?.finalizers?.filter((f) => f !== copiesFinalizer);
      await secrets(namespace).patch(name, { metadata: { finalizers, resourceVersion: left.metadata?.resourceVersion } }, "merge");
    };

    return async ({ namespace, name, object }) => {
      if (!object) return release(namespace, name);
      const source = `${namespace}.${name}`;
      return finalizer(client, resources.secrets, copiesFinalizer, object, {
        apply: async ({ type, data = {} }) => {
          // Terminating namespaces refuse new objects, and their copies go with them anyway.
          const active = namespaces.lister.list().filter((ns) => ns.status?.phase !== "Terminating" && ns.metadata?.name !== namespace);
          for (const target of active.map((ns) => ns.metadata?.name ?? "")) {
            const copy = copies.lister.namespace(target).get(name);
            if (copy?.metadata?.labels?.[sourceLabel] === source && copy.type === type && isDeepStrictEqual(copy.data ?? {}, data)) continue;
            const configuration = { metadata: { name, namespace: target, labels: { [sourceLabel]: source } }, type, data };
            await apply(client, resources.secrets, configuration, { fieldManager: "secret-replicator", force: true });
          }
        },
        cleanup: () => deleteCopies(source, name),
      });
    };
  });
