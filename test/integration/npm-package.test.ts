// kube-loom as a user's project takes it from npm: `npm pack` of this repository (which compiles
// dist/npm), installed into a new project by package name. The project type-checks against the
// published declarations with a plain strict tsconfig, as a Bun project (the examples also with
// exactOptionalPropertyTypes and noUncheckedIndexedAccess) and under Deno; the examples then run
// against the real control plane with leader election on each runtime — compiled to JavaScript by
// tsc and run on Node 24 (the pinned `node` devDependency) and on the oldest Node that package.json
// claims (test/support/minimum-node.ts), compiled into single executables by `bun build --compile`,
// and under `deno run` — and are judged by what they do to the cluster; `npx kube-loom` runs the
// command from the package on both Nodes. Last, kube-loom/testing from the package: the examples'
// own tests under bun test, and a node:test file under node --test (both Nodes) and deno test, with
// KUBEBUILDER_ASSETS naming the project's binaries by envtest's names.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { isNotFound } from "../../pkg/kube/errors.ts";
import { type ObjectOf, resources } from "../../pkg/kube/gvr.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { kubebuilderAssets } from "../controlplane/kubebuilder-assets.ts";
import { createOwnedTempDir, removeOwnedTempDir } from "../controlplane/owned-temp-dir.ts";
import { waitUntil } from "../support/eventually.ts";
import { KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { minimumNode, minimumNodeVersion } from "../support/minimum-node.ts";
import { bin, bunInitCompilerOptions, manifest, projectEnv, projectWithPackedKubeLoom, repoRoot, run } from "../support/packed-package.ts";
import { ensureNamespace, fastClient } from "./informer-fixtures.ts";

const node = join(repoRoot, "node_modules/node/bin/node");
/** Every `node` a command started with this environment starts (npm's own included) is `binary`, not the machine's. */
const envWithNode = (binary: string) => ({ ...process.env, PATH: `${dirname(binary)}${delimiter}${process.env.PATH ?? ""}` });

/** The Nodes the package runs on in these tests: the pinned one, and the oldest package.json claims. */
const nodes = [
  { name: "Node 24", binary: async () => node, reports: "Node.js v24." },
  { name: `Node ${minimumNodeVersion}`, binary: minimumNode, reports: `Node.js v${minimumNodeVersion}` },
];

type ConfigMap = ObjectOf<typeof resources.configMaps>;
type Deployment = ObjectOf<typeof resources.deployments>;
type Secret = ObjectOf<typeof resources.secrets>;

let controlPlane: ControlPlane;
let client: KubeClient;
let project: string;
let workDir: string;
let assets: string;
const running: KubeLoomProcess[] = [];

// What a user's tsconfig says and nothing more: module nodenext, strict. `types` only keeps the
// Bun types the project also installs out of the Node checks.
const tsconfigs = {
  "tsconfig.json": { compilerOptions: { module: "nodenext", moduleResolution: "nodenext", strict: true, types: ["node"] }, files: ["uses-kube-loom.ts"] },
  // The examples for Node: imports that say .ts become .js.
  "tsconfig.node.json": {
    extends: "./tsconfig.json",
    compilerOptions: { rewriteRelativeImportExtensions: true, rootDir: ".", outDir: "build" },
    files: [],
    include: ["examples"],
    exclude: ["**/*.test.ts"],
  },
  // What `bun init` writes, with every declaration file checked (skipLibCheck off); the examples' tests included.
  "tsconfig.bun.json": {
    compilerOptions: bunInitCompilerOptions,
    include: ["uses-kube-loom.ts", "examples"],
  },
  // The strictest settings the README promises users: bun init's (noUncheckedIndexedAccess among them)
  // plus exactOptionalPropertyTypes, over the examples and their tests as well as the declarations.
  "tsconfig.exact.json": {
    extends: "./tsconfig.bun.json",
    compilerOptions: { exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true },
  },
};

/** Every declaration file both entry points reach: the type-check reads them all. */
const usesKubeLoom = `import * as kubeLoom from "kube-loom";
import * as testing from "kube-loom/testing";
export const entries = [kubeLoom, testing];
`;

/** A new project with kube-loom installed from its packed tarball, and the examples copied in. */
async function userProject(root: string): Promise<string> {
  const dir = await projectWithPackedKubeLoom(root);
  cpSync(join(repoRoot, "examples"), join(dir, "examples"), { recursive: true });
  for (const [name, config] of Object.entries(tsconfigs)) writeFileSync(join(dir, name), JSON.stringify(config, null, 2));
  writeFileSync(join(dir, "uses-kube-loom.ts"), usesKubeLoom);
  // Deno takes the package from node_modules like Node does: its JavaScript and declarations.
  writeFileSync(join(dir, "deno.json"), JSON.stringify({ nodeModulesDir: "manual" }));
  return dir;
}

async function compileExample(name: string): Promise<string> {
  const outfile = join(project, name);
  await run([bin("bun"), "build", "--compile", join("examples", name, "main.ts"), "--outfile", outfile], project);
  return outfile;
}

/** Starts an example with leader election on its own Lease and waits until it leads. */
async function startExample(name: string, launcher: string[], args: string[] = []): Promise<KubeLoomProcess> {
  const process = await KubeLoomProcess.start({
    binary: launcher[0] ?? "",
    launcher,
    kubeconfig: controlPlane.kubeconfigPath,
    logDir: controlPlane.dir,
    name,
    https: true,
    args: ["--leader-elect=true", `--leader-elect-resource-name=${name}`, "--leader-elect-resource-namespace=default", ...args],
  });
  running.push(process);
  await process.waitFor("/readyz", 120_000);
  await waitUntil(async () => (await (await fetch(`${process.url}/metrics`)).text()).includes(`leader_election_master_status{name="${name}"} 1`), `${name} leading`, 60_000, 250);
  return process;
}

/** What /statusz says runs the process ("Node.js v24.21.0"), and that its HTTPS endpoint answers. */
async function runtimeOf(process: KubeLoomProcess): Promise<string> {
  const healthz = await fetch(`${process.secureUrl}/healthz`, { tls: { rejectUnauthorized: false } } as RequestInit);
  expect(healthz.status).toBe(200);
  const statusz = await (await fetch(`${process.url}/statusz`)).text();
  return /Runtime version\S*\s+(.+)/.exec(statusz)?.[1]?.trim() ?? `no runtime in /statusz: ${statusz}`;
}

async function stopLast(): Promise<void> {
  await running.pop()?.stop();
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
}, 600_000);

afterAll(async () => {
  for (const process of running) await process.stop();
  await controlPlane?.stop();
  if (workDir) removeOwnedTempDir(workDir);
});

describe("kube-loom installed from its npm tarball", () => {
  test("type-checks with a plain strict tsconfig (every declaration file checked), as a Bun project, and the examples with exactOptionalPropertyTypes and noUncheckedIndexedAccess", async () => {
    const tsc = bin("tsc");
    expect(await run([tsc, "--noEmit", "-p", "tsconfig.json"], project)).toBe("");
    expect(await run([tsc, "--noEmit", "-p", "tsconfig.json", "--exactOptionalPropertyTypes"], project)).toBe("");
    expect(await run([tsc, "-p", "tsconfig.bun.json"], project)).toBe("");
    expect(await run([tsc, "-p", "tsconfig.exact.json"], project)).toBe("");
  }, 240_000);

  test("ships source maps and declaration maps whose sources are in the package", () => {
    const compiled = join(project, "node_modules/kube-loom/dist/npm");
    for (const map of ["mod.js.map", "mod.d.ts.map", "pkg/testing/mod.js.map", "cmd/kube-loom/main.js.map"]) {
      const { sources } = JSON.parse(readFileSync(join(compiled, map), "utf8")) as { sources: string[] };
      expect(sources.length).toBeGreaterThan(0);
      for (const source of sources) expect(existsSync(join(dirname(join(compiled, map)), source))).toBe(true);
    }
  });

  test("Deno type-checks the examples against the package's declarations", async () => {
    await run([bin("deno"), "check", "--config", "deno.json", "examples/annotation-scaler/main.ts", "examples/configmap-mirror/main.ts", "examples/secret-replicator/main.ts"], project);
  }, 240_000);

  const deployment = (name: string, annotation: string): Deployment => ({
    metadata: { name, annotations: { "scaler.example.com/replicas": annotation } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "app", image: "registry.invalid/app:1" }] } },
    },
  });

  async function expectScaling(namespace: string): Promise<void> {
    await ensureNamespace(client, namespace);
    const deployments = client.dynamic.resource<Deployment>(resources.deployments, namespace);
    await deployments.create(deployment("web", "3"));
    await waitUntil(async () => (await deployments.get("web")).spec?.replicas === 3, "web scaled to 3", 60_000, 250);

    // A bad value: a Warning Event naming it, the replicas left alone.
    await deployments.create(deployment("typo", "three"));
    const events = client.dynamic.resource<ObjectOf<typeof resources.events>>(resources.events, namespace);
    await waitUntil(async () => (await events.list()).items.some((e) => e.reason === "InvalidReplicas"), "InvalidReplicas Event", 60_000, 250);
    const warning = (await events.list()).items.find((e) => e.reason === "InvalidReplicas");
    expect(warning?.note).toContain('scaler.example.com/replicas="three": expected a whole number of replicas');
    expect((await deployments.get("typo")).spec?.replicas).toBe(1);
  }

  let compiledForNode: Promise<string> | undefined;
  for (const [index, { name, binary, reports }] of nodes.entries()) {
    test(`annotation-scaler compiled by tsc, on ${name}: scales to the annotation, reports a bad value with an Event, serves HTTPS`, async () => {
      compiledForNode ??= run([bin("tsc"), "-p", "tsconfig.node.json"], project);
      await compiledForNode;
      const example = await startExample(`annotation-scaler-node-${index}`, [await binary(), join(project, "build/examples/annotation-scaler/main.js")]);
      expect(await runtimeOf(example)).toStartWith(reports);
      await expectScaling(`scaler-node-${index}`);
      await stopLast();
    }, 240_000);

    test(`npx kube-loom runs the command from the package on ${name}`, async () => {
      const env = envWithNode(await binary());
      expect(await run(["npx", "--no-install", "kube-loom", "--version"], project, env)).toBe(`kube-loom v${manifest.version}\n`);
      expect(await run(["npx", "--no-install", "kube-loom", "--help"], project, env)).toContain("Usage:\n  kube-loom [flags]");
    }, 120_000);
  }

  test("configmap-mirror, compiled by bun build --compile: copies follow the source into labelled namespaces, are repaired, and go with it", async () => {
    const example = await startExample("configmap-mirror", [await compileExample("configmap-mirror")], ["--mirror-source=mirror-src/shared"]);
    expect(await runtimeOf(example)).toStartWith("Bun ");
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
    await stopLast();
  }, 240_000);

  test("secret-replicator, compiled by bun build --compile with the built-in controllers: copies a labelled Secret, counts Pods", async () => {
    await startExample("secret-replicator", [await compileExample("secret-replicator")]);
    for (const namespace of ["replicator-src", "replicator-a"]) await ensureNamespace(client, namespace);
    const source = { metadata: { name: "db", labels: { "replicator.example.com/replicate": "true" } }, data: { password: btoa("hunter2") } };
    await client.dynamic.resource<Secret>(resources.secrets, "replicator-src").create(source);
    const copy = () => client.dynamic.resource<Secret>(resources.secrets, "replicator-a").get("db").catch(() => undefined);
    await waitUntil(async () => (await copy())?.data?.password === btoa("hunter2"), "a copy in replicator-a", 60_000, 250);

    const pod = { metadata: { name: "web" }, spec: { containers: [{ name: "app", image: "registry.invalid/app:1" }] } };
    await client.dynamic.resource(resources.pods, "replicator-a").create(pod);
    const count = async () => (await client.dynamic.resource(resources.namespaces).get("replicator-a")).metadata?.annotations?.["counter.example.com/pods"];
    await waitUntil(async () => (await count()) === "1", "one Pod counted in replicator-a", 60_000, 250);
    await stopLast();
  }, 240_000);

  test("annotation-scaler, compiled by bun build --compile", async () => {
    await startExample("annotation-scaler", [await compileExample("annotation-scaler")]);
    await expectScaling("scaler-compiled");
    await stopLast();
  }, 240_000);

  test("annotation-scaler under deno run, the package taken from node_modules", async () => {
    const main = join(project, "examples", "annotation-scaler", "main.ts");
    const example = await startExample("annotation-scaler-deno", [bin("deno"), "run", "--allow-all", "--config", join(project, "deno.json"), main]);
    expect(await runtimeOf(example)).toStartWith("Deno ");
    await expectScaling("scaler-deno");
    await stopLast();
  }, 240_000);
});

describe("kube-loom/testing imported by package name", () => {
  test("the examples' own tests pass under bun test", async () => {
    // bun test reports on stderr; a failing file makes runReport() throw with that report.
    const report = await runReport([bin("bun"), "test", "--timeout", "240000", "examples/"]);
    expect(report).toContain(" 0 fail");
    expect(report).toMatch(/Ran \d+ tests across 3 files/);
  }, 480_000);

  for (const { name, binary } of nodes) {
    test(`under node --test on ${name}: a user's node:test file starts the environment and runs a controller`, async () => {
      writeFileSync(join(project, "scaler.node-test.mjs"), nodeTestFile);
      const report = await runReport([await binary(), "--test", "--test-reporter=tap", "--test-timeout=240000", "scaler.node-test.mjs"]);
      expect(report).toContain("# pass 1");
      expect(report).toContain("# fail 0");
    }, 300_000);
  }

  test("under deno test: the same node:test file", async () => {
    writeFileSync(join(project, "scaler.node-test.mjs"), nodeTestFile);
    const report = await runReport([bin("deno"), "test", "--allow-all", "--config", join(project, "deno.json"), "scaler.node-test.mjs"]);
    expect(report).toContain("ok | 1 passed | 0 failed");
  }, 300_000);
});

/** Runs a test command in the user's project with KUBEBUILDER_ASSETS set; resolves with all it printed. */
async function runReport(command: string[]): Promise<string> {
  const env = { ...projectEnv, KUBEBUILDER_ASSETS: assets, NO_COLOR: "1" };
  const child = Bun.spawn(command, { cwd: project, stdout: "pipe", stderr: "pipe", env });
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
