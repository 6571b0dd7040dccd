// deploy/ as an operator meets it: the kustomize manifests against a real API server, each
// controller's ClusterRole as the compiled binary needs it (enough, and no rule to spare), and
// the Prometheus alerting rules under promtool.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseAllDocuments, stringify as stringifyYaml } from "yaml";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { applyNetwork, counterTotal, getNetwork, isReady, kubectlOk, testClient, waitFor } from "../network/network-fixture.ts";
import { waitUntil } from "../support/eventually.ts";
import { buildKubeLoom, KubeLoomProcess } from "../support/kube-loom-binary.ts";

const repoRoot = resolve(import.meta.dir, "../..");
const monitoringDir = join(repoRoot, "deploy/monitoring");

async function run(command: string[]): Promise<{ code: number; output: string }> {
  const child = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, output: stdout + stderr };
}

describe("deploy/monitoring alerting rules", () => {
  test("promtool check rules accepts them", async () => {
    const result = await run(["promtool", "check", "rules", join(monitoringDir, "kube-loom-alerts.yaml")]);
    expect(result).toMatchObject({ code: 0 });
    expect(result.output).toContain("SUCCESS: 6 rules found");
  });

  test("promtool test rules: each alert fires on its symptom and stays quiet when healthy", async () => {
    const testFiles = readdirSync(monitoringDir).filter((file) => file.endsWith("-test.yaml"));
    expect(testFiles.length).toBeGreaterThan(0);
    const result = await run(["promtool", "test", "rules", ...testFiles.map((file) => join(monitoringDir, file))]);
    expect(result).toMatchObject({ code: 0 });
    expect(result.output).not.toContain("FAILED");
  });
});

interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
}

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  rules?: PolicyRule[];
  spec?: Record<string, unknown>;
}

interface ContainerPort {
  name?: string;
  containerPort: number;
}

interface HttpProbe {
  httpGet: { path: string; port: string | number; scheme?: string };
}

interface Container {
  name: string;
  image?: string;
  args?: string[];
  ports?: ContainerPort[];
  livenessProbe?: HttpProbe;
  readinessProbe?: HttpProbe;
}

interface ServicePort {
  name?: string;
  port: number;
  targetPort?: string | number;
}

interface ServiceMonitorEndpoint {
  port?: string;
  scheme?: string;
  path?: string;
  interval?: string;
  bearerTokenFile?: string;
  tlsConfig?: { insecureSkipVerify?: boolean };
}

const kustomizations = {
  all: join(repoRoot, "deploy/kubernetes"),
  replicasetAndGc: join(repoRoot, "deploy/kubernetes/overlays/replicaset-gc"),
  serviceMonitor: join(repoRoot, "deploy/kubernetes/overlays/service-monitor"),
  serviceAccountCredentials: join(repoRoot, "deploy/kubernetes/overlays/service-account-credentials"),
  sharded: join(repoRoot, "deploy/kubernetes/overlays/sharded"),
} as const;

const controllers = ["replicaset", "garbagecollector", "network"] as const;
type ControllerName = (typeof controllers)[number];

const controllerRoleName = (controller: ControllerName) => `kube-loom:controller:${controller}`;

/** The rules of a controller's ClusterRole as shipped (read at load time: one test per rule). */
function shippedRules(controller: ControllerName): PolicyRule[] {
  const file = join(kustomizations.all, "base", `${controller}-role.yaml`);
  const documents = parseAllDocuments(readFileSync(file, "utf8")).map((d) => d.toJS() as Manifest);
  const role = documents.find((m) => m.kind === "ClusterRole" && m.metadata.name === controllerRoleName(controller));
  if (!role?.rules) throw new Error(`no ClusterRole ${controllerRoleName(controller)} in ${file}`);
  return role.rules;
}

const describeRule = (rule: PolicyRule) => `${rule.verbs.join(",")} ${(rule.resources ?? []).join(",")}`;

/** How the API server words its refusal of what `rule` allowed (quotes may be escaped in a JSON log line). */
function refusal(rule: PolicyRule): RegExp {
  const resource = rule.resources?.[0] ?? "";
  // OwnerReferencesPermissionEnforcement names neither verb nor resource, only what it is about.
  if (resource.endsWith("/finalizers")) return /cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on/;
  const named = resource === "*" ? "[a-z0-9.]+" : resource.replaceAll(".", "\\.");
  return new RegExp(`cannot (${rule.verbs.join("|")}) resource \\\\?"${named}\\\\?"`);
}

/** The garbage collector's monitors are not part of /readyz (reported to the lead): its refused lists show in the log only. */
const readyzNamesInformersOf = (controller: ControllerName) => controller !== "garbagecollector";

const leading = /^leader_election_master_status\{name="kube-loom"\} 1$/m;
const namespace = "deploy-test";
const otherNamespace = "deploy-test-other";

describe("deploy/kubernetes", () => {
  let controlPlane: ControlPlane;
  let binary: string;

  beforeAll(async () => {
    [controlPlane, binary] = await Promise.all([
      // Stricter than the default admission chain, as on many production clusters: an ownerReference
      // with blockOwnerDeletion then needs update on the owner's finalizers, so that rule is tested too.
      ControlPlane.start({ extraApiserverArgs: ["--enable-admission-plugins=OwnerReferencesPermissionEnforcement"] }),
      buildKubeLoom(),
    ]);
    await kubectlOk(controlPlane, ["create", "namespace", namespace]);
    await kubectlOk(controlPlane, ["create", "namespace", otherNamespace]);
  }, 300_000);

  afterAll(async () => {
    await controlPlane?.stop();
  });

  // Applied for real once, by the first test that runs kube-loom (the dry runs see an empty cluster).
  let baseApplied: Promise<void> | undefined;
  function applyBase(): Promise<void> {
    baseApplied ??= (async () => {
      await kubectlOk(controlPlane, ["apply", "--server-side", "-k", kustomizations.all]);
      await kubectlOk(controlPlane, ["wait", "--for=condition=Established", "crd/networks.samplecrd.k8s.io", "--timeout=60s"]);
    })();
    return baseApplied;
  }

  async function build(kustomization: string): Promise<Manifest[]> {
    const yaml = await kubectlOk(controlPlane, ["kustomize", kustomization]);
    return parseAllDocuments(yaml).map((document) => document.toJS() as Manifest);
  }

  function find(manifests: Manifest[], kind: string, name: string): Manifest {
    const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
    if (!found) throw new Error(`no ${kind} ${name} in the build`);
    return found;
  }

  function container(deployment: Manifest): Container {
    const spec = deployment.spec as { template: { spec: { containers: Container[] } } };
    const found = spec.template.spec.containers.find((c) => c.name === "kube-loom");
    if (!found) throw new Error("the Deployment has no kube-loom container");
    return found;
  }

  async function serverDryRun(args: string[], stdin?: string): Promise<void> {
    const result = await controlPlane.kubectl(["apply", "--server-side", "--dry-run=server", ...args], stdin === undefined ? {} : { stdin });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
  }

  /** A ServiceAccount in kube-system bound to the leader-election Role and to `clusterRoles`; returns a kubeconfig with its token. */
  async function serviceAccountWith(name: string, clusterRoles: string[]): Promise<string> {
    const subject = { kind: "ServiceAccount", name, namespace: "kube-system" };
    const objects = [
      { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace: "kube-system" } },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name, namespace: "kube-system" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "kube-loom-leader-election" },
        subjects: [subject],
      },
      ...clusterRoles.map((role) => ({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: `${name}:${role}` },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
        subjects: [subject],
      })),
    ];
    await kubectlOk(controlPlane, ["apply", "-f", "-"], objects.map((o) => stringifyYaml(o)).join("---\n"));
    const token = (await kubectlOk(controlPlane, ["create", "token", name, "-n", "kube-system"])).trim();
    return controlPlane.writeKubeconfig({ token });
  }

  async function metrics(kubeLoom: KubeLoomProcess): Promise<string> {
    return (await fetch(`${kubeLoom.url}/metrics`)).text();
  }

  /** Runs the binary as `kubeconfig`'s identity until `body` is done; it must then stop cleanly. */
  async function withKubeLoom(kubeconfig: string, name: string, args: string[], body: (kubeLoom: KubeLoomProcess) => Promise<void>): Promise<void> {
    const kubeLoom = await KubeLoomProcess.start({ binary, kubeconfig, logDir: controlPlane.dir, name, args });
    try {
      await body(kubeLoom);
    } finally {
      await kubeLoom.stopCleanly();
    }
  }

  async function leadsAndGetsReady(kubeLoom: KubeLoomProcess): Promise<void> {
    await kubeLoom.waitFor("/readyz", 90_000);
    await waitUntil(async () => leading.test(await metrics(kubeLoom)), "kube-loom leading", 60_000);
  }

  async function expectNeverForbidden(kubeLoom: KubeLoomProcess): Promise<void> {
    expect(counterTotal(await metrics(kubeLoom), "rest_client_requests_total", 'code="403"')).toBe(0);
  }

  async function getJson<T>(args: string[]): Promise<T> {
    return JSON.parse(await kubectlOk(controlPlane, ["get", "-o", "json", ...args])) as T;
  }

  function replicaSetManifest(name: string): string {
    const labels = { app: name };
    return stringifyYaml({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: { name, namespace },
      spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "web", image: "web:1" }] } } },
    });
  }

  interface Owned {
    metadata: { name: string; uid: string; ownerReferences?: { uid: string }[] };
    status?: { replicas?: number };
  }

  /** A ReplicaSet gets its 2 Pods and a status that counts them. */
  async function replicaSetGetsItsPods(name: string): Promise<void> {
    await kubectlOk(controlPlane, ["apply", "-f", "-"], replicaSetManifest(name));
    const rs = await getJson<Owned>(["-n", namespace, "replicaset", name]);
    await waitFor(
      `ReplicaSet ${name} with 2 Pods counted in its status`,
      async () => {
        const pods = await getJson<{ items: Owned[] }>(["-n", namespace, "pods", "-l", `app=${name}`]);
        const owned = pods.items.filter((pod) => pod.metadata.ownerReferences?.some((ref) => ref.uid === rs.metadata.uid));
        const status = (await getJson<Owned>(["-n", namespace, "replicaset", name])).status;
        return { owned: owned.length, statusReplicas: status?.replicas ?? 0 };
      },
      (seen) => seen.owned === 2 && seen.statusReplicas === 2,
    );
  }

  /** A foreground deletion: the garbage collector deletes the dependent, then lets the owner go. */
  async function ownedObjectIsCollected(name: string): Promise<void> {
    await kubectlOk(controlPlane, ["-n", namespace, "create", "configmap", name]);
    const owner = await getJson<Owned>(["-n", namespace, "configmap", name]);
    const dependent = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: `${name}-dependent`,
        namespace,
        ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name, uid: owner.metadata.uid, blockOwnerDeletion: true }],
      },
    };
    await kubectlOk(controlPlane, ["apply", "-f", "-"], stringifyYaml(dependent));
    await kubectlOk(controlPlane, ["-n", namespace, "delete", "configmap", name, "--cascade=foreground", "--wait=false"]);
    await waitFor(
      `ConfigMaps ${name} and ${name}-dependent gone`,
      async () => (await getJson<{ items: Owned[] }>(["-n", namespace, "configmaps"])).items.map((cm) => cm.metadata.name),
      (names) => !names.includes(name) && !names.includes(`${name}-dependent`),
    );
  }

  async function networkGetsReady(name: string): Promise<void> {
    expect((await applyNetwork(controlPlane, namespace, name, { cidr: "10.20.0.0/24", gateway: "10.20.0.1" })).code).toBe(0);
    const client = await testClient(controlPlane);
    await waitFor(`Network ${name} Ready`, () => getNetwork(client, namespace, name), isReady);
  }

  const doesItsJob: Record<ControllerName, (name: string) => Promise<void>> = {
    replicaset: replicaSetGetsItsPods,
    garbagecollector: ownedObjectIsCollected,
    network: networkGetsReady,
  };

  test("the base and the replicaset-gc, service-account-credentials and sharded overlays pass kubectl apply --server-side --dry-run=server", async () => {
    await serverDryRun(["-k", kustomizations.all]);
    await serverDryRun(["-k", kustomizations.replicasetAndGc]);
    await serverDryRun(["-k", kustomizations.serviceAccountCredentials]);
    // A dry run creates no namespace, so the ring's own is made first.
    await controlPlane.kubectl(["create", "namespace", "kube-loom-shards"]);
    await serverDryRun(["-k", kustomizations.sharded]);
  });

  test("the sharded overlay runs three ring members whose Lease rights stay in the ring's own namespace, one of them down at a time at most", async () => {
    const manifests = await build(kustomizations.sharded);
    const deployment = find(manifests, "Deployment", "kube-loom");
    expect((deployment.spec as { replicas: number }).replicas).toBe(3);
    expect(container(deployment).args).toEqual(["--controllers=*", "--shard-ring=kube-loom", "--leader-elect-resource-namespace=kube-loom-shards"]);
    expect(find(manifests, "PodDisruptionBudget", "kube-loom").spec).toEqual({ maxUnavailable: 1, selector: { matchLabels: { "app.kubernetes.io/name": "kube-loom" } } });
    const role = find(manifests, "Role", "kube-loom-shard-ring");
    expect(role.metadata.namespace).toBe("kube-loom-shards");
    // Members elect no leader: the base's Role on kube-system's Leases (and its Events) goes, binding included.
    const grantsLeases = (m: Manifest) => m.rules?.some((rule) => rule.resources?.includes("leases")) ?? false;
    expect(manifests.filter((m) => m.kind === "Role" && grantsLeases(m)).map((m) => `${m.metadata.namespace}/${m.metadata.name}`)).toEqual([
      "kube-loom-shards/kube-loom-shard-ring",
    ]);
    expect(manifests.filter((m) => m.metadata.name === "kube-loom-leader-election")).toEqual([]);
    expect(find(manifests, "Namespace", "kube-loom-shards")).toBeDefined();
    // Shares are balanced over the namespaces, which every member lists and watches.
    expect(find(manifests, "ClusterRole", "kube-loom-shard-ring-namespaces").rules).toEqual([{ apiGroups: [""], resources: ["namespaces"], verbs: ["list", "watch"] }]);
  });

  test("the service-account-credentials overlay binds each controller's role to the controller's own account", async () => {
    const manifests = await build(kustomizations.serviceAccountCredentials);
    expect(container(find(manifests, "Deployment", "kube-loom")).args).toContain("--use-service-account-credentials");
    const subjectOf = (controller: ControllerName) =>
      (find(manifests, "ClusterRoleBinding", controllerRoleName(controller)) as unknown as { subjects: { name: string }[] }).subjects[0]?.name;
    expect([subjectOf("replicaset"), subjectOf("garbagecollector"), subjectOf("network")]).toEqual([
      "replicaset-controller",
      "generic-garbage-collector",
      "network-controller",
    ]);
  });

  test("the base probes /livez and /readyz over HTTPS on 10257, keeps one replica through disruptions, spreads replicas over zones and nodes, and serves metrics there", async () => {
    const manifests = await build(kustomizations.all);
    const deployment = find(manifests, "Deployment", "kube-loom");
    expect((deployment.spec as { replicas: number }).replicas).toBe(2);
    const kubeLoom = container(deployment);
    // Published nowhere: README's "In a cluster" has it built, pushed, and swapped in by this name (kustomize edit set image kube-loom=…).
    expect(kubeLoom.image).toBe("kube-loom:dev");
    expect(kubeLoom.ports).toEqual([{ name: "https", containerPort: 10257 }]);
    expect(kubeLoom.livenessProbe?.httpGet).toEqual({ path: "/livez", port: "https", scheme: "HTTPS" });
    expect(kubeLoom.readinessProbe?.httpGet).toEqual({ path: "/readyz", port: "https", scheme: "HTTPS" });
    expect(find(manifests, "PodDisruptionBudget", "kube-loom").spec).toMatchObject({ minAvailable: 1 });
    // Replicas spread over zones, then nodes, where there are several; never left Pending for it.
    const podSpec = (deployment.spec as { template: { spec: { topologySpreadConstraints?: unknown[] } } }).template.spec;
    const ownPods = { matchLabels: { "app.kubernetes.io/name": "kube-loom" } };
    expect(podSpec.topologySpreadConstraints).toEqual([
      { maxSkew: 1, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "ScheduleAnyway", labelSelector: ownPods },
      { maxSkew: 1, topologyKey: "kubernetes.io/hostname", whenUnsatisfiable: "ScheduleAnyway", labelSelector: ownPods },
    ]);
    const service = find(manifests, "Service", "kube-loom").spec as { ports: ServicePort[] };
    expect(service.ports).toEqual([expect.objectContaining({ name: "https", port: 10257, targetPort: "https" })]);
  });

  test("the replicaset-gc overlay runs only those two controllers and holds no network rights", async () => {
    const manifests = await build(kustomizations.replicasetAndGc);
    expect(container(find(manifests, "Deployment", "kube-loom")).args).toContain("--controllers=replicaset,garbagecollector");
    const clusterRoles = manifests.filter((m) => m.kind === "ClusterRole").map((m) => m.metadata.name);
    expect(clusterRoles.sort()).toEqual(["kube-loom:auth-delegator", controllerRoleName("garbagecollector"), controllerRoleName("replicaset")]);
    expect(manifests.filter((m) => m.kind === "CustomResourceDefinition")).toEqual([]);
  });

  // The test control plane has no monitoring.coreos.com CRDs (nor a way to fetch them), so the
  // ServiceMonitor is checked here against the objects it must match; the rest of the overlay
  // goes through the API server.
  test("the service-monitor overlay scrapes the metrics Service's https port with a bearer token, and the rest dry-runs", async () => {
    const manifests = await build(kustomizations.serviceMonitor);
    const serviceMonitor = find(manifests, "ServiceMonitor", "kube-loom");
    const service = find(manifests, "Service", "kube-loom");
    expect(serviceMonitor.apiVersion).toBe("monitoring.coreos.com/v1");
    const spec = serviceMonitor.spec as {
      selector: { matchLabels: Record<string, string> };
      namespaceSelector: { matchNames: string[] };
      endpoints: ServiceMonitorEndpoint[];
    };
    expect(service.metadata.labels).toMatchObject(spec.selector.matchLabels);
    expect(spec.namespaceSelector.matchNames).toEqual([service.metadata.namespace ?? ""]);
    const servicePorts = (service.spec as { ports: ServicePort[] }).ports.map((p) => p.name);
    expect(spec.endpoints).toEqual([
      {
        port: "https",
        scheme: "https",
        path: "/metrics",
        interval: "30s",
        bearerTokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token",
        tlsConfig: { insecureSkipVerify: true },
      },
    ]);
    expect(servicePorts).toContain(spec.endpoints[0]?.port);
    const rest = manifests.filter((m) => m !== serviceMonitor);
    await serverDryRun(["-f", "-"], rest.map((m) => stringifyYaml(m)).join("---\n"));
  });

  test("as the kube-loom ServiceAccount with every role it leads, gets ready and is never forbidden", async () => {
    await applyBase();
    const token = (await kubectlOk(controlPlane, ["create", "token", "kube-loom", "-n", "kube-system"])).trim();
    await withKubeLoom(controlPlane.writeKubeconfig({ token }), "service-account", [], async (kubeLoom) => {
      await leadsAndGetsReady(kubeLoom);
      await expectNeverForbidden(kubeLoom);
    });
  }, 180_000);

  // Each controller alone, with only its own ClusterRole (plus the shared leader-election Role).
  for (const controller of controllers) {
    test(`${controllerRoleName(controller)} is enough for --controllers=${controller}: it leads, gets ready and does its job`, async () => {
      await applyBase();
      const kubeconfig = await serviceAccountWith(`only-${controller}`, [controllerRoleName(controller)]);
      await withKubeLoom(kubeconfig, `only-${controller}`, [`--controllers=${controller}`], async (kubeLoom) => {
        await leadsAndGetsReady(kubeLoom);
        await doesItsJob[controller](`only-${controller}`);
        await expectNeverForbidden(kubeLoom);
      });
    }, 180_000);
  }

  /** A dependent in another namespace than its owner: the garbage collector warns with an Event (OwnerRefInvalidNamespace). */
  async function ownerInAnotherNamespace(name: string): Promise<void> {
    await kubectlOk(controlPlane, ["-n", otherNamespace, "create", "configmap", name]);
    const owner = await getJson<Owned>(["-n", otherNamespace, "configmap", name]);
    const dependent = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `${name}-dependent`, namespace, ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name, uid: owner.metadata.uid }] },
    };
    await kubectlOk(controlPlane, ["apply", "-f", "-"], stringifyYaml(dependent));
  }

  /** Work that needs every rule of the controller's role (reads, writes and Events). */
  const provoke: Record<ControllerName, (name: string) => Promise<unknown>> = {
    replicaset: (name) => kubectlOk(controlPlane, ["apply", "-f", "-"], replicaSetManifest(name)),
    garbagecollector: ownerInAnotherNamespace,
    network: (name) => applyNetwork(controlPlane, namespace, name, { cidr: "10.30.0.0/24", gateway: "10.30.0.1" }),
  };

  // "Exactly enough": each rule is there because something breaks without it, and what breaks is
  // visible to an operator: the log or /readyz names what the API server refused, while the
  // process keeps running (no crash loop) and retries with backoff (no hot loop).
  for (const controller of controllers) {
    for (const [index, removed] of shippedRules(controller).entries()) {
      test(`without the rule "${describeRule(removed)}", the ${controller} controller says it is forbidden and keeps running`, async () => {
        await applyBase();
        const name = `${controller}-without-${index}`;
        const rules = shippedRules(controller).filter((_, i) => i !== index);
        await kubectlOk(controlPlane, ["apply", "-f", "-"], stringifyYaml({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name }, rules }));
        const kubeconfig = await serviceAccountWith(name, [name]);
        const forbidden = refusal(removed);
        await withKubeLoom(kubeconfig, name, [`--controllers=${controller}`], async (kubeLoom) => {
          await kubeLoom.waitFor("/healthz");
          await provoke[controller](name);
          const readyz = async () => (await fetch(`${kubeLoom.url}/readyz/informer-sync`)).text();
          await waitUntil(async () => forbidden.test(kubeLoom.logs()) || forbidden.test(await readyz()), `${forbidden} in the log or /readyz/informer-sync`, 60_000);
          if (removed.verbs.includes("list")) {
            // An informer that may not list: the reflector logs each refused attempt, and /readyz says which informer waits and why.
            await waitUntil(() => forbidden.test(kubeLoom.logs()), `${forbidden} in the log`, 30_000);
            if (readyzNamesInformersOf(controller)) await waitUntil(async () => forbidden.test(await readyz()), `${forbidden} in /readyz/informer-sync`, 30_000);
          }
          // Retries back off: a few refusals a second at most, where a hot loop would make thousands.
          const refusedBefore = counterTotal(await metrics(kubeLoom), "rest_client_requests_total", 'code="403"');
          await Bun.sleep(5_000);
          expect(counterTotal(await metrics(kubeLoom), "rest_client_requests_total", 'code="403"') - refusedBefore).toBeLessThan(500);
          expect(kubeLoom.running).toBe(true);
          expect((await fetch(`${kubeLoom.url}/livez`)).status).toBe(200);
        });
      }, 180_000);
    }
  }
});
