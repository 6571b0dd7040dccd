// Writes the number of Pods in each namespace into the Namespace's counter.example.com/pods
// annotation. One key per namespace: every Pod event queues its namespace.
import { apply, controller, resources } from "kube-loom";

export const podCountAnnotation = "counter.example.com/pods";

export const podCounter = controller("pod-counter")
  .for(resources.namespaces)
  .watches(resources.pods, (pod) => [pod.metadata?.namespace ?? ""])
  .complete(({ client, informer }) => {
    const pods = informer(resources.pods);
    return async ({ name, object }) => {
      const count = String(pods.lister.namespace(name).list().length);
      if (!object || object.metadata?.annotations?.[podCountAnnotation] === count) return;
      const configuration = { metadata: { name, annotations: { [podCountAnnotation]: count } } };
      await apply(client, resources.namespaces, configuration, { fieldManager: "pod-counter", force: true });
    };
  });
