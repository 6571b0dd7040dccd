// The cluster the scale benchmark builds: how many of each object, and what everything is called.
// ReplicaSets are spread evenly over the namespaces, each with the same number of Pods; the
// garbage collector's ConfigMap trees are spread the same way. Namespaces are scale-<i><suffix>:
// a shard ring's slot is the top byte of the name's FNV-1a hash, which the last characters
// barely change, so scale-0 … scale-99 all fall into 2 of the 256 slots (one replica would hold
// 90 of them); a suffix after the number (e.g. "-app": 87 slots) spreads them.

export interface ClusterShape {
  pods: number;
  replicaSets: number;
  namespaces: number;
  /** ConfigMaps that own others (the roots of the garbage collector's trees). */
  configMapOwners: number;
  /** ConfigMaps owned by each root. */
  dependentsPerOwner: number;
  /** After each namespace's number; "" in the seeds made before it existed. */
  namespaceSuffix: string;
}

export const probeNamespace = "probe";

/** parseArgs options for a shape: the same flags in every benchmark that builds this cluster. */
export function shapeOptions(defaults: { pods: number; replicaSets: number; configMapOwners: number }) {
  return {
    pods: { type: "string", default: String(defaults.pods) },
    "replica-sets": { type: "string", default: String(defaults.replicaSets) },
    namespaces: { type: "string", default: "10" },
    "namespace-suffix": { type: "string", default: "" },
    "configmap-owners": { type: "string", default: String(defaults.configMapOwners) },
    dependents: { type: "string", default: "10" },
  } as const;
}

/** The shape those options give, checked (validateShape). */
export function shapeFrom(values: { pods: string; "replica-sets": string; namespaces: string; "namespace-suffix": string; "configmap-owners": string; dependents: string }): ClusterShape {
  return validateShape({
    pods: Number(values.pods),
    replicaSets: Number(values["replica-sets"]),
    namespaces: Number(values.namespaces),
    configMapOwners: Number(values["configmap-owners"]),
    dependentsPerOwner: Number(values.dependents),
    namespaceSuffix: values["namespace-suffix"],
  });
}

export function namespaceNames(shape: ClusterShape): string[] {
  return Array.from({ length: shape.namespaces }, (_, i) => namespaceAt(shape, i));
}

function namespaceAt(shape: ClusterShape, i: number): string {
  return `scale-${i % shape.namespaces}${shape.namespaceSuffix}`;
}

export function podsPerReplicaSet(shape: ClusterShape): number {
  return Math.floor(shape.pods / shape.replicaSets);
}

/** Where the i-th ReplicaSet (or ConfigMap tree) lives and what it is called. */
export function replicaSetAt(shape: ClusterShape, i: number): { namespace: string; name: string } {
  return { namespace: namespaceAt(shape, i), name: `rs-${i}` };
}

export function configMapOwnerAt(shape: ClusterShape, i: number): { namespace: string; name: string } {
  return { namespace: namespaceAt(shape, i), name: `owner-${i}` };
}

/** Rejects shapes the benchmark cannot build evenly, naming the bad value. */
export function validateShape(shape: ClusterShape): ClusterShape {
  for (const [field, value] of Object.entries(shape)) {
    if (field === "namespaceSuffix") continue;
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${field}: ${value} is not a whole number ≥ 0`);
  }
  if (shape.replicaSets < 1 || shape.namespaces < 1) throw new Error(`--replicaSets and --namespaces must be ≥ 1 (got ${shape.replicaSets}, ${shape.namespaces})`);
  if (shape.pods % shape.replicaSets !== 0) throw new Error(`--pods ${shape.pods}: expected a multiple of --replicaSets ${shape.replicaSets}`);
  if (!/^[-a-z0-9]*$/.test(shape.namespaceSuffix)) throw new Error(`--namespace-suffix ${shape.namespaceSuffix}: expected lowercase letters, digits and "-"`);
  if (podsPerReplicaSet(shape) < 10) throw new Error(`--pods ${shape.pods}: expected at least 10 Pods per ReplicaSet, so that +10 % adds one`);
  return shape;
}
