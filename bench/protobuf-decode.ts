// Decoding speed of one big LIST body, in-process: the same Pods (a realistic running Pod, read
// from a real kube-apiserver as JSON and as protobuf, then repeated) decoded by kube-loom's
// streaming JSON list decoder, by its protobuf decoder (whole objects, and into the ReplicaSet
// controller's projection), and by protobufjs over the same generated.proto types (decode and
// toObject only: it would still need a pass to reach the JSON form). Then the same Pod's metadata
// as a metadata-only informer reads it (PartialObjectMetadata), as a list and as a streaming
// list's watch events, JSON and protobuf. Medians of 7 runs each.
//   bun bench/protobuf-decode.ts [pods, default 20000]
import { Buffer } from "node:buffer";
import { podFields } from "../controllers/replicaset/replicaset-controller.ts";
import { FieldProjection } from "../pkg/informer/field-projection.ts";
import { decodeObjectList } from "../pkg/kube/list-decoder.ts";
import type { KubeObject } from "../pkg/kube/objects.ts";
import { kubernetesDecoder } from "../pkg/kube/protobuf/kubernetes-decoder.ts";
import { decodeProtobufList } from "../pkg/kube/protobuf/list-stream-decoder.ts";
import { jsonMediaType, metadataAccept, protobufMediaType } from "../pkg/kube/protobuf/media-types.ts";
import { ProtobufWatchDecoder } from "../pkg/kube/protobuf/watch-stream-decoder.ts";
import { JsonWatchDecoder, type WatchDecoder } from "../pkg/kube/watch-decoder.ts";
import { TestEnvironment } from "../pkg/testing/mod.ts";
import { describeMachine } from "./machine.ts";
import { printTable } from "./print-table.ts";
import { median, ratio } from "./statistics.ts";

const count = Number(process.argv[2] ?? 20_000);
const runs = 7;
const chunkBytes = 64 * 1024;

const { json, protobuf, metadata } = await samplePodBodies();
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

// What a metadata-only informer decodes: lists and watches leave out managedFields, as its reads do.
const metadataOptions = { withoutManagedFields: true };
const metadataRows: [string, number, number][] = [];
const metadataJsonList = repeatJsonItems(metadata.jsonList, count);
const metadataProtobufList = repeatProtobufItems(metadata.protobufList, count);
const metadataJsonWatch = repeatJsonEvents(metadata.jsonWatch, count);
const metadataProtobufWatch = repeatProtobufFrames(metadata.protobufWatch, count);
metadataRows.push(["JSON list (streaming list decoder)", metadataJsonList.length, await time(() => decodeObjectList(chunks(metadataJsonList)))]);
metadataRows.push([
  "protobuf list",
  metadataProtobufList.length,
  await time(() => decodeProtobufList(kubernetesDecoder(), chunks(metadataProtobufList), metadataOptions)),
]);
metadataRows.push(["JSON watch events (a streaming list)", metadataJsonWatch.length, await time(async () => decodeWatch(new JsonWatchDecoder(), metadataJsonWatch))]);
metadataRows.push([
  "protobuf watch events (a streaming list)",
  metadataProtobufWatch.length,
  await time(async () => decodeWatch(new ProtobufWatchDecoder(kubernetesDecoder(), metadataOptions), metadataProtobufWatch)),
]);

console.log(`${count} Pods, ${describeMachine()}`);
const header = ["decoder", "body MiB", "ms (median)", "vs JSON"];
const table = (of: [string, number, number][]) => of.map(([name, bytes, ms]) => [name, (bytes / 2 ** 20).toFixed(1), ms.toFixed(0), ratio(ms, of[0]![2])]);
printTable([header, ...table(rows)]);
console.log(`\nThe same ${count} Pods' metadata, as a metadata-only informer reads it (PartialObjectMetadata, managedFields left out)`);
printTable([header, ...table(metadataRows)]);

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

/** Every event of a watch body, fed to `decoder` a chunk at a time. */
function decodeWatch(decoder: WatchDecoder<KubeObject>, body: Uint8Array): number {
  let events = 0;
  for (let start = 0; start < body.length; start += chunkBytes) events += decoder.push(body.subarray(start, start + chunkBytes)).length;
  return events + decoder.end().length;
}

interface MetadataBodies {
  jsonList: Uint8Array;
  protobufList: Uint8Array;
  /** A streaming list of the one Pod: its ADDED event, then the bookmark that ends the list. */
  jsonWatch: Uint8Array;
  protobufWatch: Uint8Array;
}

/** A one-Pod list body in each encoding, of a Pod that looks like a running one (owned by a ReplicaSet), and its metadata's bodies. */
async function samplePodBodies(): Promise<{ json: Uint8Array; protobuf: Uint8Array; metadata: MetadataBodies }> {
  const env = await TestEnvironment.start();
  try {
    const pods = env.client.dynamic.resource({ group: "", version: "v1", resource: "pods" }, "default");
    const pod = await pods.create({
      metadata: {
        name: "web-7d4b9c8f6-x2x9k",
        generateName: "web-7d4b9c8f6-",
        labels: { app: "web", "pod-template-hash": "7d4b9c8f6" },
        annotations: { "kubernetes.io/psp": "restricted" },
        ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-7d4b9c8f6", uid: "5e0d4c3b-9a8f-4e7d-8c6b-5a4f3e2d1c0b", controller: true, blockOwnerDeletion: true }],
      },
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
    const read = async (accept: string, query: Record<string, string | number | boolean> = {}) =>
      new Uint8Array(await (await env.client.rest.send({ method: "GET", path: "/api/v1/namespaces/default/pods", accept, query })).arrayBuffer());
    // The server ends the watch after a second: the ADDED event and the initial-events-end bookmark are in by then.
    const streamingList = { watch: true, sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true, timeoutSeconds: 1 };
    const metadata: MetadataBodies = {
      jsonList: await read(metadataAccept(jsonMediaType, true)),
      protobufList: await read(metadataAccept(protobufMediaType, true)),
      jsonWatch: await read(metadataAccept(jsonMediaType, false), streamingList),
      protobufWatch: await read(metadataAccept(protobufMediaType, false), streamingList),
    };
    return { json: await read("application/json"), protobuf: await read("application/vnd.kubernetes.protobuf"), metadata };
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

/** The JSON watch body with its first event (the ADDED one) repeated: one event a line. */
function repeatJsonEvents(body: Uint8Array, times: number): Uint8Array {
  const [added, ...rest] = new TextDecoder().decode(body).trim().split("\n");
  return new TextEncoder().encode(`${[...Array<string>(times).fill(added!), ...rest].join("\n")}\n`);
}

/** The protobuf watch body with its first frame (the ADDED event) repeated: frames of a 4-byte big-endian length and a WatchEvent. */
function repeatProtobufFrames(body: Uint8Array, times: number): Uint8Array {
  const first = 4 + new DataView(body.buffer, body.byteOffset).getUint32(0);
  return Buffer.concat([...Array<Uint8Array>(times).fill(body.subarray(0, first)), body.subarray(first)]);
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
