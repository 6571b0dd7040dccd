// configmap-mirror against a real API server: kube-loom/testing starts etcd and kube-apiserver
// (found through KUBEBUILDER_ASSETS, as envtest finds them) and runs the controller in this process.
//   KUBEBUILDER_ASSETS=$(setup-envtest use -p path) bun test examples/configmap-mirror
import { afterAll, beforeAll, expect, test } from "bun:test";
import { isNotFound, type ObjectOf, resources } from "kube-loom";
import { eventually, type RunningControllers, TestEnvironment } from "kube-loom/testing";
import { configMapMirror } from "./controller.ts";

type ConfigMap = ObjectOf<typeof resources.configMaps>;
const SLOW = 120_000;
const WAIT = { timeoutMs: 30_000 };

let env: TestEnvironment;
let mirror: RunningControllers;
let source: string;

beforeAll(async () => {
  env = await TestEnvironment.start();
  source = await env.namespace("mirror-source");
  mirror = await env.run([configMapMirror], { flags: [`--mirror-source=${source}/shared`] });
}, SLOW);

afterAll(async () => {
  await mirror?.stop();
  await env?.stop();
}, SLOW);

const configMaps = (namespace: string) => env.client.dynamic.resource<ConfigMap>(resources.configMaps, namespace);

async function copyIn(namespace: string): Promise<ConfigMap | undefined> {
  return configMaps(namespace).get("shared").catch((err: unknown) => {
    if (isNotFound(err)) return undefined;
    throw err;
  });
}

/** A new namespace, labelled for mirroring or not. */
async function namespace(mirrored: boolean): Promise<string> {
  const name = await env.namespace(mirrored ? "mirrored" : "plain");
  if (mirrored) await env.client.dynamic.resource(resources.namespaces).patch(name, { metadata: { labels: { "mirror.example.com/enabled": "true" } } }, "merge");
  return name;
}

test("copies follow the source into labelled namespaces only, are repaired, and go with the source", async () => {
  const [a, b, plain] = await Promise.all([namespace(true), namespace(true), namespace(false)]);
  await configMaps(source).create({ metadata: { name: "shared" }, data: { color: "blue" } });
  const copiesSay = (color: string) => async () => {
    for (const ns of [a, b]) expect((await copyIn(ns))?.data).toEqual({ color });
  };
  await eventually(copiesSay("blue"), { ...WAIT, message: "blue copies" });
  expect(await copyIn(plain)).toBeUndefined();
  expect((await copyIn(a))?.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Namespace", name: a, controller: true });
  expect((await configMaps(source).get("shared")).metadata?.finalizers).toEqual(["mirror.example.com/copies"]);

  await configMaps(source).patch("shared", { data: { color: "green" } }, "merge");
  await eventually(copiesSay("green"), { ...WAIT, message: "green copies" });

  await configMaps(a).delete("shared");
  await eventually(copiesSay("green"), { ...WAIT, message: "the copy deleted by hand back" });

  await configMaps(source).delete("shared");
  await eventually(async () => (await copyIn(source)) === undefined, { ...WAIT, message: "the source gone, its finalizer released" });
  expect(await copyIn(a)).toBeUndefined();
  expect(await copyIn(b)).toBeUndefined();
}, SLOW);
