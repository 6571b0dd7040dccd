// The garbage collector where kube-controller-manager v1.37's behaviour is the specification:
// resources served only in a non-preferred version, upstream's e2e "should not be blocked by
// dependency circle" (DELETE requests counted from the API server's audit log), an object
// decided again after clearing its blockOwnerDeletion (since 1.34), and a resource whose LIST
// always fails (a broken conversion webhook), which must not hold anything back, at start-up
// either: the workers start after at most 30 s without it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { freeLoopbackPorts } from "../controlplane/free-ports.ts";
import { ensureNamespace, fastClient } from "../integration/informer-fixtures.ts";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { type ObjectOf, resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject, ObjectMeta } from "../../pkg/kube/objects.ts";
import { buildKubeLoom, type KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { configMapNames, createConfigMap, getConfigMap, kubectl, referenceTo, startGarbageCollector, waitUntil } from "./gc-fixtures.ts";

const circleNamespaces = Array.from({ length: 8 }, (_, round) => `circle-${round}`);
let auditDir: string;
let controlPlane: ControlPlane;
let client: KubeClient;
let binary: string;
let kubeLoom: KubeLoomProcess;

// Every Pod DELETE in the dependency-circle namespaces.
const auditPolicy = JSON.stringify({
  apiVersion: "audit.k8s.io/v1",
  kind: "Policy",
  omitStages: ["RequestReceived"],
  rules: [
    { level: "Metadata", verbs: ["delete"], resources: [{ group: "", resources: ["pods"] }], namespaces: circleNamespaces },
    { level: "None" },
  ],
});

beforeAll(async () => {
  auditDir = mkdtempSync("/dev/shm/kube-loom-gc-audit-");
  writeFileSync(join(auditDir, "policy.json"), auditPolicy);
  [controlPlane, binary] = await Promise.all([
    ControlPlane.start({
      extraApiserverArgs: [`--audit-policy-file=${join(auditDir, "policy.json")}`, `--audit-log-path=${join(auditDir, "audit.log")}`],
    }),
    buildKubeLoom(),
  ]);
  client = await fastClient(controlPlane.kubeconfigPath);
  // Defined before kube-loom starts, so its first discovery sees them.
  await kubectl(controlPlane, ["apply", "-f", "-"], versionedGroupCrds);
  await kubectl(controlPlane, ["wait", "--for=condition=Established", "crd/alphas.versions.example.com", "crd/betas.versions.example.com", "--timeout=60s"]);
  kubeLoom = await startGarbageCollector(controlPlane, binary);
}, 300_000);

afterAll(async () => {
  if (kubeLoom) await kubeLoom.stopCleanly();
  await controlPlane?.stop();
  if (auditDir) rmSync(auditDir, { recursive: true, force: true });
}, 120_000);

describe("garbage collector as kube-controller-manager v1.37", () => {
  test("a kind served only in a non-preferred version of its group is monitored: a Beta owned by a deleted ConfigMap is collected", async () => {
    const ns = "versions";
    await ensureNamespace(client, ns);
    const owner = await createConfigMap(client, ns, "owner");
    const betas = client.dynamic.resource({ group: "versions.example.com", version: "v1alpha1", resource: "betas" }, ns);
    await betas.create({ apiVersion: "versions.example.com/v1alpha1", kind: "Beta", metadata: { name: "owned", ownerReferences: [referenceTo(owner)] } });

    await kubectl(controlPlane, ["delete", "configmap", "owner", "-n", ns]);
    await waitUntil(async () => (await betas.list({})).items.length === 0, "the Beta to be collected", 90_000);
  }, 120_000);

  test("a dependency circle deleted in the foreground goes entirely, with one DELETE per Pod taking effect and log lines that say why (e2e: should not be blocked by dependency circle)", async () => {
    // The race that sent a second DELETE shows in some runs only: several rounds catch it.
    for (const ns of circleNamespaces) {
      await ensureNamespace(client, ns);
      const pods = client.dynamic.resource(resources.pods, ns);
      const created: KubeObject[] = [];
      for (const name of ["pod1", "pod2", "pod3"]) created.push(await pods.create(gcPod(name)));
      const [pod1, pod2, pod3] = created.map((pod) => ({ name: pod.metadata?.name ?? "", uid: pod.metadata?.uid ?? "" })) as [Ref, Ref, Ref];
      // pod1 is owned by pod3, pod2 by pod1, pod3 by pod2, each as a blocking controller; then pod1 goes at once.
      for (const [dependent, owner] of [[pod1, pod3], [pod2, pod1], [pod3, pod2]] as const) {
        const ownerReferences = [{ apiVersion: "v1", kind: "Pod", name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true }];
        await pods.patch(dependent.name, { metadata: { ownerReferences } }, "strategic");
      }
      await pods.delete(pod1.name, { propagationPolicy: "Foreground", preconditions: { uid: pod1.uid } });
      await waitUntil(async () => (await pods.list({})).items.length === 0, `every Pod of the circle in ${ns} to be deleted`, 120_000);

      // Counted as they took effect: the Pod that clears its blockOwnerDeletion first is then
      // refused its DELETE at the version decided on, as upstream's is (1.34+).
      expect({ ns, deletes: podDeletes(ns) }).toEqual({ ns, deletes: { pod1: 1, pod2: 1, pod3: 1 } });
      const deletions = kubeLoomLogs()
        .filter((line) => line.msg?.startsWith("deleted object") && typeof line.item === "string" && line.item.includes(` ${ns}/`))
        .map((line) => `${String(line.item).split(" ")[1]}: ${line.msg}`);
      // pod1 cannot go before pod2, which blocks it: pod2 is deleted for an owner being deleted, never for an absent one.
      expect(deletions.filter((line) => line.startsWith(`${ns}/pod2:`))).toEqual([`${ns}/pod2: deleted object whose owners are being deleted in the foreground`]);
      expect(deletions.filter((line) => line.startsWith(`${ns}/pod3:`))).toHaveLength(1);
      expect(deletions).toHaveLength(2);
    }
  }, 300_000);

  test("an object that must clear its blockOwnerDeletion first is decided again once that patch changed it, as upstream since 1.34: its owner, gone by then, makes it a background deletion, not a foreground one a held dependent would block forever (differential seed gc 7007)", async () => {
    const ns = "unblock-then-decide";
    await ensureNamespace(client, ns);
    const alphas = client.dynamic.resource({ group: "versions.example.com", version: "v1", resource: "alphas" }, ns);
    const alpha = async (name: string, meta: Partial<ObjectMeta> = {}): Promise<KubeObject> => ({
      ...(await alphas.create({ apiVersion: "versions.example.com/v1", kind: "Alpha", metadata: { name, ...meta } })),
      apiVersion: "versions.example.com/v1",
      kind: "Alpha",
    });
    const names = async () => (await alphas.list({})).items.map((item) => item.metadata?.name ?? "").sort();
    const top = await alpha("top");
    // No blockOwnerDeletion: upstream's merge patch (custom resources have no strategic merge) still writes it, as false.
    const middle = await alpha("middle", { ownerReferences: [referenceTo(top)] });
    await alpha("below", { ownerReferences: [referenceTo(middle, { blockOwnerDeletion: true })], finalizers: ["example.com/hold"] });
    // below deletes in the foreground, held: for the collector a dependent of middle deleting its own dependents.
    await alphas.delete("below", { propagationPolicy: "Foreground" });
    await waitUntil(async () => (await alphas.get("below")).metadata?.finalizers?.join() === "example.com/hold", "below's foreground deletion to pass its dependents");

    await alphas.delete("top", { propagationPolicy: "Foreground" });
    await waitUntil(async () => (await names()).join() === "below", "top and middle to go", 30_000);
    const middleLines = kubeLoomLogs()
      .filter((line) => typeof line.item === "string" && line.item.includes(` ${ns}/middle `) && line.msg?.startsWith("deleted object"))
      .map((line) => [line.msg, line.propagationPolicy]);
    expect(middleLines).toEqual([["deleted object whose owners are absent", "Background"]]);
    await alphas.patch("below", { metadata: { finalizers: null } }, "merge");
  }, 120_000);

  test("a resource whose LIST always fails (broken conversion webhook) holds back neither orphaning nor foreground deletion", async () => {
    const ns = "broken-webhook";
    await ensureNamespace(client, ns);
    // As upstream's integration test: a Gadget stored as v1beta1, then v1 becomes the storage
    // (and preferred) version, converted by a webhook on a port nobody listens on. Listing v1
    // fails, also from the watch cache (resourceVersion=0, as informers list), which cannot fill.
    await kubectl(controlPlane, ["apply", "-f", "-"], gadgetCrd());
    await kubectl(controlPlane, ["wait", "--for=condition=Established", "crd/gadgets.broken.example.com", "--timeout=60s"]);
    const stored = client.dynamic.resource({ group: "broken.example.com", version: "v1beta1", resource: "gadgets" }, ns);
    await stored.create({ apiVersion: "broken.example.com/v1beta1", kind: "Gadget", metadata: { name: "unconvertible" } });
    const { closed } = await freeLoopbackPorts(["closed"] as const);
    await kubectl(controlPlane, ["apply", "-f", "-"], gadgetCrd({ closedPort: closed, caPem: controlPlane.pki.ca.certPem }));
    const listed = client.dynamic.metadata({ group: "broken.example.com", version: "v1", resource: "gadgets" });
    const listError = () => listed.list({ resourceVersion: "0" }).then(() => "", (err: unknown) => (err instanceof Error ? err.message : String(err)));
    await waitUntil(async () => (await listError()).includes("conversion webhook"), "listing v1 to fail in the conversion webhook");
    const gadgetsMonitored = () => kubeLoomLogs().some((line) => Array.isArray(line.added) && line.added.includes("gadgets.v1.broken.example.com"));
    await waitUntil(async () => gadgetsMonitored(), "a monitor for gadgets v1", 90_000);

    const orphanOwner = await createConfigMap(client, ns, "orphan-owner");
    await createConfigMap(client, ns, "orphan-dependent", { ownerReferences: [referenceTo(orphanOwner, { blockOwnerDeletion: true })] });
    const foregroundOwner = await createConfigMap(client, ns, "foreground-owner");
    await createConfigMap(client, ns, "foreground-dependent", { ownerReferences: [referenceTo(foregroundOwner, { blockOwnerDeletion: true })] });
    await kubectl(controlPlane, ["delete", "configmap", "orphan-owner", "-n", ns, "--cascade=orphan", "--wait=false"]);
    await kubectl(controlPlane, ["delete", "configmap", "foreground-owner", "-n", ns, "--cascade=foreground", "--wait=false"]);
    await waitUntil(async () => (await configMapNames(client, ns)).join() === "orphan-dependent", "both deletions to finish", 60_000);
    expect((await getConfigMap(client, ns, "orphan-dependent"))?.metadata?.ownerReferences ?? []).toEqual([]);
    // Still unlistable. From the watch cache, as informers list: a consistent read is answered
    // 429 "storage is (re)initializing" with Retry-After, which the client waits out ten times, as client-go's does.
    expect(await listError()).toContain("conversion webhook");
  }, 180_000);

  test("started while that resource cannot be listed, the collector starts its workers anyway once it waited 30 s for the monitors, as upstream", async () => {
    const ns = "broken-at-start";
    await ensureNamespace(client, ns);
    await kubeLoom.stopCleanly();
    kubeLoom = await startGarbageCollector(controlPlane, binary, "gc-restarted");
    const owner = await createConfigMap(client, ns, "owner");
    await createConfigMap(client, ns, "dependent", { ownerReferences: [referenceTo(owner, { blockOwnerDeletion: true })] });
    await kubectl(controlPlane, ["delete", "configmap", "owner", "-n", ns, "--cascade=foreground", "--wait=false"]);
    await waitUntil(async () => (await configMapNames(client, ns)).length === 0, "the foreground deletion to finish", 90_000);
    const logs = kubeLoomLogs();
    const warning = logs.find((line) => line.msg?.startsWith("not all resource monitors synced in time"));
    expect(warning?.unsynced).toEqual(["gadgets.v1.broken.example.com"]);
    // 30 s after the collector began to wait, which is a few seconds after the process started.
    const waitedSeconds = (Date.parse(warning?.time ?? "") - Date.parse(logs[0]?.time ?? "")) / 1000;
    expect(waitedSeconds).toBeGreaterThanOrEqual(30);
    expect(waitedSeconds).toBeLessThan(40);
  }, 180_000);
});

interface Ref {
  name: string;
  uid: string;
}

/** As the e2e's Pod: never scheduled (no kubelet here), so a DELETE removes it at once. */
function gcPod(name: string): ObjectOf<typeof resources.pods> {
  return { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "nginx", image: "registry.k8s.io/nginx-slim:0.27" }] } };
}

interface AuditEvent {
  verb: string;
  objectRef?: { namespace?: string; name?: string };
  responseStatus?: { code?: number };
}

/**
 * DELETE requests that took effect per Pod name in namespace `ns`, whoever sent them (the test
 * sends pod1's); one refused for its precondition changed nothing.
 */
function podDeletes(ns: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of readFileSync(join(auditDir, "audit.log"), "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const event = JSON.parse(line) as AuditEvent;
    const name = event.objectRef?.name;
    const tookEffect = (event.responseStatus?.code ?? 0) < 300;
    if (event.verb === "delete" && event.objectRef?.namespace === ns && name && tookEffect) counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

interface LogLine {
  /** ISO 8601. */
  time?: string;
  msg?: string;
  item?: unknown;
  propagationPolicy?: unknown;
  added?: unknown;
  unsynced?: unknown;
}

function kubeLoomLogs(): LogLine[] {
  return kubeLoom
    .logs()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogLine);
}

const openSchema = "schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }";

// One group, two kinds: Alpha in v1 (the group's preferred version), Beta only in v1alpha1.
const versionedGroupCrds = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: alphas.versions.example.com }
spec:
  group: versions.example.com
  scope: Namespaced
  names: { plural: alphas, singular: alpha, kind: Alpha }
  versions:
  - { name: v1, served: true, storage: true, ${openSchema} }
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: betas.versions.example.com }
spec:
  group: versions.example.com
  scope: Namespaced
  names: { plural: betas, singular: beta, kind: Beta }
  versions:
  - { name: v1alpha1, served: true, storage: true, ${openSchema} }
`;

/** Gadgets in v1beta1 only; with `webhook`, v1 is stored and served too, converted through a webhook. */
function gadgetCrd(webhook?: { closedPort: number; caPem: string }): string {
  const versions = webhook
    ? `
  - { name: v1, served: true, storage: true, ${openSchema} }
  - { name: v1beta1, served: true, storage: false, ${openSchema} }`
    : `
  - { name: v1beta1, served: true, storage: true, ${openSchema} }`;
  const conversion = webhook
    ? `
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig: { url: "https://127.0.0.1:${webhook.closedPort}/convert", caBundle: ${Buffer.from(webhook.caPem).toString("base64")} }`
    : "";
  return `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: gadgets.broken.example.com }
spec:
  group: broken.example.com
  scope: Namespaced
  names: { plural: gadgets, singular: gadget, kind: Gadget }${conversion}
  versions:${versions}
`;
}
