// An in-memory API server for the replicaset controller's unit tests: Pods and ReplicaSets behind
// a `fetch` for the controller's client and FakeListerWatchers for its informers. Its Pod watch can
// lag: writes take effect at once but reach watchers only when the test releases them, which is
// exactly the stale cache the expectations must protect against.
import { createKubeClient, type KubeClient } from "../../pkg/kube/client.ts";
import type { ClientConfig } from "../../pkg/kube/client-config.ts";
import type { OwnerReference } from "../../pkg/kube/objects.ts";
import { FakeListerWatcher } from "../support/fake-lister-watcher.ts";
import type { Pod, ReplicaSet } from "./builders.ts";

export interface FakeRequest {
  method: string;
  path: string;
}

export class FakeReplicaSetApi {
  readonly pods = new FakeListerWatcher<Pod>();
  readonly replicaSets = new FakeListerWatcher<ReplicaSet>();
  readonly requests: FakeRequest[] = [];
  /** While true, Pod writes are held back from watchers until `releasePodEvents`. */
  lagPodEvents = false;
  /**
   * Like an API server with the DeploymentReplicaSetTerminatingReplicas gate off: a status write
   * loses status.terminatingReplicas unless the stored status has it already.
   */
  dropsTerminatingReplicas = false;
  private readonly heldBack: (() => void)[] = [];
  /** Keys of the Pods created while their events are held back. */
  private readonly createdUnseen: string[] = [];
  private readonly lostAnswers: (FakeRequest & { applied: boolean; answer: "reset" | "busy" })[] = [];
  /** Pods as the server stores them, ahead of the watchers while events lag. */
  private readonly storedPods = new Map<string, Pod>();
  private nextPod = 0;

  /** A client whose requests this fake answers. */
  client(): Promise<KubeClient> {
    const config: ClientConfig = { server: "https://fake.test", tls: {}, authenticate: async () => ({}), namespace: "default", source: "fake" };
    return createKubeClient(config, { qps: 0, burst: 0, timeoutMs: 30_000, fetch: (url, init) => this.fetch(url, init) });
  }

  /** Delivers every held-back Pod event, in order. */
  releasePodEvents(): void {
    this.createdUnseen.length = 0;
    for (const deliver of this.heldBack.splice(0)) deliver();
  }

  /**
   * The Pods created while events were held back are deleted as well, and the Pod watchers hear of
   * neither: their watch breaks and its resourceVersion is compacted away, so the informer lists
   * again and those Pods never reach its cache (as a relist after an API server restart can hide a
   * Pod created and deleted in between). Events are delivered at once from here on.
   */
  deleteCreatedUnseen(): void {
    for (const key of this.createdUnseen.splice(0)) this.storedPods.delete(key);
    this.pods.skipResourceVersions(this.heldBack.length * 2);
    this.heldBack.length = 0;
    this.lagPodEvents = false;
    this.pods.compact();
    this.pods.breakStreams();
  }

  /** Pods the server holds (what a quorum read would return). */
  get podCount(): number {
    return this.storedPods.size;
  }

  count(method: string, pathPattern: RegExp): number {
    return this.requests.filter((request) => request.method === method && pathPattern.test(request.path)).length;
  }

  /**
   * The next request of `method` whose path matches gets no answer the client can use, after the
   * write was carried out (`applied`) or before it got here: by default the client's fetch fails
   * as a reset connection would; "busy" answers 503 with Retry-After, which the REST client waits
   * out and sends again.
   */
  loseNextAnswer(method: string, pathPattern: RegExp, applied: boolean, answer: "reset" | "busy" = "reset"): void {
    this.lostAnswers.push({ method, path: pathPattern.source, applied, answer });
  }

  private async fetch(url: string, init: RequestInit): Promise<Response> {
    const method = init.method ?? "GET";
    const path = new URL(url).pathname;
    this.requests.push({ method, path });
    const lostAt = this.lostAnswers.findIndex((loss) => loss.method === method && new RegExp(loss.path).test(path));
    const [lost] = lostAt < 0 ? [] : this.lostAnswers.splice(lostAt, 1);
    if (!lost) return this.answer(method, path, init);
    if (lost.applied) await this.answer(method, path, init);
    if (lost.answer === "busy") return new Response(JSON.stringify({ kind: "Status", code: 503, reason: "ServiceUnavailable" }), { status: 503, headers: { "Retry-After": "1" } });
    throw new TypeError("The socket connection was closed unexpectedly");
  }

  private async answer(method: string, path: string, init: RequestInit): Promise<Response> {
    const body = init.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : undefined;
    const pods = /^\/api\/v1\/namespaces\/([^/]+)\/pods(?:\/([^/]+))?$/.exec(path);
    const replicaSet = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/replicasets\/([^/]+)(\/status)?$/.exec(path);
    if (pods && method === "POST" && body) return this.createPod(pods[1] ?? "", body as Pod);
    if (pods && method === "GET" && pods[2]) {
      const stored = this.storedPods.get(`${pods[1]}/${pods[2]}`);
      return stored ? json(200, stored) : status(404, "NotFound");
    }
    if (pods && method === "DELETE" && pods[2]) return this.deletePod(`${pods[1]}/${pods[2]}`);
    if (pods && method === "PATCH" && pods[2] && body) return this.patchOwnerReferences(`${pods[1]}/${pods[2]}`, body as Pod);
    if (replicaSet && method === "GET") {
      const stored = (await this.replicaSets.list({})).items.find((rs) => rs.metadata?.name === replicaSet[2]);
      return stored ? json(200, stored) : status(404, "NotFound");
    }
    if (replicaSet && method === "PUT" && replicaSet[3] && body) return this.updateStatus(body as ReplicaSet);
    return status(405, "MethodNotAllowed");
  }

  /** Stores the status; like the API server, a write that changes nothing stores nothing and sends no event. */
  private async updateStatus(sent: ReplicaSet): Promise<Response> {
    const stored = (await this.replicaSets.list({})).items.find((rs) => rs.metadata?.name === sent.metadata?.name);
    if (!stored) return status(404, "NotFound");
    const { terminatingReplicas, ...rest } = sent.status ?? { replicas: 0 };
    const keep = terminatingReplicas !== undefined && !(this.dropsTerminatingReplicas && stored.status?.terminatingReplicas === undefined);
    const next: ReplicaSet = { ...stored, status: keep ? { ...rest, terminatingReplicas } : rest };
    if (canonical(next.status) === canonical(stored.status)) return json(200, stored);
    return json(200, this.replicaSets.update(next));
  }

  private createPod(namespace: string, pod: Pod): Response {
    const name = pod.metadata?.name ?? `${pod.metadata?.generateName ?? ""}${(this.nextPod++).toString(36).padStart(5, "0")}`;
    if (this.storedPods.has(`${namespace}/${name}`)) return status(409, "AlreadyExists");
    const stored: Pod = {
      ...pod,
      metadata: {
        ...pod.metadata,
        name,
        namespace,
        uid: `uid-${name}`,
        resourceVersion: this.nextPodResourceVersion(),
        creationTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
      },
    };
    this.storedPods.set(`${namespace}/${name}`, stored);
    if (this.lagPodEvents) this.createdUnseen.push(`${namespace}/${name}`);
    this.deliver(() => this.pods.create(stored));
    return json(201, stored);
  }

  /**
   * The strategic merge patches of adoption and release: ownerReferences merged by UID (an entry
   * with `$patch: delete` removes that UID), with the Pod's UID as a precondition.
   */
  private async patchOwnerReferences(key: string, patch: Pod): Promise<Response> {
    const stored = this.storedPods.get(key) ?? (await this.pods.list({})).items.find((pod) => `${pod.metadata?.namespace}/${pod.metadata?.name}` === key);
    if (!stored) return status(404, "NotFound");
    if (patch.metadata?.uid !== undefined && patch.metadata.uid !== stored.metadata?.uid) return status(422, "Invalid");
    let references = stored.metadata?.ownerReferences ?? [];
    for (const entry of (patch.metadata?.ownerReferences ?? []) as (OwnerReference & { $patch?: string })[]) {
      const { $patch, ...reference } = entry;
      references = references.filter((existing) => existing.uid !== reference.uid);
      if ($patch !== "delete") references.push(reference);
    }
    const patched: Pod = { ...stored, metadata: { ...stored.metadata, ownerReferences: references, resourceVersion: this.nextPodResourceVersion() } };
    this.storedPods.set(key, patched);
    this.deliver(() => this.pods.update(patched));
    return json(200, patched);
  }

  private deletePod(key: string): Response {
    const stored = this.storedPods.get(key);
    if (!stored) return status(404, "NotFound");
    this.storedPods.delete(key);
    this.deliver(() => this.pods.delete(key));
    return json(200, stored);
  }

  /** The resourceVersion the Pod watchers will see this write at: writes held back take theirs when released. */
  private nextPodResourceVersion(): string {
    return String(Number(this.pods.currentResourceVersion) + this.heldBack.length + 1);
  }

  private deliver(event: () => void): void {
    if (this.lagPodEvents) this.heldBack.push(event);
    else event();
  }
}

function json(code: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status: code, headers: { "Content-Type": "application/json" } });
}

function status(code: number, reason: string): Response {
  return json(code, { kind: "Status", apiVersion: "v1", status: "Failure", reason, code, message: reason });
}

/** The status as JSON with its fields in a fixed order, to tell whether a write changes anything. */
function canonical(value: object | undefined): string {
  return JSON.stringify(Object.entries(value ?? {}).sort(([a], [b]) => a.localeCompare(b)));
}
