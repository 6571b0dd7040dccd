// A program built on kube-loom has an identity of its own: kube-loom and another program
// (test/fixtures/probe-manager) run with default leader-election flags against one API server,
// each elects its leader on a Lease named after itself, so both lead at once instead of taking
// turns. What each writes and reports carries its own name.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { waitUntil } from "../support/eventually.ts";
import { buildKubeLoom, isLeading, KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { fastClient } from "./informer-fixtures.ts";

type Lease = KubeObject & { spec?: { holderIdentity?: string } };
type LeaseEvent = KubeObject & { reason?: string; reportingController?: string; regarding?: { kind?: string; name?: string } };

let controlPlane: ControlPlane;
let admin: KubeClient;
let kubeLoomBinary: string;
let probeManagerBinary: string;
const processes: KubeLoomProcess[] = [];

beforeAll(async () => {
  [controlPlane, kubeLoomBinary, probeManagerBinary] = await Promise.all([
    ControlPlane.start(),
    buildKubeLoom(),
    buildKubeLoom("test/fixtures/probe-manager/main.ts"),
  ]);
  admin = await fastClient(controlPlane.kubeconfigPath);
}, 300_000);

afterAll(async () => {
  await Promise.all(processes.filter((p) => p.running).map((p) => p.stop("SIGKILL")));
  await controlPlane?.stop();
});

/** Leader election flags left at their defaults; only the controllers are narrowed, to keep the machine quiet. */
async function start(binary: string, name: string, controllers: string): Promise<KubeLoomProcess> {
  const instance = await KubeLoomProcess.start({ binary, kubeconfig: controlPlane.kubeconfigPath, logDir: join(controlPlane.dir, "logs"), name, args: [`--controllers=${controllers}`] });
  processes.push(instance);
  await instance.waitFor("/healthz");
  return instance;
}

function fieldManagers(object: KubeObject): string[] {
  return (object.metadata?.managedFields ?? []).map((entry) => (entry as { manager?: string }).manager ?? "");
}

async function metrics(instance: KubeLoomProcess): Promise<string> {
  return (await fetch(`${instance.url}/metrics`)).text();
}

describe("two different managers in one cluster", () => {
  test("with default flags hold two different Leases, both leading at once, each under its own name", async () => {
    const [kubeLoom, probeManager] = await Promise.all([
      start(kubeLoomBinary, "kube-loom", "replicaset"),
      start(probeManagerBinary, "probe-manager", "leader-probe"),
    ]);
    await waitUntil(async () => (await isLeading(kubeLoom)) && (await isLeading(probeManager)), "both leading", 60_000, 250);
    expect(await metrics(kubeLoom)).toContain('leader_election_master_status{name="kube-loom"} 1');
    expect(await metrics(probeManager)).toContain('leader_election_master_status{name="probe-manager"} 1');

    const leases = admin.dynamic.resource<Lease>(resources.leases, "kube-system");
    const [kubeLoomLease, probeManagerLease] = await Promise.all([leases.get("kube-loom"), leases.get("probe-manager")]);
    expect(kubeLoomLease.spec?.holderIdentity).toBeTruthy();
    expect(probeManagerLease.spec?.holderIdentity).toBeTruthy();
    expect(probeManagerLease.spec?.holderIdentity).not.toBe(kubeLoomLease.spec?.holderIdentity);
    // The API server names a writer's field manager after its user agent, up to the first "/".
    expect(fieldManagers(kubeLoomLease)).toEqual(["kube-loom"]);
    expect(fieldManagers(probeManagerLease)).toEqual(["probe-manager"]);

    // Each reports under its own name: version_info, the LeaderElection Event, its first log line.
    expect(await metrics(probeManager)).toMatch(/^version_info\{component="probe-manager",binary="0\.3\.0",/m);
    expect(await metrics(kubeLoom)).toMatch(/^version_info\{component="kube-loom",/m);
    const events = await admin.dynamic.resource<LeaseEvent>(resources.events, "kube-system").list({});
    const reporters = events.items.filter((e) => e.reason === "LeaderElection" && e.regarding?.kind === "Lease").map((e) => `${e.regarding?.name} ${e.reportingController}`);
    expect(reporters.sort()).toEqual(["kube-loom kube-loom", "probe-manager probe-manager"]);
    expect(probeManager.logs()).toContain('"msg":"starting probe-manager"');
    expect(kubeLoom.logs()).toContain('"msg":"starting kube-loom"');
  }, 180_000);

  test("the other program's --version and --help name it", async () => {
    const run = (args: string[]) => Bun.spawnSync([probeManagerBinary, ...args]).stdout.toString();
    expect(run(["--version"])).toBe("probe-manager v0.3.0\n");
    const help = run(["--help"]);
    expect(help).toContain("\nUsage:\n  probe-manager [flags]\n");
    expect(help).toMatch(/--leader-elect-resource-name string +Name of the Lease the election is held on\. \(default "probe-manager"\)/);
  });
});
