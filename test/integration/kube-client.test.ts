// pkg/kube against a real kube-apiserver: every way of authenticating, typed errors, and
// the same checks under Deno.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadClientConfig, ClientConfigError } from "../../pkg/kube/client-config.ts";
import { createKubeClient } from "../../pkg/kube/client.ts";
import { ApiError } from "../../pkg/kube/errors.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import { KubeLeaseLock } from "../../pkg/leaderelection/lease-lock.ts";
import { testContentType } from "../../pkg/testing/test-content-type.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { TcpProxy } from "../support/tcp-proxy.ts";
import { prepareClientFixture } from "./client-fixture.ts";
import {
  clientFor,
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
    const client = await clientFor(sources);
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
    const client = await clientFor({ kubeconfig: fixture.certKubeconfig });
    const typed = await client.typed();
    expect(await client.typed()).toBe(typed);
    const namespaces = await typed.core.listNamespace();
    expect(namespaces.items.map((n) => n.metadata?.name)).toContain("kube-system");
    const missing = await typed.apps.readNamespacedReplicaSet({ name: "absent", namespace: "default" }).catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(ApiError);
    expect((missing as ApiError).reason).toBe("NotFound");
  });

  test("discovery lists groups, resources with verbs, and preferred versions", async () => {
    const client = await clientFor({ kubeconfig: fixture.certKubeconfig });
    const groups = await client.discovery.serverGroups();
    expect(groups.map((g) => g.name)).toEqual(expect.arrayContaining(["", "apps", "coordination.k8s.io", "events.k8s.io"]));
    const preferred = await client.discovery.serverPreferredResources();
    const replicaSets = preferred.resources.find((r) => r.group === "apps" && r.resource === "replicasets");
    expect(replicaSets).toMatchObject({ version: "v1", kind: "ReplicaSet", namespaced: true });
    expect(replicaSets?.verbs).toEqual(expect.arrayContaining(["list", "watch", "delete"]));
    expect(preferred.failed.size).toBe(0);
  });

  test("metadata-only list returns PartialObjectMetadata without spec", async () => {
    const client = await clientFor({ kubeconfig: fixture.certKubeconfig });
    const list = await client.dynamic.metadata(resources.namespaces).list({});
    expect(list.kind).toBe("PartialObjectMetadataList");
    expect(list.items[0]).not.toHaveProperty("spec");
    expect(list.items[0]?.metadata?.uid).toBeString();
  });

  // An idle replica renews a Lease every retry period (2 s; 10 s when slowed down): if the pool
  // dropped its connection between renewals, each would pay for a TCP and TLS handshake, and a
  // burst of creates for one per request in flight. One connection, opened once, carries all.
  test("Lease renewals spaced beyond a retry period and a burst of parallel creates reuse the first connection", async () => {
    const url = new URL(controlPlane.server);
    const proxy = await TcpProxy.start(url.hostname, Number(url.port));
    try {
      const kubeconfig = controlPlane.writeKubeconfig({ server: `https://127.0.0.1:${proxy.port}`, path: join(controlPlane.dir, "connection-reuse.kubeconfig") });
      const client = await createKubeClient(loadClientConfig({ kubeconfig }), { qps: 0, burst: 0, timeoutMs: 10_000, contentType: testContentType() });
      const lock = new KubeLeaseLock({ client, qps: 5, burst: 10, namespace: fixture.namespace, name: "connection-reuse", identity: "probe", renewDeadlineMs: 10_000 });
      const record = { holderIdentity: "probe", leaseDurationSeconds: 15, acquireTime: Date.now(), renewTime: Date.now(), leaseTransitions: 0 };
      await lock.create(record);
      for (const gapMs of [2_500, 2_500, 12_000]) {
        await Bun.sleep(gapMs);
        await lock.update({ ...record, renewTime: Date.now() });
      }
      const configMaps = client.dynamic.resource(resources.configMaps, fixture.namespace);
      await Promise.all(Array.from({ length: 32 }, (_, i) => configMaps.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `connection-reuse-${i}` } })));
      expect(proxy.acceptedConnections).toBe(1);
    } finally {
      await proxy.stop();
    }
  }, 60_000);

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
