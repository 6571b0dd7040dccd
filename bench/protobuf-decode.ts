// Decoding speed of one big LIST body, in-process: the same Pods (a realistic running Pod, read
// from a real kube-apiserver as JSON and as protobuf, then repeated) decoded by kube-loom's
// streaming JSON list decoder, by its protobuf decoder (whole objects, and into the ReplicaSet
// controller's projection), and by protobufjs over the same generated.proto types (decode and
// toObject only: it would still need a pass to reach the JSON form). Medians of 7 runs each.
//   bun bench/protobuf-decode.ts [pods, default 20000]
import { Buffer } from "node:buffer";
import { podFields } from "../controllers/replicaset/replicaset-controller.ts";
import { FieldProjection } from "../pkg/informer/field-projection.ts";
import { decodeObjectList } from "../pkg/kube/list-decoder.ts";
import { kubernetesDecoder } from "../pkg/kube/protobuf/kubernetes-decoder.ts";
import { decodeProtobufList } from "../pkg/kube/protobuf/list-stream-decoder.ts";
import { TestEnvironment } from "../pkg/testing/mod.ts";
import { describeMachine } from "./machine.ts";
import { printTable } from "./print-table.ts";
import { median, ratio } from "./statistics.ts";

const count = Number(process.argv[2] ?? 20_000);
const runs = 7;
const chunkBytes = 64 * 1024;

const { json, protobuf } = await samplePodBodies();
const jsonBody = repeatJsonItems(json, count);
const protobufBody = repeatProtobufItems(protobuf, count);

const rows: [string, number, number][] = [];
rows.push(["JSON (streaming list decoder)", jsonBody.length, await time(() => decodeObjectList(chunks(jsonBody)))]);
rows.push(["protobuf, whole objects", protobufBody.length, await time(() => decodeProtobufList(kubernetesDecoder(), chunks(protobufBody)))]);
const tree = new FieldProjection(podFields).tree;
rows.push([
  "protobuf, ReplicaSet controller's fields",
  protobufBody.length,
  await time(() => decodeProtobufList(kubernetesDecoder(), chunks(protobufBody), { fields: tree, withoutManagedFields: true })),
]);
const projection = new FieldProjection(podFields);
rows.push([
  "JSON, then projected (as the informer does)",
  jsonBody.length,
  await time(async () => (await decodeObjectList(chunks(jsonBody))).items.map((pod) => projection.project(pod))),
]);

console.log(`${count} Pods, ${describeMachine()}`);
const reference = rows[0]![2];
printTable([["decoder", "body MiB", "ms (median)", "vs JSON"], ...rows.map(([name, bytes, ms]) => [name, (bytes / 2 ** 20).toFixed(1), ms.toFixed(0), ratio(ms, reference)])]);

async function time(run: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    Bun.gc(true);
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

async function* chunks(body: Uint8Array): AsyncGenerator<Uint8Array> {
  for (let start = 0; start < body.length; start += chunkBytes) yield body.subarray(start, start + chunkBytes);
}

/** A one-Pod list body in each encoding, of a Pod that looks like a running one. */
async function samplePodBodies(): Promise<{ json: Uint8Array; protobuf: Uint8Array }> {
  const env = await TestEnvironment.start();
  try {
    const pods = env.client.dynamic.resource({ group: "", version: "v1", resource: "pods" }, "default");
    const pod = await pods.create({
      metadata: { name: "web-7d4b9c8f6-x2x9k", labels: { app: "web", "pod-template-hash": "7d4b9c8f6" }, annotations: { "kubernetes.io/psp": "restricted" } },
      spec: {
        nodeName: "node-17",
        containers: [
          {
            name: "app",
            image: "registry.k8s.io/nginx:1.27",
            ports: [{ containerPort: 8080, name: "http", protocol: "TCP" }],
            resources: { limits: { cpu: "500m", memory: "256Mi" }, requests: { cpu: "100m", memory: "128Mi" } },
            readinessProbe: { httpGet: { path: "/healthz", port: "http" }, periodSeconds: 5 },
            env: [{ name: "MODE", value: "production" }],
            volumeMounts: [{ name: "config", mountPath: "/etc/web" }],
          },
        ],
        volumes: [{ name: "config", configMap: { name: "web-config" } }],
      },
    } as never);
    await pods.updateStatus({
      ...pod,
      status: {
        phase: "Running",
        podIP: "10.244.3.17",
        podIPs: [{ ip: "10.244.3.17" }],
        hostIP: "192.168.1.17",
        startTime: "2026-11-27T20:00:00Z",
        conditions: ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => ({ type, status: "True", lastTransitionTime: "2026-11-27T20:00:03Z" })),
        containerStatuses: [{ name: "app", ready: true, restartCount: 0, image: "registry.k8s.io/nginx:1.27", imageID: "registry.k8s.io/nginx@sha256:" + "a".repeat(64), containerID: "containerd://" + "b".repeat(64), started: true, state: { running: { startedAt: "2026-11-27T20:00:02Z" } } }],
        qosClass: "Burstable",
      },
    } as never);
    const read = async (accept: string) => new Uint8Array(await (await env.client.rest.send({ method: "GET", path: "/api/v1/namespaces/default/pods", accept })).arrayBuffer());
    return { json: await read("application/json"), protobuf: await read("application/vnd.kubernetes.protobuf") };
  } finally {
    await env.stop();
  }
}

/** The JSON list body with its one item repeated. */
function repeatJsonItems(body: Uint8Array, times: number): Uint8Array {
  const list = JSON.parse(new TextDecoder().decode(body)) as { items: unknown[] };
  const item = JSON.stringify(list.items[0]);
  const text = JSON.stringify({ ...list, items: [] }).replace('"items":[]', `"items":[${Array(times).fill(item).join(",")}]`);
  return new TextEncoder().encode(text);
}

/** The protobuf list body with its one item repeated: the envelope's and the list's length prefixes rewritten. */
function repeatProtobufItems(body: Uint8Array, times: number): Uint8Array {
  // k8s\0, Unknown{1: typeMeta, 2: raw = List{1: ListMeta, 2: item}}.
  let pos = 4;
  const field = (): { tag: number; start: number; end: number } => {
    const tag = body[pos++]!;
    let length = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = body[pos++]!;
      length += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) break;
    }
    const start = pos;
    pos += length;
    return { tag, start, end: pos };
  };
  const typeMeta = field();
  const raw = field();
  pos = raw.start;
  const listMeta = field();
  const item = field();
  const itemField = body.subarray(listMeta.end, item.end);
  const list = Buffer.concat([body.subarray(raw.start, listMeta.end), ...Array<Uint8Array>(times).fill(itemField)]);
  return Buffer.concat([body.subarray(0, typeMeta.end), Buffer.from([0x12]), varint(list.length), list]);
}

function varint(value: number): Uint8Array {
  const out: number[] = [];
  while (value >= 0x80) {
    out.push((value % 128) | 0x80);
    value = Math.floor(value / 128);
  }
  out.push(value);
  return new Uint8Array(out);
}
