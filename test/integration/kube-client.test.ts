// pkg/kube against a real kube-apiserver: every way of authenticating, typed errors, and
// the same checks under Deno.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadClientConfig, ClientConfigError } from "../../pkg/kube/client-config.ts";
import { createKubeClient } from "../../pkg/kube/client.ts";
import { ApiError } from "../../pkg/kube/errors.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { prepareClientFixture } from "./client-fixture.ts";
import { ensureNamespace } from "./informer-fixtures.ts";
import {
  type ClientFixture,
  forbiddenNamesVerbAndResource,
  inClusterSources,
  listCreateWatch,
  wrongCaFailsClearly,
} from "./client-scenarios.ts";

let controlPlane: ControlPlane;
let fixture: ClientFixture;

beforeAll(async () => {
  controlPlane = await ControlPlane.start();
  fixture = await prepareClientFixture(controlPlane);
}, 300_000);

afterAll(async () => {
  await controlPlane?.stop();
});

describe("kube client on Bun against a real API server", () => {
  test("client-certificate kubeconfig: list, create, watch", async () => {
    await listCreateWatch({ kubeconfig: fixture.certKubeconfig }, fixture.namespace);
  });

  test("bearer-token kubeconfig (TokenRequest token, RBAC-bound): list, create, watch", async () => {
    await listCreateWatch({ kubeconfig: fixture.tokenKubeconfig }, fixture.namespace);
  });

  test("in-cluster environment and service-account files: list, create, watch", async () => {
    await listCreateWatch(inClusterSources(fixture), fixture.namespace);
  });

  test("exec credential plugin kubeconfig: list, create, watch", async () => {
    await listCreateWatch({ kubeconfig: fixture.execPluginKubeconfig }, fixture.namespace);
  });

  test("tokenFile kubeconfig: list, create, watch", async () => {
    await listCreateWatch({ kubeconfig: fixture.tokenFileKubeconfig }, fixture.namespace);
  });

  test("--master overrides the kubeconfig's server", async () => {
    await listCreateWatch({ kubeconfig: fixture.wrongServerKubeconfig, master: fixture.server }, fixture.namespace);
  });

  test("403 from RBAC names the verb and the resource", async () => {
    await forbiddenNamesVerbAndResource({ kubeconfig: fixture.tokenKubeconfig }, fixture.namespace);
  });

  test("a wrong CA fails with an error naming the server and the TLS problem", async () => {
    await wrongCaFailsClearly({ kubeconfig: fixture.wrongCaKubeconfig }, fixture.server);
  });

  test("a rotated service-account token is picked up without a restart", async () => {
    const dir = join(controlPlane.dir, "rotating-sa");
    const { mkdirSync, cpSync } = await import("node:fs");
    mkdirSync(dir, { recursive: true });
    cpSync(fixture.serviceAccountDir, dir, { recursive: true });
    writeFileSync(join(dir, "token"), "not-a-valid-token");
    const sources = { ...inClusterSources(fixture), serviceAccountDir: dir };
    const client = await createKubeClient(loadClientConfig(sources), { qps: 50, burst: 100, timeoutMs: 10_000 });
    const configMaps = client.dynamic.resource(resources.configMaps, fixture.namespace);
    const rejected = await configMaps.list({}).catch((err: unknown) => err);
    expect(rejected).toBeInstanceOf(ApiError);
    expect((rejected as ApiError).code).toBe(401);
    // The kubelet rewrites the file in place; mtime changes, the same client now succeeds.
    await Bun.sleep(20);
    cpSync(join(fixture.serviceAccountDir, "token"), join(dir, "token"));
    const list = await configMaps.list({});
    expect(list.items).toBeArray();
  });

  test("typed clients (client-node's generated APIs, loaded on first use) go through the same transport", async () => {
    const client = await createKubeClient(loadClientConfig({ kubeconfig: fixture.certKubeconfig }), { qps: 50, burst: 100, timeoutMs: 10_000 });
    const typed = await client.typed();
    expect(await client.typed()).toBe(typed);
    const namespaces = await typed.core.listNamespace();
    expect(namespaces.items.map((n) => n.metadata?.name)).toContain("kube-system");
    const missing = await typed.apps.readNamespacedReplicaSet({ name: "absent", namespace: "default" }).catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(ApiError);
    expect((missing as ApiError).reason).toBe("NotFound");
  });

  test("discovery lists groups, resources with verbs, and preferred versions", async () => {
    const client = await createKubeClient(loadClientConfig({ kubeconfig: fixture.certKubeconfig }), { qps: 50, burst: 100, timeoutMs: 10_000 });
    const groups = await client.discovery.serverGroups();
    expect(groups.map((g) => g.name)).toEqual(expect.arrayContaining(["", "apps", "coordination.k8s.io", "events.k8s.io"]));
    const preferred = await client.discovery.serverPreferredResources();
    const replicaSets = preferred.resources.find((r) => r.group === "apps" && r.resource === "replicasets");
    expect(replicaSets).toMatchObject({ version: "v1", kind: "ReplicaSet", namespaced: true });
    expect(replicaSets?.verbs).toEqual(expect.arrayContaining(["list", "watch", "delete"]));
    expect(preferred.failed.size).toBe(0);
  });

  test("metadata-only list returns PartialObjectMetadata without spec", async () => {
    const client = await createKubeClient(loadClientConfig({ kubeconfig: fixture.certKubeconfig }), { qps: 50, burst: 100, timeoutMs: 10_000 });
    const list = await client.dynamic.metadata(resources.namespaces).list({});
    expect(list.kind).toBe("PartialObjectMetadataList");
    expect(list.items[0]).not.toHaveProperty("spec");
    expect(list.items[0]?.metadata?.uid).toBeString();
  });

  test("a watch whose reader is busy while 1000 objects are created is not closed by the API server", async () => {
    // The API server closes a watcher it cannot hand events to for a moment; over a stalled
    // HTTP/2 stream (before watches moved to HTTP/1.1) it got 13–61 of them.
    const client = await createKubeClient(loadClientConfig({ kubeconfig: fixture.certKubeconfig }), { qps: 1000, burst: 1000, timeoutMs: 30_000 });
    const namespace = "busy-watch-reader";
    await ensureNamespace(client, namespace);
    const configMaps = client.dynamic.resource(resources.configMaps, namespace);
    const { metadata } = await configMaps.list({});
    const stop = new AbortController();
    try {
      const events = (await configMaps.watch({ resourceVersion: metadata?.resourceVersion }, stop.signal))[Symbol.asyncIterator]();
      // All at once, as a ReplicaSet's batch of creates comes.
      const payload = "x".repeat(1500);
      await Promise.all(Array.from({ length: 1000 }, (_, i) => configMaps.create({ metadata: { name: `cm-${i}` }, data: { payload } })));
      await Bun.sleep(1000);
      const seen = new Set<string>();
      while (seen.size < 1000) {
        const next = await events.next();
        if (next.done) break;
        if (next.value.type === "ADDED") seen.add(next.value.object.metadata?.name ?? "");
      }
      expect(seen.size).toBe(1000);
    } finally {
      stop.abort();
    }
  });

  test("a missing kubeconfig is a clear error naming the path", () => {
    expect(() => loadClientConfig({ kubeconfig: "/nonexistent/kubeconfig" })).toThrow(ClientConfigError);
    expect(() => loadClientConfig({ kubeconfig: "/nonexistent/kubeconfig" })).toThrow("/nonexistent/kubeconfig");
  });
});

describe("kube client on Deno against the same API server", () => {
  test("every client scenario passes under Deno", async () => {
    const fixturePath = join(controlPlane.dir, "client-fixture.json");
    writeFileSync(fixturePath, JSON.stringify(fixture));
    const deno = Bun.spawn(["./node_modules/.bin/deno", "run", "--allow-all", "test/deno/client-scenarios-main.ts", fixturePath], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(deno.stdout).text(), new Response(deno.stderr).text(), deno.exited]);
    expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
    const result = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as { passed: string[] };
    expect(result.passed).toEqual([
      "client certificate",
      "bearer token",
      "in-cluster",
      "exec credential plugin",
      "token file",
      "--master override",
      "403 names verb and resource",
      "wrong CA",
    ]);
  }, 120_000);
});
