// Copies one ConfigMap into every namespace labelled mirror.example.com/enabled=true and keeps
// the copies equal to it. Each copy is controlled by its Namespace (an ownerReference cannot
// cross namespaces, a cluster-scoped owner can), so a copy edited or deleted by hand is repaired
// at once. A finalizer on the source removes every copy before the source itself goes.
import { controller, flagGroup, isNotFound, type ObjectOf, resources } from "kube-loom";

type ConfigMap = ObjectOf<typeof resources.configMaps>;

export const sourceFlag = flagGroup("ConfigMap mirror").string("mirror-source", "default/shared-settings",
  "The ConfigMap, as namespace/name, to copy into every namespace labelled mirror.example.com/enabled=true.");
const copyLabel = "mirror.example.com/copy";
const finalizer = "mirror.example.com/copies";

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
    const source = informer(resources.configMaps, { scope: { namespace: sourceNamespace, fieldSelector: `metadata.name=${name}` } });
    const copies = informer(resources.configMaps, { scope: { labelSelector: copyLabel } });
    const configMaps = (namespace: string) => client.dynamic.resource<ConfigMap>(resources.configMaps, namespace);
    const setFinalizers = (cm: ConfigMap, finalizers: string[]) =>
      configMaps(sourceNamespace).patch(name, { metadata: { finalizers, resourceVersion: cm.metadata?.resourceVersion } }, "merge");

    return async ({ name: namespace, object }) => {
      const original = source.lister.namespace(sourceNamespace).get(name);
      const finalizers = original?.metadata?.finalizers ?? [];
      if (!object || namespace === sourceNamespace) return;
      if (!original || original.metadata?.deletionTimestamp) {
        await configMaps(namespace).delete(name).catch((err: unknown) => {
          if (!isNotFound(err)) throw err;
        });
        // The last namespace to let go of its copy lets the source go.
        const othersLeft = copies.lister.list().some((copy) => copy.metadata?.namespace !== namespace);
        if (original && !othersLeft) await setFinalizers(original, finalizers.filter((f) => f !== finalizer));
        return;
      }
      if (!finalizers.includes(finalizer)) await setFinalizers(original, [...finalizers, finalizer]);
      const owner = { apiVersion: "v1", kind: "Namespace", name: namespace, uid: object.metadata?.uid ?? "", controller: true };
      const copy = { metadata: { name, namespace, labels: { [copyLabel]: "true" }, ownerReferences: [owner] }, data: original.data ?? {} };
      await configMaps(namespace).patch(name, { apiVersion: "v1", kind: "ConfigMap", ...copy }, "apply", { fieldManager: "configmap-mirror", force: true });
    };
  });
