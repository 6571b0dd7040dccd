// Copies one ConfigMap into every namespace labelled mirror.example.com/enabled=true and keeps
// the copies equal to it. Each copy is controlled by its Namespace (an ownerReference cannot
// cross namespaces, a cluster-scoped owner can), so a copy edited or deleted by hand is repaired
// at once. A finalizer on the source removes every copy before the source itself goes.
import { apply, controller, finalizer, flagGroup, isNotFound, resources, setControllerReference } from "kube-loom";

export const sourceFlag = flagGroup("ConfigMap mirror").string("mirror-source", "default/shared-settings",
  "The ConfigMap, as namespace/name, to copy into every namespace labelled mirror.example.com/enabled=true.");
const copyLabel = "mirror.example.com/copy";

export const configMapMirror = controller("configmap-mirror")
  .flags(sourceFlag)
  .for(resources.namespaces, { scope: { labelSelector: "mirror.example.com/enabled=true" } })
  .owns(resources.configMaps, { scope: { labelSelector: copyLabel } })
  // Any change of the source concerns every selected namespace.
  .watches(resources.configMaps, (cm, { values, primaryObjects }) =>
    `${cm.metadata?.namespace}/${cm.metadata?.name}` === values.get(sourceFlag) ? primaryObjects().map((ns) => ns.metadata?.name ?? "") : [],
  )
  .complete(({ client, values, informer }) => {
    const [sourceNamespace = "", name = ""] = values.get(sourceFlag).split("/");
    // The cache `watches` fills: a change of the source is there before its event queues the namespaces.
    // A cache of its own (say, scoped to the source's name) could still hold the old data then.
    const source = informer(resources.configMaps);
    const copies = informer(resources.configMaps, { scope: { labelSelector: copyLabel } });
    const deleteCopy = async (namespace: string) => {
      await client.dynamic.resource(resources.configMaps, namespace).delete(name).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    };

    return async ({ name: namespace, object }) => {
      if (!object || namespace === sourceNamespace) return;
      const original = source.lister.namespace(sourceNamespace).get(name);
      if (!original) return deleteCopy(namespace);
      return finalizer(client, resources.configMaps, "mirror.example.com/copies", original, {
        apply: async ({ data }) => {
          const copy = setControllerReference({ metadata: { name, namespace, labels: { [copyLabel]: "true" } }, data: data ?? {} }, object, resources.namespaces);
          await apply(client, resources.configMaps, copy, { fieldManager: "configmap-mirror", force: true });
        },
        // Deleting the source takes every copy with it before the source goes.
        cleanup: async () => {
          await Promise.all(copies.lister.list().map((copy) => deleteCopy(copy.metadata?.namespace ?? "")));
        },
      });
    };
  });
