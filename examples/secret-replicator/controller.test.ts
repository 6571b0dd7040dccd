// secret-replicator and pod-counter against a real API server: kube-loom/testing starts etcd and
// kube-apiserver (found through KUBEBUILDER_ASSETS, as envtest finds them) and runs both
// controllers in this process. Copies go into every namespace, so each test names its Secret itself.
//   KUBEBUILDER_ASSETS=$(setup-envtest use -p path) bun test examples/secret-replicator
import { afterAll, beforeAll, expect, test } from "bun:test";
import { isNotFound, type ObjectOf, resources } from "kube-loom";
import { eventually, type RunningControllers, TestEnvironment } from "kube-loom/testing";
import { podCountAnnotation, podCounter } from "./pod-counter.ts";
import { copiesFinalizer, replicateLabel, secretReplicator, sourceLabel } from "./secret-replicator.ts";

type Secret = ObjectOf<typeof resources.secrets>;
const SLOW = 120_000;
const WAIT = { timeoutMs: 30_000 };

let env: TestEnvironment;
let controllers: RunningControllers;

beforeAll(async () => {
  env = await TestEnvironment.start();
  controllers = await env.run([secretReplicator, podCounter]);
}, SLOW);

afterAll(async () => {
  await controllers?.stop();
  await env?.stop();
}, SLOW);

const secrets = (namespace: string) => env.client.dynamic.resource<Secret>(resources.secrets, namespace);
const base64 = (text: string) => Buffer.from(text).toString("base64");

async function secretIn(namespace: string, name: string): Promise<Secret | undefined> {
  return secrets(namespace).get(name).catch((err: unknown) => {
    if (isNotFound(err)) return undefined;
    throw err;
  });
}

/** A labelled source Secret in a namespace of its own; resolves with that namespace. */
async function createSource(name: string, password: string): Promise<string> {
  const namespace = await env.namespace("source");
  await secrets(namespace).create({ metadata: { name, labels: { [replicateLabel]: "true" } }, data: { password: base64(password) } });
  return namespace;
}

const copiesSay = (name: string, password: string | undefined, namespaces: string[]) => async () => {
  for (const ns of namespaces) expect((await secretIn(ns, name))?.data).toEqual(password === undefined ? undefined : { password: base64(password) });
};

test("copies appear in every other namespace, are repaired, and go with the source, whose finalizer then lets it go", async () => {
  const [a, b] = await Promise.all([env.namespace("copy"), env.namespace("copy")]);
  const source = await createSource("db", "hunter2");
  await eventually(copiesSay("db", "hunter2", [a, b, "default"]), { ...WAIT, message: "copies in every namespace" });
  expect((await secretIn(a, "db"))?.metadata?.labels).toEqual({ [sourceLabel]: `${source}.db` });
  expect((await secretIn(source, "db"))?.metadata?.finalizers).toEqual([copiesFinalizer]);

  await secrets(source).patch("db", { data: { password: base64("correct horse") } }, "merge");
  await eventually(copiesSay("db", "correct horse", [a, b]), { ...WAIT, message: "copies follow the source" });

  await secrets(a).patch("db", { data: { password: base64("edited by hand") } }, "merge");
  await secrets(b).delete("db");
  await eventually(copiesSay("db", "correct horse", [a, b]), { ...WAIT, message: "the edited copy repaired, the deleted one back" });

  const late = await env.namespace("late");
  await eventually(copiesSay("db", "correct horse", [late]), { ...WAIT, message: "a copy in a namespace made later" });

  await secrets(source).delete("db");
  await eventually(async () => (await secretIn(source, "db")) === undefined, { ...WAIT, message: "the source gone, its finalizer released" });
  await copiesSay("db", undefined, [a, b, late, "default"])();
}, SLOW);

test("removing the label removes the copies and the finalizer, and leaves the Secret", async () => {
  const a = await env.namespace("copy");
  const source = await createSource("api-token", "s3cret");
  await eventually(copiesSay("api-token", "s3cret", [a]), { ...WAIT, message: "a copy" });

  await secrets(source).patch("api-token", { metadata: { labels: { [replicateLabel]: null } } }, "merge");
  await eventually(copiesSay("api-token", undefined, [a, "default"]), { ...WAIT, message: "the copies gone" });
  await eventually(async () => expect((await secretIn(source, "api-token"))?.metadata?.finalizers).toBeUndefined(), { ...WAIT, message: "no finalizer" });
  expect((await secretIn(source, "api-token"))?.data).toEqual({ password: base64("s3cret") });
}, SLOW);

test("the pod counter follows Pod creations and deletions in its namespace", async () => {
  const namespace = await env.namespace("counted");
  const pods = env.client.dynamic.resource(resources.pods, namespace);
  const countIs = (count: string) => async () =>
    (await env.client.dynamic.resource(resources.namespaces).get(namespace)).metadata?.annotations?.[podCountAnnotation] === count;
  await eventually(countIs("0"), { ...WAIT, message: "0 Pods" });

  const pod = (name: string) => ({ metadata: { name }, spec: { containers: [{ name: "app", image: "registry.invalid/app:1" }] } });
  await Promise.all(["one", "two", "three"].map((name) => pods.create(pod(name))));
  await eventually(countIs("3"), { ...WAIT, message: "3 Pods" });

  // No Pod is scheduled (no scheduler runs), so a deleted one is gone at once.
  await pods.delete("two");
  await eventually(countIs("2"), { ...WAIT, message: "2 Pods" });
}, SLOW);
