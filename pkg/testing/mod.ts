/**
 * kube-loom/testing: envtest for kube-loom. Start a real etcd and kube-apiserver from a test,
 * install CRDs, run controllers in the test's process as the manager would, wait for what they do.
 * Works under bun:test, node:test and Deno.test alike. The binaries: `export $(npx kube-loom-testing-assets 1.37)`
 * (or `setupAssets`) builds etcd and kube-apiserver of that release once and prints `KUBEBUILDER_ASSETS=<folder>`.
 *
 * ```ts
 * const env = await TestEnvironment.start({ crds: ["config/crd"] });   // KUBEBUILDER_ASSETS names the binaries
 * const namespace = await env.namespace();
 * const running = await env.run([myController], { flags: ["--my-flag=value"] });
 * await eventually(async () => (await env.client.dynamic.resource(resources.configMaps, namespace).get("x")).data?.ready === "yes");
 * await env.stop();
 * ```
 *
 * @module kube-loom/testing
 */
export { TestEnvironment, type TestEnvironmentOptions } from "./test-environment.ts";
export type { RunningControllers, RunOptions, ShardRingMember, ShardRingOptions } from "./run-controllers.ts";
export { eventually, type EventuallyOptions } from "./eventually.ts";
export type { InstallCrdsOptions } from "./install-crds.ts";
export type { CustomResourceDefinition } from "./crd-files.ts";
export { defaultAssetsCacheDir, setupAssets, type SetupAssetsOptions } from "./setup-assets.ts";
export { type KubernetesVersion, SUPPORTED_KUBERNETES_VERSIONS } from "./control-plane-releases.ts";

// The pieces underneath, for tests that need more than the environment.
export { ControlPlane, type ControlPlaneOptions, type KubeconfigOptions, type KubectlOptions, type KubectlResult } from "./control-plane.ts";
export { type ControlPlaneBinaries, DEFAULT_ASSETS_DIRECTORY, findBinaryAssets, type FindBinaryAssetsOptions } from "./binary-assets.ts";
export type { ClientIdentity, IssuedCertificate } from "./pki.ts";
