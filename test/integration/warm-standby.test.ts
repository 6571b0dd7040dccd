// Warm standbys (--leader-elect-warm-standby, on by default): separate kube-loom processes, each
// with a client certificate of its own, so the API server's audit log names the process behind
// every request. A standby fills its caches while another process leads and writes nothing;
// once it takes the Lease over it reconciles from those caches without listing Pods or
// ReplicaSets again. With the flag off, a standby runs no informer but the Lease's.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import type { InformerStatus } from "../../pkg/status/status-snapshot.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { apply, createNamespace, kubectl, replicaSetManifest, waitForStatus } from "../replicaset/replicaset-fixture.ts";
import { waitUntil } from "../support/eventually.ts";
import { buildKubeLoom, isLeading, KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { fastClient } from "./informer-fixtures.ts";

/** Short enough that a kill -9 takeover takes seconds, valid by client-go's rules. */
const leaseFlags = ["--leader-elect-lease-duration=6s", "--leader-elect-renew-deadline=4s", "--leader-elect-retry-period=1s"];
const writeVerbs = new Set(["create", "update", "patch", "delete", "deletecollection"]);
const bigResources = new Set(["pods", "replicasets"]);

let auditDir: string;
let controlPlane: ControlPlane;
let admin: KubeClient;
let binary: string;
const processes: KubeLoomProcess[] = [];

beforeAll(async () => {
  auditDir = mkdtempSync(join(tmpdir(), "kube-loom-audit-"));
  // Every request once, when the API server receives it: a write refused later still counts.
  writeFileSync(
    join(auditDir, "policy.yaml"),
    "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [ResponseStarted, ResponseComplete, Panic]\nrules:\n  - level: Metadata\n",
  );
  const extraApiserverArgs = [`--audit-policy-file=${join(auditDir, "policy.yaml")}`, `--audit-log-path=${join(auditDir, "audit.log")}`];
  [controlPlane, binary] = await Promise.all([ControlPlane.start({ extraApiserverArgs }), buildKubeLoom()]);
  admin = await fastClient(controlPlane.kubeconfigPath);
}, 300_000);

/** Every replica reconciles the whole cluster once it leads: none may outlive its test. */
async function stopReplicas(): Promise<void> {
  await Promise.all(processes.filter((p) => p.running).map((p) => p.stop("SIGKILL")));
}

afterEach(stopReplicas);

afterAll(async () => {
  await stopReplicas();
  await controlPlane?.stop();
  if (auditDir) rmSync(auditDir, { recursive: true, force: true });
});

interface AuditEvent {
  verb: string;
  requestURI: string;
  user: { username: string };
  objectRef?: { resource?: string; namespace?: string; name?: string };
  /** RFC 3339 with microseconds, fixed width: compares as a string. */
  requestReceivedTimestamp: string;
}

/** The requests `user` made so far, in the order the API server received them. */
function requestsBy(user: string): AuditEvent[] {
  return readFileSync(join(auditDir, "audit.log"), "utf8")
    .split("\n")
    .filter((line) => line.includes(`"username":"${user}"`))
    .map((line) => JSON.parse(line) as AuditEvent)
    .filter((event) => event.user.username === user)
    .sort((a, b) => a.requestReceivedTimestamp.localeCompare(b.requestReceivedTimestamp));
}

/** A LIST, or a watch that begins with every object (the streaming list informers use). */
function isList(event: AuditEvent): boolean {
  return event.verb === "list" || (event.verb === "watch" && event.requestURI.includes("sendInitialEvents=true"));
}

function describeRequest(event: AuditEvent): string {
  const { resource = "", namespace = "", name = "" } = event.objectRef ?? {};
  return `${event.requestReceivedTimestamp} ${event.verb} ${resource} ${namespace}/${name}`;
}

function millisBetween(from: AuditEvent, to: AuditEvent): number {
  const at = (event: AuditEvent) => Date.parse(`${event.requestReceivedTimestamp.slice(0, 23)}Z`);
  return at(to) - at(from);
}

/** A kube-loom process acting as `user` (a member of system:masters), electing through Lease `lease`. */
async function replica(user: string, lease: string, extraArgs: string[] = []): Promise<KubeLoomProcess> {
  const kubeconfig = controlPlane.writeKubeconfig({ client: await controlPlane.issueClientCertificate({ user, groups: ["system:masters"] }) });
  const instance = await KubeLoomProcess.start({
    binary,
    kubeconfig,
    logDir: join(controlPlane.dir, "kube-loom-logs"),
    name: user,
    args: ["--controllers=replicaset,garbagecollector", `--leader-elect-resource-name=${lease}`, ...leaseFlags, ...extraArgs],
  });
  processes.push(instance);
  await instance.waitFor("/healthz");
  return instance;
}

async function informers(instance: KubeLoomProcess): Promise<InformerStatus[]> {
  const status = (await (await fetch(`${instance.url}/debug/status.json`)).json()) as { informers: InformerStatus[] };
  return status.informers;
}

/** The standby's informers of Pods and ReplicaSets (the ReplicaSet controller's, which the garbage collector shares): name → lists so far. */
async function bigListCounts(instance: KubeLoomProcess): Promise<Record<string, number>> {
  const big = (await informers(instance)).filter((informer) => /^(pods\.v1|replicasets\.v1\.apps)\b/.test(informer.name));
  return Object.fromEntries(big.map((informer) => [informer.name, informer.lists]));
}

/**
 * A ConfigMap in `namespace` whose ownerReference names `owner` from another namespace: the
 * garbage collector's graph, on every replica that follows it, finds it invalid (an Event).
 */
async function crossNamespaceDependent(namespace: string, owner: KubeObject): Promise<string> {
  const reference = { apiVersion: "apps/v1", kind: "ReplicaSet", name: owner.metadata?.name ?? "", uid: owner.metadata?.uid ?? "" };
  const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dependent", namespace, ownerReferences: [reference] } };
  const created = await admin.dynamic.resource<KubeObject>(resources.configMaps, namespace).create(configMap);
  return created.metadata?.resourceVersion ?? "";
}

/** Waits until `instance`'s metadata informer of ConfigMaps has applied resourceVersion `rv`. */
async function seenConfigMapVersion(instance: KubeLoomProcess, rv: string): Promise<void> {
  await waitUntil(async () => {
    const configMaps = (await informers(instance)).find((informer) => informer.name === "configmaps.v1{metadataOnly}");
    return configMaps !== undefined && configMaps.resourceVersion !== "" && BigInt(configMaps.resourceVersion) >= BigInt(rv);
  }, `the standby's ConfigMap metadata at ${rv}`);
}

async function takeOver(name: string, how: "SIGKILL" | "SIGTERM"): Promise<void> {
  const namespace = await createNamespace(admin, name);
  const otherNamespace = await createNamespace(admin, `${name}-other`);
  const leader = await replica(`${name}-first`, name);
  await waitUntil(() => isLeading(leader), "the first replica leading");
  const standbyUser = `${name}-standby`;
  const standby = await replica(standbyUser, name);
  // (a) Ready once its caches have synced, while the other process leads.
  await standby.waitFor("/readyz");
  expect(await isLeading(standby)).toBe(false);

  await apply(controlPlane, [replicaSetManifest({ name: "web", namespace, replicas: 2 })]);
  const replicaSet = await waitForStatus(admin, namespace, "web", { replicas: 2 });
  await seenConfigMapVersion(standby, await crossNamespaceDependent(otherNamespace, replicaSet));
  const before = await bigListCounts(standby);
  expect(Object.keys(before).sort()).toEqual(["pods.v1", "replicasets.v1.apps"]);
  for (const informer of (await informers(standby)).filter((i) => i.name in before)) expect(informer.synced).toBe(true);
  expect(requestsBy(standbyUser).filter((e) => writeVerbs.has(e.verb)).map(describeRequest)).toEqual([]);

  // (b) The leader goes; the ReplicaSet wants one more Pod while nobody leads.
  const exitCode = await leader.stop(how);
  if (how === "SIGTERM") expect(exitCode).toBe(0);
  await kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, "--replicas=3"]);
  await waitForStatus(admin, namespace, "web", { replicas: 3 }, 90_000);
  expect(await isLeading(standby)).toBe(true);

  const requests = requestsBy(standbyUser);
  const writes = requests.filter((e) => writeVerbs.has(e.verb));
  // Its first write takes the Lease: nothing was written before it led (no Event either).
  const acquired = writes[0];
  expect(acquired && `${acquired.verb} ${acquired.objectRef?.resource}/${acquired.objectRef?.name}`).toBe(`update leases/${name}`);
  if (!acquired) return;
  const since = requests.filter((e) => e.requestReceivedTimestamp > acquired.requestReceivedTimestamp);
  const bigLists = since.filter((e) => isList(e) && bigResources.has(e.objectRef?.resource ?? ""));
  expect(bigLists.map(describeRequest)).toEqual([]);
  expect(await bigListCounts(standby)).toEqual(before);
  const firstPod = since.find((e) => e.verb === "create" && e.objectRef?.resource === "pods" && e.objectRef.namespace === namespace);
  expect(firstPod).toBeDefined();
  if (firstPod) {
    const between = since.slice(0, since.indexOf(firstPod)).map((e) => `${e.verb} ${e.objectRef?.resource ?? e.requestURI}`);
    console.log(`${how}: new leader's first Pod create ${millisBetween(acquired, firstPod)} ms after it took the Lease; in between: [${between.join(", ")}]; lists of pods/replicasets since: 0`);
  }
  await standby.stop();
}

describe("warm standby (default)", () => {
  test("kill -9 of the leader: the standby, synced and silent before, reconciles without listing Pods or ReplicaSets", async () => {
    await takeOver("warm-kill", "SIGKILL");
  }, 240_000);

  test("SIGTERM of the leader: the same after a released Lease", async () => {
    await takeOver("warm-term", "SIGTERM");
  }, 240_000);
});

describe("--leader-elect-warm-standby=false", () => {
  test("a standby runs no informer but the Lease's and is ready; it lists once it leads", async () => {
    const lease = "cold";
    const namespace = await createNamespace(admin, lease);
    const leader = await replica("cold-first", lease);
    await waitUntil(() => isLeading(leader), "the first replica leading");
    const standby = await replica("cold-standby", lease, ["--leader-elect-warm-standby=false"]);
    await standby.waitFor("/readyz");
    await apply(controlPlane, [replicaSetManifest({ name: "web", namespace, replicas: 1 })]);
    await waitForStatus(admin, namespace, "web", { replicas: 1 });

    const idle = (await informers(standby)).filter((informer) => !informer.name.startsWith("leases."));
    expect(idle.map((informer) => informer.name)).toContain("pods.v1");
    expect(idle.filter((informer) => informer.lists + informer.watches > 0 || informer.synced).map((informer) => informer.name)).toEqual([]);
    expect(requestsBy("cold-standby").filter((e) => bigResources.has(e.objectRef?.resource ?? "")).map(describeRequest)).toEqual([]);

    await leader.stop("SIGKILL");
    await kubectl(controlPlane, ["scale", "rs/web", "-n", namespace, "--replicas=2"]);
    await waitForStatus(admin, namespace, "web", { replicas: 2 }, 90_000);
    const requests = requestsBy("cold-standby");
    const acquired = requests.find((e) => writeVerbs.has(e.verb));
    expect(acquired?.objectRef?.resource).toBe("leases");
    const since = requests.filter((e) => acquired && e.requestReceivedTimestamp > acquired.requestReceivedTimestamp);
    const listed = new Set(since.filter((e) => isList(e)).map((e) => e.objectRef?.resource));
    expect(listed.has("pods") && listed.has("replicasets")).toBe(true);
    const firstPod = since.find((e) => e.verb === "create" && e.objectRef?.resource === "pods");
    if (acquired && firstPod) console.log(`cold standby: first Pod create ${millisBetween(acquired, firstPod)} ms after it took the Lease, ${since.indexOf(firstPod)} request(s) in between (lists included)`);
    await standby.stop();
  }, 240_000);
});
