import { describe, expect, test } from "bun:test";
import { version } from "../version.ts";
import type { ClientConfig } from "./client-config.ts";
import { createKubeClient, type KubeClient, withRateLimit, withWriteGuard } from "./client.ts";
import type { TransportInit } from "./transport.ts";

const config: ClientConfig = { server: "https://api.test", tls: {}, authenticate: async () => ({}), namespace: "default", source: "test" };
const platform = `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`;

/** The User-Agent header of each request, in order. */
function recordingFetch() {
  const agents: string[] = [];
  const fetch = async (_url: string, init: TransportInit) => {
    agents.push(new Headers(init.headers).get("User-Agent") ?? "");
    return new Response("{}", { status: 200 });
  };
  return { fetch, agents };
}

async function agentOf(client: KubeClient, agents: string[]): Promise<string> {
  await client.rest.request({ method: "GET", path: "/version" });
  return agents.at(-1) ?? "";
}

describe("the user agent", () => {
  test("names kube-loom by default, as client-go names its command: program/version (os/arch; runtime) source", async () => {
    const { fetch, agents } = recordingFetch();
    const client = await createKubeClient(config, { qps: 0, burst: 0, timeoutMs: 1000, fetch });
    expect(await agentOf(client, agents)).toBe(`kube-loom/${version} (${platform}; bun) kube-loom/${version}`);
  });

  test("names the program that made the client, in every client derived from it, with the component last", async () => {
    const { fetch, agents } = recordingFetch();
    const program = { name: "probe-manager", version: "v0.3.0" };
    const client = await createKubeClient(config, { qps: 0, burst: 0, timeoutMs: 1000, fetch, program });
    const base = `probe-manager/v0.3.0 (${platform}; bun) kube-loom/${version}`;
    expect(await agentOf(client, agents)).toBe(base);
    const leaderElection = withRateLimit(client, 5, 10, "leader-election");
    expect(leaderElection.program).toEqual(program);
    expect(await agentOf(leaderElection, agents)).toBe(`${base}/leader-election`);
    expect(await agentOf(withWriteGuard(leaderElection, () => {}), agents)).toBe(`${base}/leader-election`);
    expect(await agentOf(withRateLimit(leaderElection, 5, 10), agents)).toBe(`${base}/leader-election`);
  });

  test("of a client made for one component", async () => {
    const { fetch, agents } = recordingFetch();
    const program = { name: "probe-manager", version: "v0.3.0" };
    const client = await createKubeClient(config, { qps: 0, burst: 0, timeoutMs: 1000, fetch, program, component: "replicaset-controller" });
    expect(await agentOf(client, agents)).toBe(`probe-manager/v0.3.0 (${platform}; bun) kube-loom/${version}/replicaset-controller`);
  });
});
