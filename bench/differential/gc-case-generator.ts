// Random owner graphs for the garbage-collector cases, the same for the same seed: chains and
// trees (an earlier object as first owner), diamonds and cycles (a second owner anywhere in the
// case), owners that never existed or whose name now has another UID, references across the two
// namespaces, cluster-scoped owners and dependents, blockOwnerDeletion and controller on some
// edges, the test's finalizer on some objects; then a few steps of deletes, recreations and releases.
import type { SeededRandom } from "../soak/seeded-random.ts";
import type { CaseNamespace, GcCase, GcEdge, GcKind, GcObject, GcOperation, OwnerTarget, Propagation } from "./gc-case.ts";

const kindWeights: Readonly<Record<GcKind, number>> = { ConfigMap: 4, Secret: 2, Thing: 3, ClusterThing: 2 };
const propagations: readonly Propagation[] = ["Background", "Foreground", "Orphan"];

export function generateGcCase(random: SeededRandom): GcCase {
  const objects: GcObject[] = [];
  const firstOwners = new Map<number, number>();
  const count = random.int(5, 14);
  for (let id = 0; id < count; id++) {
    const kind = random.weighted(kindWeights);
    const firstOwner = id > 0 && random.chance(0.75) ? (random.chance(0.4) ? id - 1 : random.int(0, id - 1)) : undefined;
    if (firstOwner !== undefined) firstOwners.set(id, firstOwner);
    const ownerNamespace = firstOwner === undefined ? undefined : objects[firstOwner]?.namespace;
    // Mostly beside the first owner, so most references resolve; the rest cross namespaces.
    const namespace: CaseNamespace = ownerNamespace && random.chance(0.85) ? ownerNamespace : random.chance(0.75) ? "a" : "b";
    objects.push({ id, kind, ...(kind === "ClusterThing" ? {} : { namespace }), held: random.chance(0.25) });
  }
  const edges = objects.flatMap((object) => edgesOf(random, object, objects, firstOwners.get(object.id)));
  return { objects, edges, steps: generateSteps(random, objects) };
}

function edgesOf(random: SeededRandom, dependent: GcObject, objects: readonly GcObject[], firstOwner: number | undefined): GcEdge[] {
  const owners: OwnerTarget[] = [];
  if (firstOwner !== undefined) owners.push({ object: firstOwner });
  if (random.chance(0.3)) {
    // Any other object, later ones included: diamonds, and cycles when the owner depends on this one.
    const candidates = objects.filter((object) => object.id !== dependent.id && object.id !== firstOwner);
    const second = random.pick(candidates);
    if (second) owners.push({ object: second.id });
  }
  if (random.chance(0.12)) owners.push({ absent: absentOwner(random, objects) });
  let controllerGiven = false;
  return owners.map((owner) => {
    const controller = !controllerGiven && random.chance(0.3);
    controllerGiven ||= controller;
    return { dependent: dependent.id, owner, controller, blockOwnerDeletion: random.chance(0.5) };
  });
}

/** A name nobody has, or the name of a case object with a UID it never had (as after a recreation). */
function absentOwner(random: SeededRandom, objects: readonly GcObject[]): { kind: GcKind; name: string; uid: string } {
  const namesake = random.chance(0.3) ? random.pick(objects) : undefined;
  if (namesake) return { kind: namesake.kind, name: `o${namesake.id}`, uid: seededUid(random) };
  return { kind: random.weighted(kindWeights), name: `ghost${random.int(0, 99)}`, uid: seededUid(random) };
}

function seededUid(random: SeededRandom): string {
  const hex = Array.from({ length: 32 }, () => random.int(0, 15).toString(16)).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function generateSteps(random: SeededRandom, objects: readonly GcObject[]): GcOperation[][] {
  return Array.from({ length: random.int(2, 5) }, () => {
    const step: GcOperation[] = [];
    const size = random.chance(0.25) ? 2 : 1;
    for (let attempt = 0; step.length < size && attempt < 10; attempt++) {
      const operation = randomOperation(random, objects);
      // A recreation is three requests with a check between them: sent beside another operation,
      // whether the check sees the object gone would be a race of the test's own making.
      const clash = step.some((other) => other.object === operation.object || other.type === "recreate" || operation.type === "recreate");
      if (!clash) step.push(operation);
    }
    return step;
  });
}

function randomOperation(random: SeededRandom, objects: readonly GcObject[]): GcOperation {
  const held = objects.filter((object) => object.held);
  const unheld = objects.filter((object) => !object.held);
  const type = random.weighted({ delete: 6, recreate: unheld.length > 0 ? 1.5 : 0, release: held.length > 0 ? 2.5 : 0 });
  if (type === "release") return { type, object: pickId(random, held) };
  if (type === "recreate") return { type, object: pickId(random, unheld) };
  return { type: "delete", object: pickId(random, objects), propagation: random.pick(propagations) ?? "Background" };
}

function pickId(random: SeededRandom, objects: readonly GcObject[]): number {
  const object = random.pick(objects);
  if (!object) throw new Error("no object to pick from");
  return object.id;
}
