// What the replicaset integration tests share: a control plane with kube-loom as its compiled
// binary, ReplicaSets driven through kubectl as a user drives them, Pod status written the way a
// kubelet would write it, and a census of a ReplicaSet's Pods taken from an independent watch.
import type { V1Pod, V1ReplicaSet } from "@kubernetes/client-node";
import { stringify } from "yaml";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { Wire } from "../../pkg/kube/objects.ts";
import { controllerRefOf } from "../../pkg/kube/owner-references.ts";
import type { ControlPlane } from "../controlplane/control-plane.ts";
import { ensureNamespace } from "../integration/informer-fixtures.ts";
import { waitUntil } from "../support/eventually.ts";
import { buildKubeLoom, KubeLoomProcess } from "../support/kube-loom-binary.ts";

export type Pod = Wire<V1Pod>;
export type ReplicaSet = Wire<V1ReplicaSet>;

/** Starts kube-loom (no leader election unless `args` says otherwise) and waits until it serves /healthz. */
export async function startKubeLoom(controlPlane: ControlPlane, args: string[], name = "kube-loom"): Promise<KubeLoomProcess> {
  const kubeLoom = await KubeLoomProcess.start({
    binary: await buildKubeLoom(),
    kubeconfig: controlPlane.kubeconfigPath,
    logDir: controlPlane.dir,
    name,
    args: ["--leader-elect=false", ...args],
  });
  await kubeLoom.waitFor("/healthz");
  return kubeLoom;
}

/** Runs kubectl and returns its stdout; a failure throws with kubectl's own message. */
export async function kubectl(controlPlane: ControlPlane, args: string[], stdin?: string): Promise<string> {
  const result = await controlPlane.kubectl(args, stdin === undefined ? {} : { stdin });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed (${result.code}): ${result.stderr.trim()}`);
  return result.stdout;
}

export async function applyYaml(controlPlane: ControlPlane, objects: object[]): Promise<void> {
  await kubectl(controlPlane, ["apply", "-f", "-"], objects.map((o) => stringify(o)).join("---\n"));
}

export interface ReplicaSetSpec {
  name: string;
  namespace: string;
  replicas: number;
  /** The selector and template labels; the template gets `extraTemplateLabels` on top. */
  labels?: Record<string, string>;
  extraTemplateLabels?: Record<string, string>;
  minReadySeconds?: number;
  /** Fields merged into the Pod template's spec (e.g. nodeName). */
  podSpec?: Record<string, unknown>;
  ownerReferences?: object[];
}

export function replicaSetManifest(spec: ReplicaSetSpec): ReplicaSet {
  const labels = spec.labels ?? { app: spec.name };
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name: spec.name, namespace: spec.namespace, ...(spec.ownerReferences ? { ownerReferences: spec.ownerReferences } : {}) },
    spec: {
      replicas: spec.replicas,
      ...(spec.minReadySeconds ? { minReadySeconds: spec.minReadySeconds } : {}),
      selector: { matchLabels: labels },
      template: {
        metadata: { labels: { ...labels, ...spec.extraTemplateLabels } },
        spec: { containers: [{ name: "app", image: "registry.example/app:1" }], ...spec.podSpec },
      },
    },
  } as ReplicaSet;
}

export async function createNamespace(client: KubeClient, name: string): Promise<string> {
  await ensureNamespace(client, name);
  return name;
}

export async function getReplicaSet(client: KubeClient, namespace: string, name: string): Promise<ReplicaSet> {
  return client.dynamic.resource<ReplicaSet>(resources.replicaSets, namespace).get(name);
}

export async function listPods(client: KubeClient, namespace: string, labelSelector?: string): Promise<Pod[]> {
  const list = await client.dynamic.resource<Pod>(resources.pods, namespace).list(labelSelector ? { labelSelector } : {});
  return list.items;
}

/** Waits until the ReplicaSet's status matches `expected` (and, by default, observes its generation). */
export async function waitForStatus(
  client: KubeClient,
  namespace: string,
  name: string,
  expected: Partial<NonNullable<ReplicaSet["status"]>>,
  timeoutMs = 120_000,
): Promise<ReplicaSet> {
  let last: ReplicaSet | undefined;
  await waitUntil(
    async () => {
      last = await getReplicaSet(client, namespace, name);
      const status: Record<string, unknown> = { ...last.status };
      const generationSeen = last.status?.observedGeneration === last.metadata?.generation;
      return generationSeen && Object.entries(expected).every(([field, value]) => (status[field] ?? 0) === value);
    },
    `ReplicaSet ${namespace}/${name} status ${JSON.stringify(expected)} (last: ${JSON.stringify(last?.status)})`,
    timeoutMs,
    250,
  ).catch((err: unknown) => {
    throw new Error(`${err instanceof Error ? err.message : String(err)}; last status ${JSON.stringify(last?.status)}`);
  });
  return last as ReplicaSet;
}

/** Writes Pod status as a kubelet would: Running, and Ready since `readySince` (epoch ms) when given. */
export async function setPodStatus(
  client: KubeClient,
  pod: Pod,
  status: { phase: string; readySince?: number; restarts?: number },
): Promise<void> {
  const ready = status.readySince !== undefined;
  const conditions = [{ type: "Ready", status: ready ? "True" : "False", lastTransitionTime: rfc3339(status.readySince ?? Date.now()) }];
  const containerStatuses = [
    {
      name: "app",
      image: "registry.example/app:1",
      imageID: "",
      ready,
      restartCount: status.restarts ?? 0,
      ...(status.phase === "Running" ? { started: true, state: { running: { startedAt: rfc3339(Date.now()) } } } : {}),
    },
  ];
  await client.dynamic
    .resource<Pod>(resources.pods, pod.metadata?.namespace)
    .patch(pod.metadata?.name ?? "", { status: { phase: status.phase, conditions, containerStatuses } }, "merge", { subresource: "status" });
}

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * Follows one ReplicaSet's Pods through its own watch, independent of kube-loom: how many exist
 * and are not being deleted right now, the most there ever were at once, and every creation
 * and deletion request that took effect.
 */
export class PodCensus {
  private readonly live = new Set<string>();
  private readonly everCreated = new Set<string>();
  private readonly deletionsSeen = new Set<string>();
  private maxLive = 0;
  private readonly stop = new AbortController();
  private readonly done: Promise<void>;

  private constructor(
    private readonly ownerUid: string,
    events: AsyncIterable<{ type: string; object: unknown }>,
    initial: Pod[],
  ) {
    for (const pod of initial) this.observe("ADDED", pod);
    this.done = this.follow(events);
  }

  /** Starts watching the namespace's Pods from now on, counting those controlled by `rs`. */
  static async start(client: KubeClient, rs: ReplicaSet): Promise<PodCensus> {
    const pods = client.dynamic.resource<Pod>(resources.pods, rs.metadata?.namespace);
    const list = await pods.list({});
    const stop = new AbortController();
    const events = await pods.watch({ resourceVersion: list.metadata?.resourceVersion ?? "", allowWatchBookmarks: true }, stop.signal);
    const census = new PodCensus(rs.metadata?.uid ?? "", events, list.items);
    census.stop.signal.addEventListener("abort", () => stop.abort(), { once: true });
    return census;
  }

  get liveCount(): number {
    return this.live.size;
  }

  /** The most live Pods of the ReplicaSet at any moment. */
  get maxLiveCount(): number {
    return this.maxLive;
  }

  get createdCount(): number {
    return this.everCreated.size;
  }

  /** Pods that got a deletionTimestamp or were deleted. */
  get deletedCount(): number {
    return this.deletionsSeen.size;
  }

  /** Starts a new measurement window for the maximum. */
  resetMax(): void {
    this.maxLive = this.live.size;
  }

  async close(): Promise<void> {
    this.stop.abort();
    await this.done;
  }

  private async follow(events: AsyncIterable<{ type: string; object: unknown }>): Promise<void> {
    try {
      for await (const event of events) {
        if (event.type === "ADDED" || event.type === "MODIFIED" || event.type === "DELETED") this.observe(event.type, event.object as Pod);
      }
    } catch (err) {
      if (!this.stop.signal.aborted) throw err;
    }
    if (!this.stop.signal.aborted) throw new Error("the census watch ended early; counts would be incomplete");
  }

  private observe(type: string, pod: Pod): void {
    if (controllerRefOf(pod)?.uid !== this.ownerUid) return;
    const uid = pod.metadata?.uid ?? "";
    if (type === "ADDED") this.everCreated.add(uid);
    if (type === "DELETED" || pod.metadata?.deletionTimestamp) {
      this.live.delete(uid);
      this.deletionsSeen.add(uid);
      return;
    }
    this.live.add(uid);
    this.maxLive = Math.max(this.maxLive, this.live.size);
  }
}
