// The owner trees the driver builds for the garbage collector: a root ConfigMap; under it a
// ConfigMap (blocking its owner's deletion) with a leaf of its own, a Secret (not blocking),
// sometimes a Network (a custom resource with a finalizer), and sometimes a ConfigMap shared
// with the root of another live tree, which must survive this tree's deletion.
import { networkGVR } from "../../controllers/network/network-resource.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { type GroupVersionResource, resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject, OwnerReference } from "../../pkg/kube/objects.ts";
import { referenceTo } from "../../test/garbagecollector/gc-fixtures.ts";
import type { SeededRandom } from "./seeded-random.ts";
import type { SoakNetworks } from "./soak-networks.ts";

export type PropagationPolicy = "Background" | "Foreground" | "Orphan";

export interface TreeMember {
  gvr: GroupVersionResource;
  name: string;
  uid: string;
  /** UIDs of its owners. */
  owners: string[];
}

export interface OwnerTree {
  root: KubeObject;
  /** Everything created under the root, in creation order (a creation cut short by a fault leaves fewer). */
  members: TreeMember[];
  deletedWith: PropagationPolicy | undefined;
}

export interface TreeShape {
  withNetwork: boolean;
  /** Another live root to share one dependent with. */
  sharedWith: KubeObject | undefined;
}

export function chooseTreeShape(random: SeededRandom, liveRoots: readonly KubeObject[]): TreeShape {
  return { withNetwork: random.chance(0.5), sharedWith: random.chance(0.3) ? random.pick(liveRoots) : undefined };
}

/** Creates a tree; `tree` is filled as objects are created, so a failure part-way leaves a usable record. */
export async function createOwnerTree(
  client: KubeClient,
  namespace: string,
  name: string,
  shape: TreeShape,
  networks: SoakNetworks,
  onRootCreated: (tree: OwnerTree) => void,
): Promise<OwnerTree> {
  const create = async (gvr: GroupVersionResource, object: KubeObject, owners: OwnerReference[], tree?: OwnerTree): Promise<KubeObject> => {
    const created = await client.dynamic.resource(gvr, namespace).create({ ...object, metadata: { ...object.metadata, ownerReferences: owners } });
    const uid = created.metadata?.uid ?? "";
    tree?.members.push({ gvr, name: created.metadata?.name ?? "", uid, owners: owners.map((owner) => owner.uid) });
    return { ...created, apiVersion: object.apiVersion, kind: object.kind };
  };
  const configMap = (suffix: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${name}${suffix}` } });

  const root = await create(resources.configMaps, configMap(""), []);
  const tree: OwnerTree = { root, members: [], deletedWith: undefined };
  onRootCreated(tree);
  const blocking = referenceTo(root, { blockOwnerDeletion: true });
  const middle = await create(resources.configMaps, configMap("-middle"), [blocking], tree);
  await create(resources.configMaps, configMap("-leaf"), [referenceTo(middle, { blockOwnerDeletion: true })], tree);
  await create(resources.secrets, { apiVersion: "v1", kind: "Secret", metadata: { name: `${name}-secret` } }, [referenceTo(root, { blockOwnerDeletion: false })], tree);
  if (shape.withNetwork) {
    await create(networkGVR, networks.next(`${name}-network`), [blocking], tree);
  }
  if (shape.sharedWith) {
    await create(resources.configMaps, configMap("-shared"), [blocking, referenceTo(shape.sharedWith, { blockOwnerDeletion: false })], tree);
  }
  return tree;
}
