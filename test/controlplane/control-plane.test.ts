// Proves the test harness itself: a real etcd + kube-apiserver, kubectl, restarts,
// compaction, RBAC, and the TCP proxy used to break connections.
// The first run builds the binaries (minutes); CI runs `bun test/controlplane/build.ts` first.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { TcpProxy } from "../support/tcp-proxy.ts";
import { ControlPlane } from "./control-plane.ts";
import { issueClientCertificate } from "./pki.ts";

const SLOW = { timeout: 180_000 };

describe("ControlPlane", () => {
  let controlPlane: ControlPlane;

  beforeAll(async () => {
    controlPlane = await ControlPlane.start();
  }, SLOW);

  afterAll(async () => {
    await controlPlane?.stop();
  }, SLOW);

  test("kubectl reaches the apiserver as admin", async () => {
    const result = await controlPlane.kubectl(["get", "namespace", "default", "-o", "name"]);
    expect(result).toMatchObject({ code: 0, stdout: "namespace/default\n" });
  }, SLOW);

  test("a ConfigMap survives an apiserver restart", async () => {
    const created = await controlPlane.kubectl(["create", "configmap", "survivor", "--from-literal=answer=42"]);
    expect(created.code).toBe(0);

    await controlPlane.stopApiserver();
    const whileDown = await controlPlane.kubectl(["get", "configmap", "survivor", "--request-timeout=5s"]);
    expect(whileDown.code).not.toBe(0);
    await controlPlane.startApiserver();

    const readBack = await controlPlane.kubectl(["get", "configmap", "survivor", "-o", "jsonpath={.data.answer}"]);
    expect(readBack).toMatchObject({ code: 0, stdout: "42" });
  }, SLOW);

  test("after compaction old resourceVersions are 410 Gone", async () => {
    await controlPlane.kubectl(["create", "configmap", "compacted", "--from-literal=v=1"]);
    const oldVersion = (await controlPlane.kubectl(["get", "configmap", "compacted", "-o", "jsonpath={.metadata.resourceVersion}"])).stdout;
    await controlPlane.kubectl(["patch", "configmap", "compacted", "-p", '{"data":{"v":"2"}}']);

    const compactedTo = await controlPlane.compactEtcd();
    expect(compactedTo).toBeGreaterThan(Number(oldVersion));

    // Since 1.34 the watch cache also serves exact-version lists from its snapshots, so both a
    // list and a watch see the compaction only once the cache is rebuilt.
    await controlPlane.stopApiserver();
    await controlPlane.startApiserver();
    const list = await controlPlane.kubectl([
      "get", "--raw", `/api/v1/namespaces/default/configmaps?resourceVersion=${oldVersion}&resourceVersionMatch=Exact`,
    ]);
    expect(list.code).not.toBe(0);
    expect(list.stderr).toContain("(Expired)");
    const watch = await controlPlane.kubectl([
      "get", "--raw", `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${oldVersion}&timeoutSeconds=5`,
    ]);
    expect(watch.stdout).toContain('"code":410');
  }, SLOW);

  test("a user outside system:masters is forbidden to list secrets", async () => {
    const alice = await controlPlane.issueClientCertificate({ user: "alice", groups: ["kube-loom:testers"] });
    const result = await controlPlane.kubectl(["get", "secrets"], { kubeconfig: controlPlane.writeKubeconfig({ client: alice }) });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("(Forbidden)");
    expect(result.stderr).toContain('User "alice" cannot list resource "secrets"');
  }, SLOW);

  test("a client certificate from an unrelated CA is rejected", async () => {
    const mallory = await issueClientCertificate(controlPlane.pki.otherCa, { user: "mallory", groups: ["system:masters"] });
    const result = await controlPlane.kubectl(["get", "namespaces"], { kubeconfig: controlPlane.writeKubeconfig({ client: mallory }) });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("Unauthorized");
  }, SLOW);

  test("kubectl through a TcpProxy fails while the proxy refuses or blackholes", async () => {
    const proxy = await TcpProxy.start("127.0.0.1", Number(new URL(controlPlane.server).port));
    try {
      const kubeconfig = controlPlane.writeKubeconfig({ server: `https://127.0.0.1:${proxy.port}` });
      const getDefault = () => controlPlane.kubectl(["get", "namespace", "default", "-o", "name", "--request-timeout=2s"], { kubeconfig });

      expect((await getDefault()).code).toBe(0);
      proxy.pause("refuse");
      expect((await getDefault()).code).not.toBe(0);
      proxy.pause("blackhole");
      const hung = await getDefault();
      expect(hung.code).not.toBe(0);
      expect(hung.stderr).toMatch(/timeout|deadline/i);
      proxy.resume();
      expect((await getDefault()).code).toBe(0);
    } finally {
      await proxy.stop();
    }
  }, SLOW);
});

describe("TcpProxy", () => {
  let echoServer: Server;
  let echoPort: number;

  beforeAll(async () => {
    echoServer = createServer((socket) => socket.pipe(socket));
    echoPort = await new Promise<number>((resolve) =>
      echoServer.listen(0, "127.0.0.1", () => resolve((echoServer.address() as { port: number }).port)),
    );
  });

  afterAll(() => {
    echoServer.close();
  });

  test("forwards bytes both ways, and cutAll breaks live connections", async () => {
    const proxy = await TcpProxy.start("127.0.0.1", echoPort);
    try {
      const client = await connectTo(proxy.port);
      expect(await roundTrip(client, "ping")).toBe("ping");
      expect(proxy.activeConnections).toBe(1);

      const closed = new Promise<void>((resolve) => client.once("close", () => resolve()));
      proxy.cutAll();
      await closed;
      expect(proxy.activeConnections).toBe(0);

      const reconnected = await connectTo(proxy.port);
      expect(await roundTrip(reconnected, "again")).toBe("again");
      reconnected.destroy();
    } finally {
      await proxy.stop();
    }
  });

  test("a blackhole holds traffic until resume", async () => {
    const proxy = await TcpProxy.start("127.0.0.1", echoPort);
    try {
      const client = await connectTo(proxy.port);
      expect(await roundTrip(client, "before")).toBe("before");

      proxy.pause();
      const held = roundTrip(client, "held");
      const outcome = await Promise.race([held, Bun.sleep(300).then(() => "nothing yet")]);
      expect(outcome).toBe("nothing yet");

      proxy.resume();
      expect(await held).toBe("held");
      client.destroy();
    } finally {
      await proxy.stop();
    }
  });
});

function connectTo(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: "127.0.0.1", port }, () => resolve(socket));
    socket.once("error", reject);
  });
}

function roundTrip(socket: Socket, message: string): Promise<string> {
  return new Promise((resolve) => {
    socket.once("data", (data: Buffer) => resolve(data.toString()));
    socket.write(message);
  });
}
