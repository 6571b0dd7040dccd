// What the replicaset integration tests share: a control plane with kube-loom as its compiled
// binary, ReplicaSets driven through kubectl as a user drives them, Pod status written the way a
// kubelet would write it, and a census of a ReplicaSet's Pods taken from an independent watch.
import type { V1Pod, V1ReplicaSet } from "@kubernetes/client-node";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { ResourceClient } from "../../pkg/kube/dynamic-client.ts";
import type { ObjectList, Wire } from "../../pkg/kube/objects.ts";
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

/** `kubectl apply` of the objects, sent as one JSON List (no YAML 1.1 surprises such as `yes` turning boolean). */
export async function apply(controlPlane: ControlPlane, objects: object[]): Promise<void> {
  await kubectl(controlPlane, ["apply", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }));
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
      return statusMatches(last, expected);
    },
    `ReplicaSet ${namespace}/${name} status ${JSON.stringify(expected)} (last: ${JSON.stringify(last?.status)})`,
    timeoutMs,
    250,
  ).catch((err: unknown) => {
    throw new Error(`${err instanceof Error ? err.message : String(err)}; last status ${JSON.stringify(last?.status)}`);
  });
  return last as ReplicaSet;
}

/** True when the ReplicaSet's status shows `expected` and was computed from its current generation. */
export function statusMatches(rs: ReplicaSet, expected: Partial<NonNullable<ReplicaSet["status"]>>): boolean {
  const status: Record<string, unknown> = { ...rs.status };
  const generationSeen = rs.status?.observedGeneration === rs.metadata?.generation;
  return generationSeen && Object.entries(expected).every(([field, value]) => (status[field] ?? 0) === value);
}

/**
 * Every version of ReplicaSet `name` from now on, up to the first for which `done` holds. A watch
 * shows them, so no status written in between is missed and no poll interval is added to a
 * benchmark's figure; the API server ends watches now and then, and the next resumes where it stopped.
 */
export async function replicaSetVersionsUntil(
  client: KubeClient,
  namespace: string,
  name: string,
  done: (rs: ReplicaSet) => boolean,
  timeoutMs: number,
): Promise<ReplicaSet[]> {
  const replicaSets = client.dynamic.resource<ReplicaSet>(resources.replicaSets, namespace);
  const fieldSelector = `metadata.name=${name}`;
  const initial = await replicaSets.list({ fieldSelector });
  const versions = [...initial.items];
  let resourceVersion = initial.metadata?.resourceVersion ?? "";
  const stop = AbortSignal.timeout(timeoutMs);
  try {
    while (!versions.some(done)) {
      for await (const event of await replicaSets.watch({ resourceVersion, fieldSelector }, stop)) {
        if (event.type === "ERROR") throw new Error(`watch of ReplicaSet ${namespace}/${name} failed: ${event.object.message}`);
        resourceVersion = event.object.metadata?.resourceVersion ?? resourceVersion;
        if (event.type !== "BOOKMARK") versions.push(event.object);
        if (versions.some(done)) break;
      }
    }
  } catch (error) {
    if (!stop.aborted) throw error;
  }
  if (!versions.some(done)) {
    const statuses = versions.map((rs) => rs.status);
    throw new Error(`ReplicaSet ${namespace}/${name}: no status met the condition within ${timeoutMs} ms; saw ${JSON.stringify(statuses)}`);
  }
  return versions;
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
 * and deletion that took effect. The API server closes watches that fall behind, so it resumes
 * from the last resourceVersion seen, like a reflector (a 410 fails it: counts would be incomplete).
 */
export class PodCensus {
  private readonly live = new Set<string>();
  private readonly everCreated = new Set<string>();
  private readonly deletionsSeen = new Set<string>();
  /** performance.now() when each creation was seen, in order. */
  readonly creationTimes: number[] = [];
  private maxLive = 0;
  private resourceVersion: string;
  private readonly stop = new AbortController();
  private readonly done: Promise<void>;

  private constructor(
    private readonly pods: ResourceClient<Pod>,
    private readonly ownerUid: string,
    initial: ObjectList<Pod>,
  ) {
    for (const pod of initial.items) this.observe("ADDED", pod);
    this.resourceVersion = initial.metadata?.resourceVersion ?? "";
    this.done = this.follow();
    // Surfaces a failed census at close() rather than as an unhandled rejection.
    this.done.catch(() => undefined);
  }

  /** Starts counting the Pods controlled by `rs`, from now on. */
  static async start(client: KubeClient, rs: ReplicaSet): Promise<PodCensus> {
    const pods = client.dynamic.resource<Pod>(resources.pods, rs.metadata?.namespace);
    return new PodCensus(pods, rs.metadata?.uid ?? "", await pods.list({}));
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

  /** What the census saw of one Pod, for failure messages. */
  describe(uid: string): string {
    if (!this.everCreated.has(uid)) return "never seen created";
    return this.live.has(uid) ? "live" : "seen deleted";
  }

  /** Stops watching; throws if the census could not follow every event. */
  async close(): Promise<void> {
    this.stop.abort();
    await this.done;
  }

  private async follow(): Promise<void> {
    while (!this.stop.signal.aborted) {
      const events = await this.pods.watch({ resourceVersion: this.resourceVersion, allowWatchBookmarks: true }, this.stop.signal);
      for await (const event of events) {
        if (event.type === "ERROR") throw new Error(`census watch failed: ${event.object.message ?? event.object.reason}`);
        this.resourceVersion = event.object.metadata?.resourceVersion ?? this.resourceVersion;
        if (event.type !== "BOOKMARK") this.observe(event.type, event.object);
      }
    }
  }

  private observe(type: "ADDED" | "MODIFIED" | "DELETED", pod: Pod): void {
    if (controllerRefOf(pod)?.uid !== this.ownerUid) return;
    const uid = pod.metadata?.uid ?? "";
    if (type === "ADDED" && !this.everCreated.has(uid)) {
      this.everCreated.add(uid);
      this.creationTimes.push(performance.now());
    }
    if (type === "DELETED" || pod.metadata?.deletionTimestamp) {
      this.live.delete(uid);
      this.deletionsSeen.add(uid);
      return;
    }
    this.live.add(uid);
    this.maxLive = Math.max(this.maxLive, this.live.size);
  }
}
