// kube-loom as a library, the way a user's project takes it: `npm pack` of this repository,
// installed into a new project, imported by package name; each example compiled into its own
// single executable with `bun build --compile`, run against the real control plane with leader
// election, and judged by what it does to the cluster. The same example also runs under Deno.
// The examples' own tests run there too, on kube-loom/testing from the package, under bun test,
// and a node:test file under node --test and deno test, with KUBEBUILDER_ASSETS naming the
// project's binaries by envtest's names.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { isNotFound } from "../../pkg/kube/errors.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { kubebuilderAssets } from "../controlplane/kubebuilder-assets.ts";
import { createOwnedTempDir, removeOwnedTempDir } from "../controlplane/owned-temp-dir.ts";
import { waitUntil } from "../support/eventually.ts";
import { KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { ensureNamespace, fastClient } from "./informer-fixtures.ts";

const repoRoot = resolve(import.meta.dir, "../..");
const bun = join(repoRoot, "node_modules/.bin/bun");
const deno = join(repoRoot, "node_modules/.bin/deno");
const node = join(repoRoot, "node_modules/.bin/node");

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}
interface Deployment extends KubeObject {
  spec?: { replicas?: number };
}

let controlPlane: ControlPlane;
let client: KubeClient;
let project: string;
let workDir: string;
let assets: string;
const running: KubeLoomProcess[] = [];

async function run(command: string[], cwd: string): Promise<string> {
  const child = Bun.spawn(command, { cwd, stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  if (code !== 0) throw new Error(`${command.join(" ")} failed (${code}): ${stderr || stdout}`);
  return stdout;
}

/** A new project with kube-loom installed from its packed tarball, and the examples copied in. */
async function userProject(root: string): Promise<string> {
  await run(["npm", "pack", "--pack-destination", root, "--silent"], repoRoot);
  const dir = join(root, "my-controllers");
  mkdirSync(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "my-controllers", private: true, type: "module", dependencies: { "kube-loom": "file:../kube-loom-0.1.0.tgz" } }));
  await run(["npm", "install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], dir);
  cpSync(join(repoRoot, "examples"), join(dir, "examples"), { recursive: true });
  // The package is JavaScript: Deno takes it from node_modules as npm installed it.
  writeFileSync(join(dir, "deno.json"), JSON.stringify({ nodeModulesDir: "manual" }));
  return dir;
}

async function compileExample(name: string): Promise<string> {
  const outfile = join(project, name);
  await run([bun, "build", "--compile", join("examples", name, "main.ts"), "--outfile", outfile], project);
  return outfile;
}

/** Starts an example with leader election on its own Lease and waits until it is ready. */
async function startExample(name: string, options: { binary: string; launcher?: string[]; args?: string[] }): Promise<KubeLoomProcess> {
  const process = await KubeLoomProcess.start({
    binary: options.binary,
    ...(options.launcher ? { launcher: options.launcher } : {}),
    kubeconfig: controlPlane.kubeconfigPath,
    logDir: controlPlane.dir,
    name,
    args: ["--leader-elect=true", `--leader-elect-resource-name=${name}`, "--leader-elect-resource-namespace=default", ...(options.args ?? [])],
  });
  running.push(process);
  await process.waitFor("/readyz", 120_000);
  await waitUntil(async () => (await (await fetch(`${process.url}/metrics`)).text()).includes("leader_election_master_status{name=\"" + name + "\"} 1"), `${name} leading`, 60_000, 250);
  return process;
}

async function getConfigMap(namespace: string, name: string): Promise<ConfigMap | undefined> {
  return client.dynamic.resource<ConfigMap>(resources.configMaps, namespace).get(name).catch((err: unknown) => {
    if (isNotFound(err)) return undefined;
    throw err;
  });
}

beforeAll(async () => {
  workDir = createOwnedTempDir();
  [controlPlane, project, assets] = await Promise.all([ControlPlane.start(), userProject(workDir), kubebuilderAssets()]);
  client = await fastClient(controlPlane.kubeconfigPath);
}, 300_000);

afterAll(async () => {
  for (const process of running) await process.stop();
  await controlPlane?.stop();
  if (workDir) removeOwnedTempDir(workDir);
});

describe("kube-loom imported by package name", () => {
  test("configmap-mirror, compiled: copies follow the source into labelled namespaces, are repaired, and go with it", async () => {
    const binary = await compileExample("configmap-mirror");
    await startExample("configmap-mirror", { binary, args: ["--mirror-source=mirror-src/shared"] });
    for (const namespace of ["mirror-src", "mirror-a", "mirror-b", "mirror-off"]) await ensureNamespace(client, namespace);
    const namespaces = client.dynamic.resource(resources.namespaces);
    for (const name of ["mirror-a", "mirror-b"]) await namespaces.patch(name, { metadata: { labels: { "mirror.example.com/enabled": "true" } } }, "merge");
    const sources = client.dynamic.resource<ConfigMap>(resources.configMaps, "mirror-src");
    await sources.create({ metadata: { name: "shared" }, data: { color: "blue" } });

    const copiesSay = (value: string | undefined) => async () => {
      const copies = await Promise.all(["mirror-a", "mirror-b"].map((ns) => getConfigMap(ns, "shared")));
      return copies.every((copy) => copy?.data?.color === value);
    };
    await waitUntil(copiesSay("blue"), "copies in the labelled namespaces", 60_000, 250);
    expect(await getConfigMap("mirror-off", "shared")).toBeUndefined();
    expect((await getConfigMap("mirror-a", "shared"))?.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Namespace", name: "mirror-a", controller: true });

    await sources.patch("shared", { data: { color: "green" } }, "merge");
    await waitUntil(copiesSay("green"), "copies updated", 60_000, 250);
    await client.dynamic.resource(resources.configMaps, "mirror-a").delete("shared");
    await waitUntil(copiesSay("green"), "a copy deleted by hand comes back", 60_000, 250);

    await sources.delete("shared");
    await waitUntil(async () => (await getConfigMap("mirror-src", "shared")) === undefined, "the source gone, its finalizer released", 60_000, 250);
    expect(await getConfigMap("mirror-a", "shared")).toBeUndefined();
    expect(await getConfigMap("mirror-b", "shared")).toBeUndefined();
  }, 240_000);

  const deployment = (name: string, annotation: string): Deployment => ({
    metadata: { name, annotations: { "scaler.example.com/replicas": annotation } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "app", image: "registry.invalid/app:1" }] } },
    } as Deployment["spec"],
  });

  async function expectScaling(namespace: string): Promise<void> {
    await ensureNamespace(client, namespace);
    const deployments = client.dynamic.resource<Deployment>(resources.deployments, namespace);
    await deployments.create(deployment("web", "3"));
    await waitUntil(async () => (await deployments.get("web")).spec?.replicas === 3, "web scaled to 3", 60_000, 250);

    // A bad value: a Warning Event naming it, the replicas left alone.
    await deployments.create(deployment("typo", "three"));
    const events = client.dynamic.resource<KubeObject & { reason?: string; note?: string }>(resources.events, namespace);
    await waitUntil(async () => (await events.list()).items.some((e) => e.reason === "InvalidReplicas"), "InvalidReplicas Event", 60_000, 250);
    const warning = (await events.list()).items.find((e) => e.reason === "InvalidReplicas");
    expect(warning?.note).toContain('scaler.example.com/replicas="three": expected a whole number of replicas');
    expect((await deployments.get("typo")).spec?.replicas).toBe(1);
  }

  test("annotation-scaler, compiled: scales to the annotation, reports a bad value with an Event", async () => {
    const binary = await compileExample("annotation-scaler");
    await startExample("annotation-scaler", { binary });
    await expectScaling("scaler-compiled");
  }, 240_000);

  test("annotation-scaler under deno run", async () => {
    await running.pop()?.stop();
    const launcher = [deno, "run", "--allow-all", "--config", join(project, "deno.json"), join(project, "examples", "annotation-scaler", "main.ts")];
    await startExample("annotation-scaler-deno", { binary: deno, launcher });
    await expectScaling("scaler-deno");
  }, 240_000);
});

describe("kube-loom/testing imported by package name", () => {
  test("the examples' own tests pass under bun test", async () => {
    // bun test reports on stderr; a failing file makes runReport() throw with that report.
    const report = await runReport([bun, "test", "--timeout", "240000", "examples/"]);
    expect(report).toContain(" 0 fail");
    expect(report).toMatch(/Ran \d+ tests across 2 files/);
  }, 480_000);

  test("under node --test: a user's node:test file starts the environment and runs a controller", async () => {
    writeFileSync(join(project, "scaler.node-test.mjs"), nodeTestFile);
    const report = await runReport([node, "--test", "--test-reporter=tap", "--test-timeout=240000", "scaler.node-test.mjs"]);
    expect(report).toContain("# pass 1");
    expect(report).toContain("# fail 0");
  }, 300_000);

  test("under deno test: the same node:test file", async () => {
    writeFileSync(join(project, "scaler.node-test.mjs"), nodeTestFile);
    const report = await runReport([deno, "test", "--allow-all", "--config", join(project, "deno.json"), "scaler.node-test.mjs"]);
    expect(report).toContain("ok | 1 passed | 0 failed");
  }, 300_000);
});

/** Runs a test command in the user's project with KUBEBUILDER_ASSETS set; resolves with all it printed. */
async function runReport(command: string[]): Promise<string> {
  const child = Bun.spawn(command, { cwd: project, stdout: "pipe", stderr: "pipe", env: { ...process.env, KUBEBUILDER_ASSETS: assets, NO_COLOR: "1" } });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  const report = `${stdout}${stderr}`;
  if (code !== 0) throw new Error(`${command.join(" ")} failed (${code}):\n${report.slice(-6000)}`);
  return report;
}

/** What a project testing with node:test writes: plain JavaScript, the controller imported from its TypeScript source. */
const nodeTestFile = `
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { resources } from "kube-loom";
import { eventually, TestEnvironment } from "kube-loom/testing";
import { annotationScaler, replicasAnnotation } from "./examples/annotation-scaler/controller.ts";

let env;
before(async () => {
  env = await TestEnvironment.start();
});
after(async () => {
  await env?.stop();
});

test("annotation-scaler scales to the annotation", async () => {
  const namespace = await env.namespace("node");
  const running = await env.run([annotationScaler]);
  const deployments = env.client.dynamic.resource(resources.deployments, namespace);
  const labels = { app: "web" };
  await deployments.create({
    metadata: { name: "web", annotations: { [replicasAnnotation]: "2" } },
    spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "app", image: "registry.invalid/app:1" }] } } },
  });
  const scaled = await eventually(async () => (await deployments.get("web")).spec.replicas === 2 && "scaled", { timeoutMs: 30_000, message: "web at 2 replicas" });
  assert.equal(scaled, "scaled");
  await running.stop();
});
`;
