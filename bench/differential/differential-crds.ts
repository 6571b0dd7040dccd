// The custom kinds the differential cases use: one namespaced (Thing), one cluster-scoped
// (ClusterThing), so owner graphs cross CRDs and scopes. Installed on every control plane before
// any controller starts, so both garbage collectors find them in their first discovery.
import type { ResourceType } from "../../pkg/kube/gvr.ts";
import type { ControlPlane } from "../../test/controlplane/control-plane.ts";

const group = "differential.kube-loom.io";

export const thing = { group, version: "v1", resource: "things", kind: "Thing", namespaced: true } as const satisfies ResourceType;
export const clusterThing = { group, version: "v1", resource: "clusterthings", kind: "ClusterThing", namespaced: false } as const satisfies ResourceType;

function definition(type: ResourceType): object {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${type.resource}.${group}` },
    spec: {
      group,
      scope: type.namespaced ? "Namespaced" : "Cluster",
      names: { plural: type.resource, singular: type.kind.toLowerCase(), kind: type.kind },
      versions: [{ name: type.version, served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
    },
  };
}

/** Creates both CustomResourceDefinitions and waits until the API server serves them. */
export async function installDifferentialCrds(controlPlane: ControlPlane): Promise<void> {
  const items = [thing, clusterThing].map(definition);
  const applied = await controlPlane.kubectl(["apply", "-f", "-"], { stdin: JSON.stringify({ apiVersion: "v1", kind: "List", items }) });
  if (applied.code !== 0) throw new Error(`installing the differential CRDs failed: ${applied.stderr.trim()}`);
  const names = [thing, clusterThing].map((type) => `crd/${type.resource}.${group}`);
  const waited = await controlPlane.kubectl(["wait", "--for=condition=Established", ...names, "--timeout=60s"]);
  if (waited.code !== 0) throw new Error(`the differential CRDs were not established: ${waited.stderr.trim()}`);
}
