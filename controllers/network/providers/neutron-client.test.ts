// How Neutron's answers become errors: unreachable or 502/503/504 is "unavailable", anything
// else a NeutronApiError carrying Neutron's own error type and message.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { freeLoopbackPorts } from "../../../test/controlplane/free-ports.ts";
import { noAuthentication } from "./keystone-auth.ts";
import { isNeutronNotFound, NeutronApiError, NeutronClient } from "./neutron-client.ts";
import { ProviderUnavailableError } from "./provider.ts";

let server: Server<undefined>;
let client: NeutronClient;
const signal = new AbortController().signal;

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/v2.0/networks") return Response.json({ networks: [{ id: "n1" }] });
      if (path === "/v2.0/subnets/s1") {
        return Response.json(
          { NeutronError: { type: "GatewayConflictWithAllocationPools", message: "Gateway ip 10.0.0.254 conflicts with allocation pool 10.0.0.2-10.0.0.254.", detail: "" } },
          { status: 409 },
        );
      }
      if (path === "/v2.0/networks/gone") return Response.json({ NeutronError: { type: "NetworkNotFound", message: "Network gone could not be found.", detail: "" } }, { status: 404 });
      if (path === "/v2.0/busy") return new Response("<html>503 Service Unavailable</html>", { status: 503 });
      if (path === "/v2.0/slow") await Bun.sleep(2_000);
      return new Response(null, { status: 204 });
    },
  });
  client = new NeutronClient({ endpoint: `http://127.0.0.1:${server.port}/`, auth: noAuthentication, timeoutMs: 300 });
});

afterAll(() => server.stop(true));

describe("NeutronClient", () => {
  test("returns the JSON body; the endpoint may or may not end in /v2.0", async () => {
    expect(await client.get("networks", signal)).toEqual({ networks: [{ id: "n1" }] });
    const withVersion = new NeutronClient({ endpoint: `http://127.0.0.1:${server.port}/v2.0`, auth: noAuthentication, timeoutMs: 1_000 });
    expect(await withVersion.get("networks", signal)).toEqual({ networks: [{ id: "n1" }] });
  });

  test("a Neutron error keeps its type and message", async () => {
    const error = await client.put("subnets/s1", { subnet: { gateway_ip: "10.0.0.254" } }, signal).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(NeutronApiError);
    expect(error).toMatchObject({ status: 409, type: "GatewayConflictWithAllocationPools" });
    expect((error as Error).message).toBe(
      "Neutron PUT /v2.0/subnets/s1: GatewayConflictWithAllocationPools: Gateway ip 10.0.0.254 conflicts with allocation pool 10.0.0.2-10.0.0.254. (HTTP 409)",
    );
    expect(isNeutronNotFound(await client.delete("networks/gone", signal).catch((err: unknown) => err))).toBe(true);
  });

  test("503, a timeout and a refused connection are all 'unavailable'", async () => {
    await expect(client.get("busy", signal)).rejects.toThrow(ProviderUnavailableError);
    await expect(client.get("busy", signal)).rejects.toThrow("HTTP 503 <html>503 Service Unavailable</html>");
    await expect(client.get("slow", signal)).rejects.toThrow("no answer within 300 ms");
    const { port } = await freeLoopbackPorts(["port"] as const);
    const nobody = new NeutronClient({ endpoint: `http://127.0.0.1:${port}`, auth: noAuthentication, timeoutMs: 1_000 });
    await expect(nobody.get("networks", signal)).rejects.toThrow(ProviderUnavailableError);
  });
});
