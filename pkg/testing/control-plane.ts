// A real etcd + kube-apiserver on loopback for integration tests, started with the flags
// controller-runtime's envtest gives them, from the programs envtest would find (binary-assets.ts).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseGoDuration } from "../options/go-duration.ts";
import { createFetch, type Fetch } from "../kube/transport.ts";
import { type ControlPlaneBinaries, findBinaryAssets } from "./binary-assets.ts";
import { captureOutput } from "./capture-output.ts";
import { type DaemonProcess, hasExited, logTail, spawnDaemon, stopDaemon } from "./daemon-process.ts";
import { freeLoopbackPorts } from "./free-ports.ts";
import { writeKubeconfig } from "./kubeconfig.ts";
import { createOwnedTempDir, removeOwnedTempDir } from "./owned-temp-dir.ts";
import { pollUntil } from "./poll-until.ts";
import { type ClientIdentity, createPki, type IssuedCertificate, issueClientCertificate, type Pki } from "./pki.ts";

/** How `ControlPlane.start` runs etcd and kube-apiserver. */
export interface ControlPlaneOptions {
  /** Fixed state folder, kept after stop() (etcd data survives restarts). Default: a fresh folder under /dev/shm, removed by stop(). */
  dir?: string | undefined;
  /** Appended after the defaults, so they override single-valued flags (e.g. `--watch-cache=false`). */
  extraApiserverArgs?: string[] | undefined;
  /**
   * Budget for etcd + apiserver to become ready. Default: KUBEBUILDER_CONTROLPLANE_START_TIMEOUT
   * (a Go duration such as "2m") if set, else 90 s (2-core machines are slow).
   */
  startTimeoutMs?: number | undefined;
  /** The programs to run; default: findBinaryAssets() (KUBEBUILDER_ASSETS and envtest's other rules). */
  binaries?: ControlPlaneBinaries | undefined;
  /**
   * Run the ServiceAccount admission plugin, which rejects Pods until their namespace has its
   * `default` ServiceAccount. Only for a control plane with a controller-manager to create those
   * (LocalCluster); default false.
   */
  serviceAccountAdmission?: boolean | undefined;
}

/** How a kubectl run ended. */
export interface KubectlResult {
  /** The exit code; 0 for success. */
  code: number;
  /** Everything it printed to stdout. */
  stdout: string;
  /** Everything it printed to stderr. */
  stderr: string;
}

/** Options of `ControlPlane.kubectl`. */
export interface KubectlOptions {
  /** Default: the admin kubeconfig. */
  kubeconfig?: string | undefined;
  /** Written to kubectl's stdin (e.g. for `apply -f -`). */
  stdin?: string | undefined;
}

/** What `ControlPlane.writeKubeconfig` puts in the file; by default, admin access to this control plane. */
export interface KubeconfigOptions {
  /** Default: the admin certificate. */
  client?: IssuedCertificate | undefined;
  /** A bearer token instead of a client certificate. */
  token?: string | undefined;
  /** Default: the control plane's CA; e.g. `pki.otherCa.certPem` for a kubeconfig that must fail TLS. */
  caPem?: string | undefined;
  /** Default: the apiserver's URL; e.g. a TcpProxy's `https://127.0.0.1:<port>`. */
  server?: string | undefined;
  /** Default: a new file in the control plane's folder. */
  path?: string | undefined;
  /** The context's namespace; default none (kubectl then uses "default"). */
  namespace?: string | undefined;
}

/** How to stop a process: SIGTERM lets it shut down, SIGKILL is a crash. */
export type StopSignal = "SIGTERM" | "SIGKILL";

const DEFAULT_START_TIMEOUT_MS = 90_000;
const START_TIMEOUT_VARIABLE = "KUBEBUILDER_CONTROLPLANE_START_TIMEOUT";

function startTimeoutFromEnvironment(): number {
  const text = process.env[START_TIMEOUT_VARIABLE];
  if (text === undefined || text === "") return DEFAULT_START_TIMEOUT_MS;
  const ms = parseGoDuration(text);
  if (ms === undefined || ms <= 0) throw new Error(`${START_TIMEOUT_VARIABLE}=${text}: expected a positive duration such as 90s or 2m`);
  return ms;
}

/**
 * A real etcd and kube-apiserver on loopback ports, with their own PKI, for tests that need more than
 * TestEnvironment gives (restarting the API server, compacting etcd, other identities). Start with `ControlPlane.start()`.
 */
export class ControlPlane {
  /** An admin kubeconfig (system:masters). */
  readonly kubeconfigPath: string;
  /** The API server's URL, https://127.0.0.1:<port>. */
  readonly server: string;
  /** etcd's client URL, http://127.0.0.1:<port>. */
  readonly etcdUrl: string;
  /** kube-apiserver's output. */
  readonly apiserverLogPath: string;
  /** etcd's output. */
  readonly etcdLogPath: string;
  #apiserver: DaemonProcess | undefined;
  #etcd: DaemonProcess | undefined;
  #stopped = false;
  #adminFetch: Promise<Fetch> | undefined;

  private constructor(
    /** The folder holding etcd's data, the PKI, logs and kubeconfigs. */
    readonly dir: string,
    /** The certificates and keys the control plane runs with. */
    readonly pki: Pki,
    private readonly ownsDir: boolean,
    private readonly binaries: ControlPlaneBinaries,
    private readonly ports: { apiserver: number; etcdClient: number; etcdPeer: number },
    private readonly extraApiserverArgs: string[],
    private readonly startTimeoutMs: number,
    private readonly serviceAccountAdmission: boolean,
  ) {
    this.server = `https://127.0.0.1:${ports.apiserver}`;
    this.etcdUrl = `http://127.0.0.1:${ports.etcdClient}`;
    this.kubeconfigPath = join(dir, "kubeconfig");
    this.apiserverLogPath = join(dir, "apiserver.log");
    this.etcdLogPath = join(dir, "etcd.log");
  }

  /**
   * Starts etcd, then kube-apiserver, and resolves once the API server serves. Throws, having stopped
   * whatever started, when a binary is missing or a process does not come up in time; the message ends
   * with the last lines of their logs.
   */
  static async start(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
    const binaries = options.binaries ?? findBinaryAssets();
    const startTimeoutMs = options.startTimeoutMs ?? startTimeoutFromEnvironment();
    const ownsDir = options.dir === undefined;
    const dir = options.dir ?? createOwnedTempDir();
    mkdirSync(dir, { recursive: true });
    const pki = await createPki(join(dir, "pki"));
    const ports = await freeLoopbackPorts(["apiserver", "etcdClient", "etcdPeer"] as const);
    const controlPlane = new ControlPlane(
      dir,
      pki,
      ownsDir,
      binaries,
      ports,
      options.extraApiserverArgs ?? [],
      startTimeoutMs,
      options.serviceAccountAdmission ?? false,
    );
    try {
      await controlPlane.#startEtcd();
      controlPlane.writeKubeconfig({ path: controlPlane.kubeconfigPath });
      await controlPlane.#launchApiserver();
    } catch (error) {
      const logs = controlPlane.#logTails();
      await controlPlane.stop();
      throw new Error(`control plane failed to start: ${error instanceof Error ? error.message : String(error)}\n${logs}`, { cause: error });
    }
    return controlPlane;
  }

  /** The running etcd and kube-apiserver processes (the benchmarks read their CPU time). */
  get pids(): number[] {
    return [this.#etcd, this.#apiserver].filter((daemon): daemon is DaemonProcess => daemon !== undefined && !hasExited(daemon)).map((daemon) => daemon.pid);
  }

  /** The PEM certificate of the CA that signs the API server's serving certificate. */
  get caPem(): string {
    return this.pki.ca.certPem;
  }

  /** The file holding `caPem`. */
  get caFile(): string {
    return this.pki.ca.certFile;
  }

  /** CN=admin, O=system:masters. */
  get admin(): IssuedCertificate {
    return this.pki.admin;
  }

  /** (Re)starts kube-apiserver on the same port against the same etcd, and waits until it serves. */
  async startApiserver(): Promise<void> {
    try {
      await this.#launchApiserver();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`${message}\n--- last lines of ${this.apiserverLogPath} ---\n${logTail(this.apiserverLogPath)}`, { cause: error });
    }
  }

  async #launchApiserver(): Promise<void> {
    if (this.#apiserver && !hasExited(this.#apiserver)) throw new Error("kube-apiserver is already running");
    const apiserver = spawnDaemon([this.binaries.kubeApiserver, ...this.#apiserverArgs()], this.apiserverLogPath);
    this.#apiserver = apiserver;
    const deadline = performance.now() + this.startTimeoutMs;
    const exitedEarly = () => (hasExited(apiserver) ? `kube-apiserver exited with ${apiserver.exitCode ?? apiserver.signalCode}` : undefined);
    await pollUntil("kube-apiserver /readyz", deadline, exitedEarly, async () => (await this.#adminGet("/readyz")).ok);
    // RBAC and the system namespaces are bootstrapped asynchronously; tests assume `default` exists.
    await pollUntil("namespace default", deadline, exitedEarly, async () => (await this.#adminGet("/api/v1/namespaces/default")).ok);
  }

  /** Stops kube-apiserver (SIGTERM = graceful, SIGKILL = crash); etcd keeps running. */
  async stopApiserver(options: { signal?: StopSignal } = {}): Promise<void> {
    if (this.#apiserver) await stopDaemon(this.#apiserver, options.signal);
  }

  /** Runs kubectl (the binaries' or the one on PATH) against this control plane, as admin unless another kubeconfig is given. */
  kubectl(args: string[], options: KubectlOptions = {}): Promise<KubectlResult> {
    const command = [this.binaries.kubectl ?? "kubectl", "--kubeconfig", options.kubeconfig ?? this.kubeconfigPath, ...args];
    return captureOutput(command, options.stdin === undefined ? {} : { stdin: options.stdin });
  }

  /** A client certificate, trusted by the apiserver, for `user` in `groups` (no RBAC rights unless granted). */
  issueClientCertificate(identity: ClientIdentity): Promise<IssuedCertificate> {
    return issueClientCertificate(this.pki.ca, identity);
  }

  /** Writes a kubeconfig (certificates embedded) and returns its path. */
  writeKubeconfig(options: KubeconfigOptions = {}): string {
    const path = options.path ?? join(this.dir, `kubeconfig-${crypto.randomUUID().slice(0, 8)}`);
    const client = options.client ?? this.pki.admin;
    writeKubeconfig(path, {
      server: options.server ?? this.server,
      caPem: options.caPem ?? this.caPem,
      credentials: options.token ? { token: options.token } : { clientCertPem: client.certPem, clientKeyPem: client.keyPem },
      ...(options.namespace ? { namespace: options.namespace } : {}),
    });
    return path;
  }

  /** etcd's current store revision (what the apiserver reports as resourceVersion). */
  async etcdRevision(): Promise<number> {
    // Any key works: the response header always carries the store revision.
    const response = await this.#etcdPost("/v3/kv/range", { key: btoa("/"), limit: 1 });
    const revision = Number((response as { header?: { revision?: string } }).header?.revision);
    if (!Number.isSafeInteger(revision)) throw new Error(`unexpected etcd range response: ${JSON.stringify(response)}`);
    return revision;
  }

  /**
   * Compacts etcd up to its current revision, so reads and watches that reach etcd with an
   * older resourceVersion get 410 Gone. Note the apiserver's watch cache may still serve
   * recent old versions itself; restart the apiserver or use `--watch-cache=false` to avoid that.
   * Returns the revision compacted to.
   */
  async compactEtcd(): Promise<number> {
    const revision = await this.etcdRevision();
    await this.#etcdPost("/v3/kv/compaction", { revision: String(revision), physical: true }, { alreadyCompactedIsOk: true });
    return revision;
  }

  /** Kills everything this control plane started; removes its folder unless it was given. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#apiserver) await stopDaemon(this.#apiserver, "SIGTERM", 5_000);
    if (this.#etcd) await stopDaemon(this.#etcd, "SIGTERM", 5_000);
    if (this.ownsDir) removeOwnedTempDir(this.dir);
  }

  async #startEtcd(): Promise<void> {
    const peerUrl = `http://127.0.0.1:${this.ports.etcdPeer}`;
    const etcd = spawnDaemon(
      [
        this.binaries.etcd,
        "--name=kube-loom-test",
        `--data-dir=${join(this.dir, "etcd-data")}`,
        `--listen-client-urls=${this.etcdUrl}`,
        `--advertise-client-urls=${this.etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=kube-loom-test=${peerUrl}`,
        // Test data is disposable; fsync would dominate write latency.
        "--unsafe-no-fsync=true",
      ],
      this.etcdLogPath,
    );
    this.#etcd = etcd;
    const exitedEarly = () => (hasExited(etcd) ? `etcd exited with ${etcd.exitCode ?? etcd.signalCode}` : undefined);
    await pollUntil("etcd /health", performance.now() + this.startTimeoutMs, exitedEarly, async () => {
      const response = await fetch(`${this.etcdUrl}/health`);
      return response.ok && ((await response.json()) as { health?: string }).health === "true";
    });
  }

  #apiserverArgs(): string[] {
    const { pki } = this;
    return [
      `--etcd-servers=${this.etcdUrl}`,
      `--secure-port=${this.ports.apiserver}`,
      "--bind-address=127.0.0.1",
      // Without it the apiserver advertises the default-route IP, which may not exist here. Since
      // v1.37 a loopback address is accepted only without the endpoint reconciler, which keeps the
      // `kubernetes` Service's endpoints: nothing here reaches the API server through that Service.
      "--advertise-address=127.0.0.1",
      "--endpoint-reconciler-type=none",
      `--tls-cert-file=${pki.apiserverServing.certFile}`,
      `--tls-private-key-file=${pki.apiserverServing.keyFile}`,
      `--client-ca-file=${pki.ca.certFile}`,
      "--service-cluster-ip-range=10.0.0.0/24",
      "--allow-privileged=true",
      // Without a controller-manager no namespace would ever get its default ServiceAccount.
      ...(this.serviceAccountAdmission ? [] : ["--disable-admission-plugins=ServiceAccount"]),
      "--authorization-mode=RBAC",
      `--service-account-issuer=${this.server}/`,
      `--service-account-key-file=${pki.serviceAccountPublicKeyFile}`,
      `--service-account-signing-key-file=${pki.serviceAccountPrivateKeyFile}`,
      ...this.extraApiserverArgs,
    ];
  }

  async #adminGet(path: string): Promise<Response> {
    // The runtime's own TLS client, as kube-loom's clients use it (Bun's fetch options are Bun's alone).
    this.#adminFetch ??= createFetch({ ca: this.caPem, cert: this.admin.certPem, key: this.admin.keyPem });
    const response = await (await this.#adminFetch)(`${this.server}${path}`, {});
    await response.arrayBuffer(); // drain, so the connection is released
    return response;
  }

  async #etcdPost(path: string, body: object, options: { alreadyCompactedIsOk?: boolean } = {}): Promise<unknown> {
    const response = await fetch(`${this.etcdUrl}${path}`, { method: "POST", body: JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) {
      if (options.alreadyCompactedIsOk && text.includes("required revision has been compacted")) return {};
      throw new Error(`etcd ${path} failed with HTTP ${response.status}: ${text}`);
    }
    return JSON.parse(text);
  }

  #logTails(): string {
    return [
      `--- last lines of ${this.etcdLogPath} ---`,
      logTail(this.etcdLogPath),
      `--- last lines of ${this.apiserverLogPath} ---`,
      logTail(this.apiserverLogPath),
    ].join("\n");
  }
}
