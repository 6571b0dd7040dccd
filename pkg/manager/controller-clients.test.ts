import { expect, test } from "bun:test";
import { version } from "../version.ts";
import type { ClientConfig } from "../kube/client-config.ts";
import { createKubeClient } from "../kube/client.ts";
import type { TransportInit } from "../kube/transport.ts";
import { controllerClients } from "./controller-clients.ts";
import type { ControllerDescriptor } from "./controller-descriptor.ts";

const config: ClientConfig = { server: "https://api.test", tls: {}, authenticate: async () => ({}), namespace: "default", source: "test" };
const platform = `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`;

function descriptor(name: string, extra: Partial<ControllerDescriptor> = {}): ControllerDescriptor {
  return { name, aliases: [], enabledByDefault: true, flags: [], create: async () => undefined, ...extra };
}

test("each controller's requests name it in the user agent, as kube-controller-manager's do, rate limit or not", async () => {
  const agents: string[] = [];
  const fetch = async (_url: string, init: TransportInit) => {
    agents.push(new Headers(init.headers).get("User-Agent") ?? "");
    return new Response("{}", { status: 200 });
  };
  const client = await createKubeClient(config, { qps: 0, burst: 0, timeoutMs: 1000, fetch });
  const sources = { client, connection: { qps: 20, burst: 30 } };
  const base = `kube-loom/${version} (${platform}; bun) kube-loom/${version}`;
  for (const [described, component] of [
    [descriptor("network"), "network-controller"],
    [descriptor("garbagecollector", { serviceAccountName: "generic-garbage-collector", client: { ownRateLimit: { qpsFactor: 2 } } }), "generic-garbage-collector"],
  ] as const) {
    const { client: own, identity } = await controllerClients(described, sources);
    await own.rest.request({ method: "GET", path: "/version" });
    expect(agents.at(-1)).toBe(`${base}/${component}`);
    await identity.rest.request({ method: "GET", path: "/version" });
    expect(agents.at(-1)).toBe(`${base}/${component}`);
  }
  // The process's own client keeps its agent.
  await client.rest.request({ method: "GET", path: "/version" });
  expect(agents.at(-1)).toBe(base);
});
