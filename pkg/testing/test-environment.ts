// envtest for kube-loom: a real etcd and kube-apiserver for a test file, CRDs installed and
// served, an admin client, a fresh namespace per test, and controllers run in the test's own
// process as the manager would run them. One stop() ends it all: controllers, processes, files.
import { loadClientConfig } from "../kube/client-config.ts";
import { createKubeClient, type KubeClient } from "../kube/client.ts";
import { resources } from "../kube/gvr.ts";
import type { ApiContentType } from "../kube/protobuf/media-types.ts";
import type { ControllerDescriptor } from "../manager/controller-descriptor.ts";
import type { ControlPlaneBinaries } from "./binary-assets.ts";
import type { CustomResourceDefinition } from "./crd-files.ts";
import { ControlPlane } from "./control-plane.ts";
import { installCrds, type InstallCrdsOptions } from "./install-crds.ts";
import { type RunningControllers, type RunOptions, runControllers, TEST_CLIENT_RATE } from "./run-controllers.ts";
import { testContentType } from "./test-content-type.ts";

/** How `TestEnvironment.start` sets up the control plane. */
export interface TestEnvironmentOptions {
  /** CRD files or folders of them, installed and served before start() resolves. */
  crds?: readonly string[] | undefined;
  /** The programs to run; default: found by envtest's rules (KUBEBUILDER_ASSETS, TEST_ASSET_ETCD, TEST_ASSET_KUBE_APISERVER). */
  binaries?: ControlPlaneBinaries | undefined;
  /** kube-apiserver flags added after the defaults, e.g. `["--feature-gates=…"]`. */
  apiserverArgs?: readonly string[] | undefined;
  /** Budget for etcd and kube-apiserver to come up; default KUBEBUILDER_CONTROLPLANE_START_TIMEOUT or 90 s. */
  startTimeoutMs?: number | undefined;
  /**
   * The encoding the admin client, and so the controllers `run` starts, asks for built-in resources
   * (`--kube-api-content-type`); default KUBE_LOOM_TEST_CONTENT_TYPE or protobuf.
   */
  contentType?: ApiContentType | undefined;
}

const CLIENT_TIMEOUT_MS = 30_000;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** A namespace name is one DNS label (at most 63 characters); the random suffix takes 7. */
const MAX_PREFIX_LENGTH = 56;

/**
 * A real etcd and kube-apiserver for a test, with CRDs installed, an admin client, namespaces on demand,
 * and controllers run in the test's process. Start one per test file (`TestEnvironment.start()`), and stop it after.
 */
export class TestEnvironment {
  readonly #running = new Set<RunningControllers>();

  private constructor(
    /** etcd and kube-apiserver, with their logs, PKI and kubectl. */
    readonly controlPlane: ControlPlane,
    /** Acts as admin (system:masters). */
    readonly client: KubeClient,
  ) {}

  /** Starts etcd and kube-apiserver and installs `options.crds`. */
  static async start(options: TestEnvironmentOptions = {}): Promise<TestEnvironment> {
    const contentType = options.contentType ?? testContentType();
    const controlPlane = await ControlPlane.start({
      ...(options.binaries ? { binaries: options.binaries } : {}),
      ...(options.apiserverArgs ? { extraApiserverArgs: [...options.apiserverArgs] } : {}),
      ...(options.startTimeoutMs === undefined ? {} : { startTimeoutMs: options.startTimeoutMs }),
    });
    try {
      const config = loadClientConfig({ kubeconfig: controlPlane.kubeconfigPath });
      const client = await createKubeClient(config, { ...TEST_CLIENT_RATE, timeoutMs: CLIENT_TIMEOUT_MS, contentType });
      const env = new TestEnvironment(controlPlane, client);
      if (options.crds && options.crds.length > 0) await env.installCrds(options.crds);
      return env;
    } catch (error) {
      await controlPlane.stop();
      throw error;
    }
  }

  /** An admin kubeconfig file, for kubectl or a controller started as a process of its own. */
  get kubeconfigPath(): string {
    return this.controlPlane.kubeconfigPath;
  }

  /** Installs the CRDs in these files or folders and waits until the API server serves them. */
  installCrds(paths: readonly string[], options: InstallCrdsOptions = {}): Promise<CustomResourceDefinition[]> {
    return installCrds(this.client, paths, options);
  }

  /** Creates a namespace no other test uses, `<prefix>-<random>`, and returns its name. */
  async namespace(prefix = "test"): Promise<string> {
    if (!DNS_LABEL.test(prefix) || prefix.length > MAX_PREFIX_LENGTH) {
      throw new Error(`namespace prefix ${JSON.stringify(prefix)}: expected lower-case letters, digits and "-", at most ${MAX_PREFIX_LENGTH} characters`);
    }
    const name = `${prefix}-${crypto.randomUUID().slice(0, 6)}`;
    await this.client.dynamic.resource(resources.namespaces).create({ metadata: { name } });
    return name;
  }

  /**
   * Runs the controllers in this process, against this control plane, as admin; resolves once
   * their caches have synced. stop() on the result (or on the environment) ends them.
   */
  async run(descriptors: readonly ControllerDescriptor[], options: RunOptions = {}): Promise<RunningControllers> {
    const running = await runControllers(this.client, descriptors, options);
    const tracked: RunningControllers = {
      metrics: running.metrics,
      shard: running.shard,
      stop: async () => {
        this.#running.delete(tracked);
        await running.stop();
      },
    };
    this.#running.add(tracked);
    return tracked;
  }

  /** Stops every controller still running, then etcd and kube-apiserver, and removes their files; rethrows a controller's failure. */
  async stop(): Promise<void> {
    const stopping = await Promise.allSettled([...this.#running].map((running) => running.stop()));
    await this.controlPlane.stop();
    const failed = stopping.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
    if (failed) throw failed.reason;
  }
}
