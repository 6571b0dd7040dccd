// Scales a Deployment to the number in its scaler.example.com/replicas annotation. A value that
// is not a whole number is a user's mistake: a Warning Event on the Deployment says what is
// wrong, and the controller waits for the annotation to change instead of retrying.
import { controller, labelsOrAnnotationsChanged, resources, TerminalError } from "kube-loom";

export const replicasAnnotation = "scaler.example.com/replicas";

export const annotationScaler = controller("annotation-scaler")
  // The resource carries its type: `object` is a Deployment.
  .for(resources.deployments, { predicates: [labelsOrAnnotationsChanged] })
  .complete(({ client, events }) => async ({ namespace, name, object }) => {
    const wanted = object?.metadata?.annotations?.[replicasAnnotation];
    if (!object || wanted === undefined) return;
    const replicas = Number(wanted);
    if (!/^\d+$/.test(wanted) || !Number.isSafeInteger(replicas)) {
      const problem = `annotation ${replicasAnnotation}=${JSON.stringify(wanted)}: expected a whole number of replicas, such as "3"`;
      events.eventf(object, undefined, "Warning", "InvalidReplicas", "Scale", problem);
      throw new TerminalError(`${namespace}/${name}: ${problem}`);
    }
    if (object.spec?.replicas === replicas) return;
    await client.dynamic.resource(resources.deployments, namespace).patch(name, { spec: { replicas } }, "merge");
    events.eventf(object, undefined, "Normal", "Scaled", "Scale", `scaled from ${object.spec?.replicas ?? 1} to ${replicas} replicas, as ${replicasAnnotation} asks`);
  });
