// A cluster minus kubelets: the test control plane plus kube-controller-manager (without the two
// controllers kube-loom replaces), kube-scheduler, and kwok keeping one fake Node on which Pods
// turn Running and Ready and from which deleted Pods are removed. For the main job
// (deploy/local.ts) and for tests that need Pods to run; tests that need only the API server
// keep using the bare ControlPlane, which starts in a fraction of the time.
import { join, resolve } from "node:path";
import { ensureBinaries, type LocalClusterBinaries } from "./binaries.ts";
import { ControlPlane, type ControlPlaneOptions } from "./control-plane.ts";
import { type DaemonProcess, hasExited, logTail, spawnDaemon, stopDaemon } from "./daemon-process.ts";
import { freeLoopbackPorts } from "./free-ports.ts";
import { pollUntil } from "./poll-until.ts";

/** The Node kwok plays; the only one, so every scheduled Pod lands there. */
export const FAKE_NODE_NAME = "kwok-node-0";

/**
 * The controllers kube-loom brings, switched off in kube-controller-manager; with them the
 * storage-version migrator, which reads kube-controller-manager's garbage-collector graph and
 * would otherwise start on an empty one.
 */
export const KUBE_CONTROLLER_MANAGER_CONTROLLERS = "*,-replicaset-controller,-garbage-collector-controller,-storage-version-migrator-controller";

// kwok manages only Nodes carrying this annotation, so it never touches a Node it did not get.
const KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node";
const KWOK_STAGES = resolve(import.meta.dir, "kwok-stages.yaml");
// kwokctl's default: kwok renews a Lease per Node, which is what the node-lifecycle controller watches.
const KWOK_NODE_LEASE_SECONDS = 40;

export interface LocalClusterOptions extends Omit<ControlPlaneOptions, "binaries" | "serviceAccountAdmission"> {
  /** Already built binaries; default: ensureBinaries({ withLocalCluster: true }). */
  binaries?: LocalClusterBinaries;
}

interface Component {
  name: string;
  daemon: DaemonProcess;
  logPath: string;
  /** Answers true once the component serves. */
  healthy: () => Promise<boolean>;
}

const DEFAULT_START_TIMEOUT_MS = 90_000;

export class LocalCluster {
  readonly #components: Component[] = [];
  #stopped = false;

  private constructor(
    readonly controlPlane: ControlPlane,
    private readonly startTimeoutMs: number,
  ) {}

  static async start(options: LocalClusterOptions = {}): Promise<LocalCluster> {
    const binaries = options.binaries ?? (await ensureBinaries({ withLocalCluster: true }));
    const controlPlane = await ControlPlane.start({ ...options, binaries, serviceAccountAdmission: true });
    const cluster = new LocalCluster(controlPlane, options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
    try {
      await cluster.#startComponents(binaries);
      await cluster.#waitUntilPodsCanRun();
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** Log file of each component besides etcd and kube-apiserver, by binary name. */
  get logPaths(): Record<string, string> {
    return Object.fromEntries(this.#components.map((component) => [component.name, component.logPath]));
  }

  /** Stops the components, then the control plane. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await Promise.all(this.#components.map((component) => stopDaemon(component.daemon, "SIGTERM", 5_000)));
    await this.controlPlane.stop();
  }

  async #startComponents(binaries: LocalClusterBinaries): Promise<void> {
    const { controlPlane } = this;
    const ports = await freeLoopbackPorts(["controllerManager", "scheduler", "kwok"] as const);
    // Each under its own bootstrap identity, whose RBAC roles the API server creates (as kubeadm runs them).
    const [controllerManagerKubeconfig, schedulerKubeconfig] = await Promise.all(
      ["system:kube-controller-manager", "system:kube-scheduler"].map(async (user) =>
        controlPlane.writeKubeconfig({ client: await controlPlane.issueClientCertificate({ user }) }),
      ),
    );
    // Both serve HTTPS with a certificate they make up in memory; a loopback health probe need not verify it.
    const httpsHealthz = (port: number) => async () =>
      (await fetch(`https://127.0.0.1:${port}/healthz`, { tls: { rejectUnauthorized: false } })).ok;
    this.#launch(
      "kube-controller-manager",
      [
        binaries.kubeControllerManager,
        `--kubeconfig=${controllerManagerKubeconfig}`,
        `--controllers=${KUBE_CONTROLLER_MANAGER_CONTROLLERS}`,
        "--leader-elect=false",
        "--bind-address=127.0.0.1",
        `--secure-port=${ports.controllerManager}`,
        // Every controller under its own ServiceAccount, with tokens the API server signs.
        "--use-service-account-credentials=true",
        `--service-account-private-key-file=${controlPlane.pki.serviceAccountPrivateKeyFile}`,
        `--root-ca-file=${controlPlane.caFile}`,
      ],
      httpsHealthz(ports.controllerManager),
    );
    this.#launch(
      "kube-scheduler",
      [
        binaries.kubeScheduler,
        `--kubeconfig=${schedulerKubeconfig}`,
        "--leader-elect=false",
        "--bind-address=127.0.0.1",
        `--secure-port=${ports.scheduler}`,
      ],
      httpsHealthz(ports.scheduler),
    );
    this.#launch(
      "kwok",
      [
        binaries.kwok,
        `--kubeconfig=${controlPlane.kubeconfigPath}`,
        `--config=${KWOK_STAGES}`,
        "--manage-all-nodes=false",
        `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
        `--node-lease-duration-seconds=${KWOK_NODE_LEASE_SECONDS}`,
        // The fake Node's InternalIP, and so its Pods' hostIP.
        "--node-ip=127.0.0.1",
        `--server-address=127.0.0.1:${ports.kwok}`,
      ],
      async () => (await fetch(`http://127.0.0.1:${ports.kwok}/healthz`)).ok,
      // kwok also reads $KWOK_WORKDIR/kwok.yaml (default ~/.kwok): keep a user's file out of it.
      { KWOK_WORKDIR: join(controlPlane.dir, "kwok") },
    );
    await Promise.all(this.#components.map((component) => this.#waitUntilHealthy(component)));
  }

  #launch(name: string, command: string[], healthy: () => Promise<boolean>, env: Record<string, string> = {}): void {
    const logPath = join(this.controlPlane.dir, `${name}.log`);
    this.#components.push({ name, daemon: spawnDaemon(command, logPath, env), logPath, healthy });
  }

  async #waitUntilHealthy({ name, daemon, logPath, healthy }: Component): Promise<void> {
    const exited = () => (hasExited(daemon) ? `${name} exited with ${daemon.exitCode ?? daemon.signalCode}` : undefined);
    try {
      await pollUntil(`${name} /healthz`, performance.now() + this.startTimeoutMs, exited, healthy);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`${name} failed to start: ${reason}; its log: ${logPath}\n--- last lines of ${logPath} ---\n${logTail(logPath)}`, { cause: error });
    }
  }

  /** Registers the fake Node, then waits until a Pod in `default` would be admitted, scheduled and run. */
  async #waitUntilPodsCanRun(): Promise<void> {
    const node = {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: FAKE_NODE_NAME,
        annotations: { [KWOK_NODE_ANNOTATION]: "fake" },
        labels: { "kubernetes.io/hostname": FAKE_NODE_NAME, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", type: "kwok" },
      },
    };
    const created = await this.controlPlane.kubectl(["create", "-f", "-"], { stdin: JSON.stringify(node) });
    if (created.code !== 0) throw new Error(`creating the fake Node ${FAKE_NODE_NAME} failed: ${created.stderr.trim()}`);

    const deadline = performance.now() + this.startTimeoutMs;
    const componentExited = () => {
      const dead = this.#components.find((component) => hasExited(component.daemon));
      return dead && `${dead.name} exited with ${dead.daemon.exitCode ?? dead.daemon.signalCode} (log: ${dead.logPath})`;
    };
    // kwok marks it Ready; the node-lifecycle controller then lifts the not-ready taint new Nodes get on admission.
    await pollUntil(`Node ${FAKE_NODE_NAME} Ready without taints (kwok's log: ${this.logPaths.kwok})`, deadline, componentExited, async () => {
      const { status, spec } = (await this.#get(`/api/v1/nodes/${FAKE_NODE_NAME}`)) as NodeFields;
      const ready = status?.conditions?.some((condition) => condition.type === "Ready" && condition.status === "True");
      return ready === true && (spec?.taints ?? []).length === 0;
    });
    // The ServiceAccount admission plugin turns Pods away until their namespace has this one.
    await pollUntil("ServiceAccount default/default", deadline, componentExited, async () => {
      await this.#get("/api/v1/namespaces/default/serviceaccounts/default");
      return true;
    });
  }

  async #get(path: string): Promise<unknown> {
    const { controlPlane } = this;
    const response = await fetch(`${controlPlane.server}${path}`, {
      tls: { ca: controlPlane.caPem, cert: controlPlane.admin.certPem, key: controlPlane.admin.keyPem },
    });
    if (!response.ok) throw new Error(`GET ${path}: HTTP ${response.status} ${await response.text()}`);
    return response.json();
  }
}

interface NodeFields {
  spec?: { taints?: unknown[] };
  status?: { conditions?: { type: string; status: string }[] };
}
