// The protobuf wire against a real kube-apiserver: every listable resource of a cluster, with
// objects that reach the edge cases (MicroTime fractions, large and canonicalized quantities,
// IntOrString both ways, RawExtension, binaryData, unset pointers), read once as JSON and once
// as protobuf, must come out deep-equal; custom resources stay JSON except their metadata.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SharedInformerFactory } from "../../pkg/informer/factory.ts";
import { loadClientConfig } from "../../pkg/kube/client-config.ts";
import { createKubeClient, type KubeClient } from "../../pkg/kube/client.ts";
import type { GroupVersionResource } from "../../pkg/kube/gvr.ts";
import type { KubeObject, WatchEvent } from "../../pkg/kube/objects.ts";
import { createFetch, type Fetch } from "../../pkg/kube/transport.ts";
import { TestEnvironment } from "../../pkg/testing/mod.ts";

const ns = "wire";
const networks: GroupVersionResource = { group: "samplecrd.k8s.io", version: "v1", resource: "networks" };
let env: TestEnvironment;
let json: KubeClient;
let protobuf: KubeClient;
/** Content-Type of every answer the protobuf client got, by path. */
const answeredAs = new Map<string, string>();

beforeAll(async () => {
  env = await TestEnvironment.start({ crds: ["config/crd"] });
  const config = loadClientConfig({ kubeconfig: env.controlPlane.kubeconfigPath });
  const rate = { qps: 1000, burst: 1000, timeoutMs: 30_000 };
  json = await createKubeClient(config, { ...rate, contentType: "application/json" });
  const fetch = await createFetch(config.tls);
  const recording: Fetch = async (url, init) => {
    const response = await fetch(url, init);
    answeredAs.set(new URL(url).pathname, response.headers.get("Content-Type") ?? "");
    return response;
  };
  protobuf = await createKubeClient(config, { ...rate, fetch: recording });
  await seed(json);
}, 120_000);

afterAll(async () => {
  await env?.stop();
});

async function seed(client: KubeClient): Promise<void> {
  const create = (resource: GroupVersionResource, object: object, namespace = ns) =>
    client.dynamic.resource(resource, namespace).create(object as KubeObject);
  await create({ group: "", version: "v1", resource: "namespaces" }, { metadata: { name: ns, labels: { team: "wire" } } }, "");
  await create({ group: "", version: "v1", resource: "pods" }, {
    metadata: { name: "edge", labels: { app: "web" }, annotations: { note: "ünïcødé ✓" } },
    spec: {
      containers: [
        {
          name: "app",
          image: "registry.k8s.io/pause:3.10",
          ports: [{ containerPort: 8080, name: "http" }],
          resources: {
            limits: { cpu: "1500m", memory: "123456789012345678901234567890", "example.com/gadget": "1e3" },
            requests: { cpu: "0.1", memory: "1.5Gi" },
          },
          livenessProbe: { httpGet: { path: "/", port: "http" }, periodSeconds: 10 },
          readinessProbe: { tcpSocket: { port: 8080 } },
          env: [{ name: "EMPTY", value: "" }, { name: "NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } }],
        },
      ],
      terminationGracePeriodSeconds: 0,
      activeDeadlineSeconds: 2_147_483_647,
      securityContext: { runAsUser: 0, fsGroup: 2_147_483_647 },
      volumes: [{ name: "data", emptyDir: { sizeLimit: "64Mi" } }, { name: "cfg", configMap: { name: "cfg", defaultMode: 0o644 } }],
      tolerations: [{ key: "k", operator: "Exists", effect: "NoExecute", tolerationSeconds: -5 }],
    },
  });
  await create({ group: "apps", version: "v1", resource: "deployments" }, {
    metadata: { name: "web" },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "NotIn", values: ["cache"] }] },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: 1 } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "app", image: "registry.k8s.io/pause:3.10" }] } },
    },
  });
  await create({ group: "apps", version: "v1", resource: "replicasets" }, {
    metadata: { name: "web-1", ownerReferences: [] },
    spec: { replicas: 0, selector: { matchLabels: { app: "rs" } }, template: { metadata: { labels: { app: "rs" } }, spec: { containers: [{ name: "app", image: "pause" }] } } },
  });
  await create({ group: "", version: "v1", resource: "configmaps" }, { metadata: { name: "cfg" }, data: { empty: "", text: "a\nb" }, binaryData: { bin: "AAECAwQ=" } });
  await create({ group: "", version: "v1", resource: "secrets" }, { metadata: { name: "s" }, type: "Opaque", data: { key: "c2VjcmV0" } });
  await create({ group: "coordination.k8s.io", version: "v1", resource: "leases" }, {
    metadata: { name: "lock" },
    spec: { holderIdentity: "a", leaseDurationSeconds: 15, acquireTime: "2026-11-27T20:14:53.000001Z", renewTime: "2026-11-27T20:14:53.123456Z", leaseTransitions: 0 },
  });
  await create({ group: "events.k8s.io", version: "v1", resource: "events" }, {
    metadata: { name: "e" },
    eventTime: "2026-11-27T20:14:53.999999Z",
    reportingController: "kube-loom",
    reportingInstance: "kube-loom-0",
    action: "Scale",
    reason: "Scaled",
    type: "Normal",
    regarding: { kind: "ReplicaSet", name: "web-1", namespace: ns },
    series: { count: 2, lastObservedTime: "2026-11-27T20:14:54.000010Z" },
  });
  await create({ group: "apps", version: "v1", resource: "controllerrevisions" }, { metadata: { name: "rev" }, revision: 1_099_511_627_776, data: { spec: { template: { a: [1, "b", null] } } } });
  await create({ group: "", version: "v1", resource: "services" }, {
    metadata: { name: "svc" },
    spec: { ports: [{ port: 80, targetPort: "http", name: "a" }, { port: 81, targetPort: 8081, name: "b" }], selector: { app: "web" } },
  });
  await create(networks, { kind: "Network", metadata: { name: "net" }, spec: { cidr: "192.168.0.0/24", gateway: "192.168.0.1" } });
}

const byKey = (a: KubeObject, b: KubeObject) => key(a).localeCompare(key(b));
const key = (o: KubeObject) => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;

describe("protobuf and JSON read the same objects", () => {
  test("every listable resource of the cluster, as protobuf for built-in types and JSON for custom ones", async () => {
    const { resources } = await json.discovery.serverPreferredResources();
    const listable = resources.filter((r) => r.verbs.includes("list") && !r.resource.includes("/"));
    expect(listable.length).toBeGreaterThan(40);
    const compared: string[] = [];
    for (const resource of listable) {
      const [fromJson, fromProtobuf] = await Promise.all([json.dynamic.resource(resource).list(), protobuf.dynamic.resource(resource).list()]);
      expect({ resource: resource.resource, items: fromProtobuf.items.sort(byKey) }).toEqual({ resource: resource.resource, items: fromJson.items.sort(byKey) });
      expect([fromProtobuf.apiVersion, fromProtobuf.kind]).toEqual([fromJson.apiVersion, fromJson.kind]);
      const path = resource.group ? `/apis/${resource.group}/${resource.version}/${resource.resource}` : `/api/${resource.version}/${resource.resource}`;
      const wire = answeredAs.get(path) ?? "";
      expect({ resource: resource.resource, wire }).toEqual({
        resource: resource.resource,
        // CustomResourceDefinitions and APIServices are not in k8s.io/api: JSON, as for every custom resource.
        wire: ["samplecrd.k8s.io", "apiextensions.k8s.io", "apiregistration.k8s.io"].includes(resource.group) ? "application/json" : "application/vnd.kubernetes.protobuf",
      });
      if (fromJson.items.length > 0) compared.push(resource.resource);
    }
    for (const seeded of ["pods", "deployments", "replicasets", "configmaps", "secrets", "leases", "events", "controllerrevisions", "services", "namespaces", "networks"]) {
      expect(compared).toContain(seeded);
    }
  }, 120_000);

  test("a streaming list and its watch events, with their bookmark", async () => {
    for (const resource of [{ group: "", version: "v1", resource: "pods" }, { group: "coordination.k8s.io", version: "v1", resource: "leases" }] as GroupVersionResource[]) {
      const [fromJson, fromProtobuf] = await Promise.all([initialEvents(json, resource), initialEvents(protobuf, resource)]);
      expect(fromProtobuf).toEqual(fromJson);
      expect(fromProtobuf.at(-1)?.type).toBe("BOOKMARK");
    }
  });

  test("single reads, metadata of custom resources, and error Status answers", async () => {
    const pods = { group: "", version: "v1", resource: "pods" };
    expect(await protobuf.dynamic.resource(pods, ns).get("edge")).toEqual(await json.dynamic.resource(pods, ns).get("edge"));
    const [metaJson, metaProtobuf] = await Promise.all([json.dynamic.metadata(networks, ns).list(), protobuf.dynamic.metadata(networks, ns).list()]);
    expect(metaProtobuf.items).toEqual(metaJson.items);
    expect(answeredAs.get(`/apis/samplecrd.k8s.io/v1/namespaces/${ns}/networks`)).toBe("application/vnd.kubernetes.protobuf");
    const missing = await protobuf.dynamic.resource(pods, ns).get("missing").catch((err: unknown) => err);
    expect(missing).toMatchObject({ code: 404, reason: "NotFound", message: `GET /api/v1/namespaces/${ns}/pods/missing: pods "missing" not found (404 NotFound)` });
  });

  test("an informer that keeps a few fields of Pods caches the same objects either way", async () => {
    const caches = await Promise.all(
      [json, protobuf].map(async (client) => {
        const factory = new SharedInformerFactory({ listerWatcherFor: (gvr, scope) => client.dynamic.listerWatcher(gvr, scope), defaultResyncMs: 0, guardProjectedFields: false });
        const pods = factory.forResource({ group: "", version: "v1", resource: "pods" }, { namespace: ns }, { fields: ["spec.containers.resources", "status.phase", "spec.nodeName"] });
        const stop = new AbortController();
        factory.start(stop.signal);
        await factory.waitForCacheSync(stop.signal);
        const objects = pods.informer.getIndexer().list();
        stop.abort();
        return objects;
      }),
    );
    expect(caches[1]).toEqual(caches[0]!);
    expect(caches[1]![0]).toMatchObject({ spec: { containers: [{ resources: { limits: { cpu: "1500m" } } }] } });
    expect((caches[1]![0] as { spec?: object }).spec).not.toHaveProperty("volumes");
  });
});

/** The events of a streaming list, up to and including its closing bookmark. */
async function initialEvents(client: KubeClient, resource: GroupVersionResource): Promise<WatchEvent[]> {
  const stop = new AbortController();
  const events: WatchEvent[] = [];
  const stream = await client.dynamic.resource(resource, ns).watch({ sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true, timeoutSeconds: 10 }, stop.signal);
  for await (const event of stream) {
    events.push(event);
    if (event.type === "BOOKMARK") break;
  }
  stop.abort();
  // A bookmark's resourceVersion is the server's at the time: the same only for reads at the same moment.
  return events.map((event) => (event.type === "BOOKMARK" ? { ...event, object: { ...event.object, metadata: { ...event.object.metadata, resourceVersion: "" } } } : event));
}
