// A garbage-collector case: objects of four kinds in two namespaces and the cluster scope, the
// ownerReferences between them, and the steps that follow (deletes with each propagation policy,
// owners recreated under a new UID, the test's finalizers released). Plain data, so a case can be
// printed, saved, replayed and shrunk.
import { resources, type ResourceType } from "../../pkg/kube/gvr.ts";
import { clusterThing, thing } from "./differential-crds.ts";

export type GcKind = "ConfigMap" | "Secret" | "Thing" | "ClusterThing";
export type Propagation = "Background" | "Foreground" | "Orphan";
export type CaseNamespace = "a" | "b";

export const gcKinds: Readonly<Record<GcKind, ResourceType>> = {
  ConfigMap: resources.configMaps,
  Secret: resources.secrets,
  Thing: thing,
  ClusterThing: clusterThing,
};

export interface GcObject {
  /** The object is named o<id>. */
  id: number;
  kind: GcKind;
  /** One of the case's two namespaces; absent for the cluster-scoped kind. */
  namespace?: CaseNamespace;
  /** Created with the test's finalizer, which only a "release" step removes. */
  held: boolean;
}

/** An owner that exists in the case, or one that never does (a fixed UID nobody has). */
export type OwnerTarget = { object: number } | { absent: { kind: GcKind; name: string; uid: string } };

export interface GcEdge {
  dependent: number;
  owner: OwnerTarget;
  controller: boolean;
  blockOwnerDeletion: boolean;
}

export type GcOperation =
  | { type: "delete"; object: number; propagation: Propagation }
  /** Deleted in the background and, once gone, created again: same name, new UID, no ownerReferences. */
  | { type: "recreate"; object: number }
  | { type: "release"; object: number };

export interface GcCase {
  objects: GcObject[];
  /** Written in one step after every object exists, so cycles need no special order. */
  edges: GcEdge[];
  /** The operations of a step are sent together; both sides quiesce between steps. */
  steps: GcOperation[][];
}

export function objectOf(testCase: GcCase, id: number): GcObject {
  const object = testCase.objects.find((candidate) => candidate.id === id);
  if (!object) throw new Error(`case names object o${id}, which it does not define`);
  return object;
}

/** The case as a short script, one line per object, edge and operation, numbered as the runner numbers steps. */
export function describeGcCase(testCase: GcCase): string[] {
  const where = (object: GcObject) => `${object.kind} ${object.namespace ? `${object.namespace}/` : ""}o${object.id}`;
  const target = (owner: OwnerTarget) => ("object" in owner ? `o${owner.object}` : `absent ${owner.absent.kind} ${owner.absent.name} (uid ${owner.absent.uid})`);
  return [
    ...testCase.objects.map((object) => `step 1: create ${where(object)}${object.held ? " with the test's finalizer" : ""}`),
    ...testCase.edges.map(
      (edge) =>
        `step 2: o${edge.dependent} owned by ${target(edge.owner)}${edge.controller ? " controller" : ""}${edge.blockOwnerDeletion ? " blockOwnerDeletion" : ""}`,
    ),
    ...testCase.steps.map((step, index) => `step ${index + 3}: ${step.map(describeGcOperation).join(" + ")}`),
  ];
}

function describeGcOperation(operation: GcOperation): string {
  switch (operation.type) {
    case "delete":
      return `delete o${operation.object} (${operation.propagation})`;
    case "recreate":
      return `recreate o${operation.object}`;
    case "release":
      return `release o${operation.object}'s finalizer`;
  }
}
