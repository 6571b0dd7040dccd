// annotation-scaler against a real API server: kube-loom/testing starts etcd and kube-apiserver
// (found through KUBEBUILDER_ASSETS, as envtest finds them) and runs the controller in this process.
// No kube-controller-manager runs there: Deployments make no Pods, which this controller never needs.
//   KUBEBUILDER_ASSETS=$(setup-envtest use -p path) bun test examples/annotation-scaler
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type ObjectOf, resources } from "kube-loom";
import { eventually, type RunningControllers, TestEnvironment } from "kube-loom/testing";
import { annotationScaler, replicasAnnotation } from "./controller.ts";

type Deployment = ObjectOf<typeof resources.deployments>;
type Event = ObjectOf<typeof resources.events>;
const SLOW = 120_000;
const WAIT = { timeoutMs: 30_000 };

let env: TestEnvironment;
let scaler: RunningControllers;

beforeAll(async () => {
  env = await TestEnvironment.start();
  scaler = await env.run([annotationScaler]);
}, SLOW);

afterAll(async () => {
  await scaler?.stop();
  await env?.stop();
}, SLOW);

function deployment(name: string, replicas: string): Deployment {
  const labels = { app: name };
  return {
    metadata: { name, annotations: { [replicasAnnotation]: replicas } },
    spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "app", image: "registry.invalid/app:1" }] } } },
  };
}

async function eventWithReason(namespace: string, reason: string): Promise<Event> {
  const events = env.client.dynamic.resource<Event>(resources.events, namespace);
  return eventually(async () => (await events.list()).items.find((event) => event.reason === reason) ?? false, { ...WAIT, message: `a ${reason} Event` });
}

test("scales a Deployment to its annotation and says so in an Event", async () => {
  const namespace = await env.namespace("scaler");
  const deployments = env.client.dynamic.resource<Deployment>(resources.deployments, namespace);
  await deployments.create(deployment("web", "3"));
  await eventually(async () => (await deployments.get("web")).spec?.replicas === 3, { ...WAIT, message: "web at 3 replicas" });
  expect((await eventWithReason(namespace, "Scaled")).note).toBe(`scaled from 1 to 3 replicas, as ${replicasAnnotation} asks`);

  await deployments.patch("web", { metadata: { annotations: { [replicasAnnotation]: "0" } } }, "merge");
  await eventually(async () => (await deployments.get("web")).spec?.replicas === 0, { ...WAIT, message: "web at 0 replicas" });
}, SLOW);

test("a value that is no whole number: a Warning Event naming it, the replicas left alone", async () => {
  const namespace = await env.namespace("scaler");
  const deployments = env.client.dynamic.resource<Deployment>(resources.deployments, namespace);
  await deployments.create(deployment("typo", "three"));
  const warning = await eventWithReason(namespace, "InvalidReplicas");
  expect(warning.type).toBe("Warning");
  expect(warning.note).toBe(`annotation ${replicasAnnotation}="three": expected a whole number of replicas, such as "3"`);
  expect((await deployments.get("typo")).spec?.replicas).toBe(1);
}, SLOW);
