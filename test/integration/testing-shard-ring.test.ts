// kube-loom/testing runs several members of one shard ring in a test's process: a controller built
// with the builder (the annotation-scaler example, unchanged) acts in each namespace from exactly
// one of them, and a member that stops hands its namespaces to the others.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type ObjectOf, resources } from "../../pkg/kube/gvr.ts";
import { eventually, type RunningControllers, TestEnvironment } from "../../pkg/testing/mod.ts";
import { annotationScaler, replicasAnnotation } from "../../examples/annotation-scaler/controller.ts";

type Deployment = ObjectOf<typeof resources.deployments>;
type Event = ObjectOf<typeof resources.events>;
const SLOW = 180_000;
const WAIT = { timeoutMs: 60_000 };

let env: TestEnvironment;
let members: RunningControllers[];

beforeAll(async () => {
  env = await TestEnvironment.start();
  members = await Promise.all([0, 1, 2].map(() => env.run([annotationScaler], { shardRing: { ring: "scalers" } })));
}, SLOW);

afterAll(async () => {
  await env?.stop();
}, SLOW);

const slotsHeld = (running: RunningControllers[]) => running.reduce((sum, member) => sum + (member.shard?.slotsHeld() ?? 0), 0);
/** Every slot of the table held among `running`. */
const everySlotHeld = (running: RunningControllers[]) => slotsHeld(running) === (running[0]?.shard?.slotsInTable() ?? -1);

function deployment(replicas: string): Deployment {
  const labels = { app: "web" };
  return {
    metadata: { name: "web", annotations: { [replicasAnnotation]: replicas } },
    spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "app", image: "registry.invalid/app:1" }] } } },
  };
}

async function scaledEvents(namespace: string): Promise<Event[]> {
  return (await env.client.dynamic.resource<Event>(resources.events, namespace).list()).items.filter((event) => event.reason === "Scaled");
}

test("three members share the namespaces: each Deployment is scaled once, by the one member holding its namespace", async () => {
  await eventually(() => everySlotHeld(members) && members.every((m) => (m.shard?.slotsHeld() ?? 0) > 0), { ...WAIT, message: "every slot held, by all three" });
  const namespaces = await Promise.all(Array.from({ length: 8 }, () => env.namespace("sharded")));
  for (const namespace of namespaces) {
    // A new namespace may tip its holder over its fair part: a slot then moves, and for that moment nobody holds it.
    await eventually(() => members.filter((member) => member.shard?.holds(namespace)).length === 1, { ...WAIT, message: `one member holding ${namespace}` });
    await env.client.dynamic.resource<Deployment>(resources.deployments, namespace).create(deployment("3"));
  }
  for (const namespace of namespaces) {
    const deployments = env.client.dynamic.resource<Deployment>(resources.deployments, namespace);
    await eventually(async () => (await deployments.get("web")).spec?.replicas === 3, { ...WAIT, message: `${namespace}/web at 3 replicas` });
    await eventually(async () => (await scaledEvents(namespace)).length === 1, { ...WAIT, message: `one Scaled Event in ${namespace}` });
    expect((await scaledEvents(namespace))[0]?.series).toBeUndefined();
  }
}, SLOW);

test("a member that stops hands its namespaces to the others, which act there at once", async () => {
  const [leaving, ...staying] = members as [RunningControllers, ...RunningControllers[]];
  const itsNamespace = await eventually(
    async () => {
      const namespace = await env.namespace("handed-over");
      return leaving.shard?.holds(namespace) ? namespace : false;
    },
    { ...WAIT, message: "a namespace held by the member about to stop" },
  );
  await leaving.stop();
  await eventually(() => everySlotHeld(staying), { ...WAIT, message: "the others hold every slot" });
  const deployments = env.client.dynamic.resource<Deployment>(resources.deployments, itsNamespace);
  await deployments.create(deployment("2"));
  await eventually(async () => (await deployments.get("web")).spec?.replicas === 2, { ...WAIT, message: `${itsNamespace}/web at 2 replicas` });
}, SLOW);
